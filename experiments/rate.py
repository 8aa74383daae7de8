#!/usr/bin/env python
"""Re-rate any set of game records (JSON Lines files, e.g. several runs' games.jsonl): per player
win rate (Wilson 95%), average rank, per-seat win rates and Plackett-Luce rating (openskill);
per match (lineup) W-D-L / Elo / LOS at two players, per-member tables at three or four. Records
from other tools (without a lineup in meta) are grouped by their set of player specs. A torn last
line of a file is skipped with a warning; any other corrupt line is an error naming it.

Records of several modules (the base game and Cities of Splendor modules: each record's
config.modules; a record without modules, including every record from before the modules, is a
base game) are rated per module, a section each, before the combined tables; --per-module asks for
the sections with a single module too, --module NAME rates only that module's games.

    python experiments/rate.py results/tournament/games.jsonl results/sweep/games.jsonl --out results/rated

Writes OUT/summary.json, OUT/report.txt and OUT/ratings.png.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from splendor_ai.tournament import cli, load, outcome, report  # noqa: E402
from splendor_ai.tournament.errors import ExperimentError  # noqa: E402
from splendor_ai.tournament.games import MODULE_CHOICES, record_module  # noqa: E402
from splendor_ai.tournament.summary import (by_module, lineups_of, match_summary, module_matrix, modules_of,  # noqa: E402
                                            plackett_luce, players_table)

NAME = "rate"


def main(argv=None) -> int:
    p = cli.Parser(prog=NAME + ".py", description=__doc__, formatter_class=cli.argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="*", metavar="RECORDS.jsonl", help="records files")
    p.add_argument("--out", metavar="DIR", default="results/rate", help="results folder (default results/rate)")
    p.add_argument("--config", metavar="FILE.toml", help="options from a TOML file (files = [...], out = ...)")
    p.add_argument("--per-module", action="store_true",
                   help="a section per module even when the records hold one module only")
    p.add_argument("--module", choices=MODULE_CHOICES, metavar="MODULE",
                   help="rate only the games of this module (base, " + ", ".join(MODULE_CHOICES[1:]) + ")")
    args = cli.parse(p, argv)
    if not args.files:
        raise ExperimentError("no records files given")
    records = []
    for f in args.files:
        if not Path(f).exists():
            raise ExperimentError(f"{f}: no such file")
        records += load(f)
    if args.module:
        records = [r for r in records if record_module(r) == args.module]
    outs = [outcome(r) for r in records]
    void = sum(o is None for o in outs)
    outs = [o for o in outs if o is not None]
    if not outs:
        raise ExperimentError("no rated games in " + ", ".join(args.files)
                              + (f" (module {args.module})" if args.module else ""))
    modules = modules_of(outs)
    per_module = args.per_module or len(modules) > 1

    def body(module, outs, records):
        players = players_table(outs)
        ratings = plackett_luce(outs)
        matches = [match_summary(outs, lu) for lu in lineups_of(outs)]
        text = ["Standings (Plackett-Luce rating by openskill; win% by seat: seat 0 first)",
                report.players_text(players, ratings), "", "Matches", report.matches_text(matches)]
        return {"players": players, "ratings": ratings, "matches": matches}, text

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    summary = {"experiment": NAME, "command": cli.command(NAME, argv), "files": args.files,
               "games": {"records": len(records), "rated": len(outs), "void": void}, "modules": modules}
    title = f"Ratings of {len(outs)} games from {len(args.files)} file(s)"
    text = [title, "=" * len(title), f"command: {summary['command']}",
            f"records: {len(records)}, rated: {len(outs)}" + (f", void (no result, no offender): {void}" if void else ""),
            f"modules: {', '.join(f'{m} ({n})' for m, n in ((m, len(v)) for m, v in by_module(outs).items()))}", ""]
    if per_module:
        matrix = module_matrix(outs, modules)
        summary["module_matrix"] = matrix
        text += ["Win% [Wilson 95%] (games) per module", report.matrix_text(matrix, modules), ""]
    part, lines = cli.module_sections(modules, outs, records, body, per_module)
    summary.update(part)
    text += lines
    ratings = part["ratings"]
    names = list(ratings)
    report.bars(out / "ratings.png", names, [ratings[s]["mu"] for s in names],
                [ratings[s]["mu_95"][0] for s in names], [ratings[s]["mu_95"][1] for s in names],
                "Plackett-Luce rating mu (openskill), 95% interval", title)
    text.append("\nplot: ratings.png")
    with open(out / "summary.json", "w", encoding="utf-8") as f:
        json.dump(summary, f, indent=1, allow_nan=False)
        f.write("\n")
    (out / "report.txt").write_text("\n".join(text) + "\n", encoding="utf-8")
    print("\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main, NAME))
