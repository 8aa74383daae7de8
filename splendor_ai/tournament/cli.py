"""What the experiment scripts share: options (on the command line or in a TOML file), the
one-line error messages, and the play-then-summarise flow around runner.run.

Every script takes `--config FILE.toml`: its keys are the long option names (dashes or
underscores), e.g. `deals = 20`, `jobs = 2`, `specs = ["random", "greedy"]`; options given on the
command line override the file. Bad input of any kind (an unknown option or player, a bad value,
a corrupt records file, a broken TOML file) ends the script with one line
"SCRIPT: error: ..." and exit status 2; Ctrl-C ends it with status 130 after saying how to resume.

Modules: `--module NAME` (TOML `module = "orient"`) plays the base game (`base`, the default) or one
Cities of Splendor module; `--modules NAME ...` (TOML `modules = ["base", "cities"]`) plays the
whole schedule once per module on the same deals and reports each module's tables and then the
combined ones. A run whose records mix modules (a folder shared by several runs, `rate.py` over
several files) is reported per module too.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import SplendorError
from .errors import ExperimentError
from .games import MODULE_CHOICES, Settings, deals, module_label, record_module, schedule
from .outcomes import outcome
from .runner import RunResult, run
from .specs import check_specs


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit status 2)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def positive_int(text) -> int:
    try:
        v = int(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def natural(text) -> int:
    try:
        v = int(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return v


def positive_float(text) -> float:
    try:
        v = float(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return v


def number(text) -> float:
    try:
        v = float(text)
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return v


def parser(name: str, description: str, players: bool = True, limits: bool = True) -> Parser:
    p = Parser(prog=name + ".py", description=description,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    g = p.add_argument_group("games")
    if players:
        g.add_argument("--players", type=int, choices=(2, 3, 4), default=2, help="players per game (default 2)")
    g.add_argument("--deals", type=positive_int, default=10,
                   help="deals (seeds) to play; each is played under every seat rotation (default 10)")
    g.add_argument("--seed", type=natural, default=1, help="first deal seed: deals are SEED, SEED+1, ... (default 1)")
    if limits:
        g.add_argument("--iterations", type=positive_int,
                       help="per-move iteration limit for every player (overrides the specs' own)")
        g.add_argument("--seconds", type=positive_float,
                       help="per-move time limit in seconds for every player (overrides the specs' own)")
    g.add_argument("--time-forfeit", type=positive_float, metavar="SECONDS",
                   help="a move that takes longer than this loses the game (default: never)")
    g.add_argument("--cap", type=positive_int, help="safety cap on game length in rounds (default: the rules')")
    g.add_argument("--module", choices=MODULE_CHOICES, metavar="MODULE",
                   help="the base game ('base', the default) or one Cities of Splendor module: "
                        + ", ".join(MODULE_CHOICES[1:]))
    g.add_argument("--modules", nargs="+", choices=MODULE_CHOICES, metavar="MODULE",
                   help="play the whole schedule once per module on the same deals (e.g. --modules base cities "
                        "orient posts strongholds) and report each module's results and the combined ones")
    r = p.add_argument_group("running")
    r.add_argument("-j", "--jobs", type=positive_int,
                   help="games at a time: local worker processes (default 1), or Ray tasks (default: all cluster CPUs)")
    r.add_argument("--ray", metavar="ADDRESS",
                   help="run the games on the Ray cluster at ADDRESS (e.g. ray://host:10001 or auto), "
                        "or 'local' to start a local Ray instance")
    r.add_argument("--out", metavar="DIR", default=f"results/{name}",
                   help=f"results folder: games.jsonl, summary.json, report.txt, plots (default results/{name}); "
                        "an interrupted run resumes from its games.jsonl")
    r.add_argument("--report-only", action="store_true",
                   help="play nothing: summarise the games already in the results folder")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument("--config", metavar="FILE.toml", help="options from a TOML file (command-line options win)")
    return p


def parse(p: argparse.ArgumentParser, argv=None) -> argparse.Namespace:
    """Parse argv, with the defaults taken from --config FILE.toml when given."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = p.parse_args(argv)
    if getattr(args, "config", None):
        path = args.config
        try:
            import tomllib
        except ImportError:  # Python 3.10
            raise ExperimentError("--config needs Python 3.11 or later (tomllib)") from None
        try:
            with open(path, "rb") as f:
                data = tomllib.load(f)
        except OSError as e:
            raise ExperimentError(f"{path}: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise ExperimentError(f"{path}: not valid TOML: {e}") from None
        actions = {a.dest: a for a in p._actions}
        defaults = {}
        for key, value in data.items():
            dest = key.replace("-", "_")
            a = actions.get(dest)
            if a is None or dest in ("help", "config"):
                raise ExperimentError(f"{path}: unknown option {key!r}")
            defaults[dest] = _convert(a, value, f"{path}: option {key!r}")
        p.set_defaults(**defaults)
        args = p.parse_args(argv)
    return args


def _convert(a: argparse.Action, value, where: str):
    if isinstance(a, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
        if not isinstance(value, bool):
            raise ExperimentError(f"{where}: expected true or false, got {value!r}")
        return value
    if a.nargs in ("*", "+"):
        if not isinstance(value, list):
            raise ExperimentError(f"{where}: expected a list, got {value!r}")
        return [_convert_one(a, v, where) for v in value]
    if isinstance(value, list) and getattr(a, "joins_lists", False):
        from .specs import format_value
        value = ",".join(v if isinstance(v, str) else format_value(v) for v in value)
    return _convert_one(a, value, where)


def _convert_one(a, value, where):
    if isinstance(value, (dict, list)) or (isinstance(value, bool) and a.type is not None):
        raise ExperimentError(f"{where}: unexpected value {value!r}")
    if a.type is not None:
        try:
            value = a.type(str(value) if not isinstance(value, (int, float)) else value)
        except (argparse.ArgumentTypeError, ValueError, TypeError) as e:
            raise ExperimentError(f"{where}: {e}") from None
    elif not isinstance(value, str):
        raise ExperimentError(f"{where}: expected a string, got {value!r}")
    if a.choices is not None and value not in a.choices:
        raise ExperimentError(f"{where}: expected one of {', '.join(map(str, a.choices))}, got {value!r}")
    return value


def settings(args) -> Settings:
    return Settings(players=getattr(args, "players", 2), cap=args.cap,
                    iterations=getattr(args, "iterations", None), seconds=getattr(args, "seconds", None),
                    time_forfeit=args.time_forfeit, module=getattr(args, "module", None))


def modules_asked(args) -> list[str] | None:
    """The --modules list (None without it); --module and --modules together are an error."""
    mods = getattr(args, "modules", None)
    if mods is None:
        return None
    if getattr(args, "module", None) is not None:
        raise ExperimentError("give --module or --modules, not both")
    if len(set(mods)) != len(mods):
        raise ExperimentError(f"--modules: a module is given twice ({' '.join(mods)})")
    return list(mods)


@dataclass
class Experiment:
    name: str
    args: argparse.Namespace
    settings: Settings
    out: Path
    lineups: list
    result: RunResult
    outcomes: list = field(default_factory=list)
    void: int = 0
    modules: list = field(default_factory=lambda: ["base"])   # the modules scheduled
    asked: bool = False                                        # --modules was given

    @property
    def scheduled(self) -> int:
        return len(self.result.records) + self.result.remaining

    @property
    def per_module(self) -> bool:
        """Report per module: --modules was given, or the games mix modules."""
        return self.asked or len({o.module for o in self.outcomes} | set(self.modules)) > 1


def module_sections(modules, outcomes, records, body, per_module: bool = True):
    """Each module's part of a report, then the combined part: body(label, outcomes, records) ->
    (summary dict, text lines) is called for every module in `modules` (when per_module) with that
    module's outcomes and records, and once with all of them (label "all"; the only call when not
    per_module). Returns (the combined summary with a "modules" entry {module: its summary} when
    per module, the text lines with a section heading per module and "all modules" before the
    combined part)."""
    if not per_module:
        return body("all", outcomes, records)
    summaries, text = {}, []
    for m in modules:
        sm, lines = body(m, [o for o in outcomes if o.module == m],
                         [r for r in records if record_module(r) == m])
        summaries[m] = sm
        text += [report_section(f"module: {m}"), *lines, ""]
    sm, lines = body("all", outcomes, records)
    sm = dict(sm, by_module=summaries)
    text += [report_section(f"all modules ({', '.join(modules)})"), *lines]
    return sm, text


def report_section(title: str) -> str:
    from .report import section
    return section(title)


def play(name: str, args, lineups, stop=None) -> Experiment:
    """Check the specs, play (or resume) the schedule into OUT/games.jsonl, read the outcomes."""
    st = settings(args)
    mods = modules_asked(args)
    check_specs(sorted({s for lu in lineups for s in lu}))
    games = schedule(lineups, deals(args.deals, args.seed), st, event=name, modules=mods)
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ExperimentError(f"{out}: cannot create the results folder: {e.strerror}") from None
    if not out.is_dir():
        raise ExperimentError(f"{out}: not a folder")
    if args.ray and not args.report_only:
        print(f"starting Ray ({args.ray}) ...", file=sys.stderr)
    res = run(games, out / "games.jsonl", jobs=args.jobs, ray=None if args.report_only else args.ray,
              progress=not args.no_progress, stop=stop, desc=name, execute=not args.report_only)
    outs = [outcome(r) for r in res.records]
    labels = list(mods) if mods else [module_label(st.module)]
    return Experiment(name, args, st, out, list(lineups), res, [o for o in outs if o is not None],
                      sum(o is None for o in outs), labels, mods is not None)


def base_summary(exp: Experiment, argv=None) -> dict:
    r = exp.result
    return {"experiment": exp.name, "command": command(exp.name, argv),
            "options": {k: v for k, v in vars(exp.args).items()},
            "settings": exp.settings.to_json(), "modules": list(exp.modules),
            "deals": {"first": exp.args.seed, "count": exp.args.deals},
            "games": {"scheduled": exp.scheduled, "finished": len(r.records), "void": exp.void,
                      "played_now": r.played, "resumed": r.resumed, "remaining": r.remaining,
                      "stopped_early": r.stopped, "ignored_records": r.ignored}}


def command(name: str, argv=None) -> str:
    argv = sys.argv[1:] if argv is None else argv
    return "python " + shlex.join([f"experiments/{name}.py", *argv])


def header(exp: Experiment, title: str, argv=None) -> str:
    s, r = exp.settings, exp.result
    limit = []
    if s.iterations:
        limit.append(f"{s.iterations} iterations")
    if s.seconds:
        limit.append(f"{s.seconds:g} s")
    lines = [title, "=" * len(title),
             f"command: {command(exp.name, argv)}",
             f"{s.players} players, deals {exp.args.seed}..{exp.args.seed + exp.args.deals - 1} "
             f"x {s.players} seat rotations (duplicate format); per-move limit: "
             f"{' / '.join(limit) or 'each spec its own'}; time forfeit: "
             f"{f'{s.time_forfeit:g} s' if s.time_forfeit else 'none'}; cap: {s.cap or 'default'}",
             (f"modules: {', '.join(exp.modules)} (every game once per module, on the same deals)"
              if exp.asked else f"module: {exp.modules[0]}" + (" (the base game)" if exp.modules[0] == "base" else "")),
             f"games: {len(r.records)} of {exp.scheduled} finished ({r.played} played now, {r.resumed} resumed"
             f"{f', {exp.void} void' if exp.void else ''}{', stopped early' if r.stopped else ''})"]
    if r.remaining and not r.stopped:
        lines.append(f"INCOMPLETE: {r.remaining} games still to play (run the command again to resume)")
    lines.append("Win% and its 95% interval (Wilson) count a shared win or a draw as a share; "
                 "Elo intervals are 95%.")
    return "\n".join(lines)


def write(exp: Experiment, summary: dict, report: str, quiet: bool = False) -> None:
    with open(exp.out / "summary.json", "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1, allow_nan=False)
        f.write("\n")
    with open(exp.out / "report.txt", "w", encoding="utf-8") as f:
        f.write(report.rstrip() + "\n")
    if not quiet:
        print(report.rstrip())
        print(f"\n(results in {exp.out}/: games.jsonl, summary.json, report.txt"
              + "".join(f", {p.name}" for p in sorted(exp.out.glob("*.png"))) + ")")


def main(fn, name: str, argv=None) -> int:
    """Run fn(argv) with one-line errors and warnings; returns the exit status."""
    prog = name + ".py"

    def show(message, category, filename, lineno, file=None, line=None):
        print(f"{prog}: warning: {message}", file=sys.stderr)
    warnings.showwarning = show
    os.environ.setdefault("MPLBACKEND", "Agg")
    try:
        return fn(argv) or 0
    except SystemExit as e:  # argparse: --help (0) or a bad option (2, message already printed)
        return e.code if isinstance(e.code, int) else 2
    except (SplendorError, ExperimentError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        print(f"{prog}: error: {where}{e.strerror or e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"\n{prog}: interrupted; the finished games are saved: run the same command again to resume",
              file=sys.stderr)
        return 130
