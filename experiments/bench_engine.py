#!/usr/bin/env python
"""Engine benchmark: the compiled engine (splendor_ai._engine.Core) against the plain-Python rules
model (tests/rules_model.py), per player count.

Measured, per player count:
  legal-move generations/s   legal_actions() on mid-game positions of random games (Core.bench_legal;
                             the model: Model.legal_moves(), whole turns)
  move applications/s        copy + apply of every legal action of those positions (Core.bench_apply;
                             the model: Model.copy().apply(move) for every legal whole turn, which
                             includes the model's own legality check)
  random playouts/s          full random games from fresh deals (Core.bench_playouts: uniform over
                             engine actions; the model: uniform over whole turns), with plies/s (a ply
                             is one whole turn) and, for the engine, actions/s (a turn with token
                             returns or a noble choice is several engine actions)

Each figure runs for at least --seconds (default 1 s; --quick: 0.2 s) of CPU time, timed with
time.process_time (the benchmark is single-threaded, so CPU time is the time the engine ran; wall
time would also count the time spent waiting for a core on a shared machine), in batches grown
until one batch takes a tenth of that; --repeat N keeps the fastest of N such runs (useful on a
shared machine). Each rate is the mean of the full-size batches' rates with its 95% interval
(Student t over the batches), printed as +- the interval's half-width in percent; a ratio's
half-width combines its two rates' relative half-widths in quadrature (an approximation).

    python experiments/bench_engine.py                      # 2, 3 and 4 players
    python experiments/bench_engine.py --players 2 --quick  # a fast smoke run
    python experiments/bench_engine.py --json bench.json    # also write the figures as JSON
    python experiments/bench_engine.py --modules base orient strongholds   # per module

With --modules (default: base and the four Cities of Splendor modules), the engine is measured on
each module's own random games; the plain-Python model is compared on the base game only, and each
module's figures are also given relative to the base game's ("cost of the module").
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from splendor_ai import position as pos  # noqa: E402
from splendor_ai._engine import Core  # noqa: E402
from splendor_ai.tournament.stats import MeanEstimate, mean_interval  # noqa: E402


def load_model():
    """tests/rules_model.py, imported by path (it is not part of the package)."""
    path = ROOT / "tests" / "rules_model.py"
    spec = importlib.util.spec_from_file_location("rules_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(batch, seconds: float, repeat: int = 1) -> list[tuple[dict, float]]:
    """Run batch(k) (which returns a dict of counts, the rate's count first) until `seconds` have
    passed, doubling k while a batch takes under a tenth of the time. Returns the timed batches,
    (counts, CPU seconds) each: those of full size (a tenth of the time or more; all of them if
    none was); with repeat > 1, those of the fastest of `repeat` runs."""
    best = None
    for _ in range(repeat):
        k, batches, elapsed = 1, [], 0.0
        while elapsed < seconds:
            t0 = time.process_time()
            counts = batch(k)
            dt = max(time.process_time() - t0, 1e-9)
            elapsed += dt
            batches.append((counts, dt))
            if dt < seconds / 10:
                k *= 2
        full = [b for b in batches if b[1] >= seconds / 10] or batches
        rate = sum(next(iter(c.values())) for c, _ in full) / sum(dt for _, dt in full)
        if best is None or rate > best[0]:
            best = (rate, full)
    return best[1]


def rate(batches: list[tuple[dict, float]], key: str) -> MeanEstimate:
    """The mean of the batches' rates of count `key` per second, with its 95% interval."""
    return mean_interval([c[key] / dt for c, dt in batches])


def total(batches: list[tuple[dict, float]], key: str) -> int:
    return sum(c[key] for c, _ in batches)


def rates(**figures: MeanEstimate) -> dict:
    """{name: mean, name_95: [lower, upper] or None} of each figure."""
    out = {}
    for name, est in figures.items():
        out[name] = est.mean
        out[name + "_95"] = None if est.lower is None else [max(0.0, est.lower), est.upper]   # a rate is >= 0
    return out


MODULES = {"base": 0, "cities": 1, "orient": 2, "posts": 4, "strongholds": 8}  # engine flags


def mid_game_positions(players: int, seed: int, games: int, per_game: int, flags: int = 0) -> list[dict]:
    """Turn-boundary positions (engine dicts) from the middle half (by turn) of random games played
    with uniform random engine actions (like Core.playout)."""
    rng = random.Random(seed)
    out = []
    for g in range(games):
        core = Core.new(players, rng.getrandbits(63), g % players, pos.DEFAULT_CAP, flags)
        seen = []
        while not core.over:
            if core.phase == 0:
                seen.append(core.to_dict())
            acts = core.legal_actions()
            core.apply(acts[rng.randrange(len(acts))])
        n = len(seen)
        middle = seen[n // 4: max(n // 4 + 1, 3 * n // 4)]
        out += rng.sample(middle, min(per_game, len(middle)))
    return out


def bench_engine(players: int, dicts: list[dict], seconds: float, seed: int, repeat: int = 1,
                 flags: int = 0) -> dict:
    cores = [Core.from_dict(d) for d in dicts]
    legal = [c.legal_actions() for c in cores]

    def gen(k):
        for c in cores:
            c.bench_legal(k)
        return {"n": k * len(cores)}

    def app(k):
        n = 0
        for c, acts in zip(cores, legal):
            for a in acts:
                n += c.bench_apply(k, a)
        return {"n": n}

    deal = [seed]

    def play(k):  # at most 64 playouts per deal, so the figure does not hang on one deal
        games = turns = actions = 0
        while games < k:
            deal[0] += 1
            start = Core.new(players, deal[0], deal[0] % players, pos.DEFAULT_CAP, flags)
            g, t, a = start.bench_playouts(min(64, k - games), deal[0])
            games, turns, actions = games + g, turns + t, actions + a
        return {"games": games, "turns": turns, "actions": actions}

    g = measure(gen, seconds, repeat)
    a = measure(app, seconds, repeat)
    p = measure(play, seconds, repeat)
    return {
        **rates(legal_per_s=rate(g, "n"), apply_per_s=rate(a, "n"), games_per_s=rate(p, "games"),
                plies_per_s=rate(p, "turns"), actions_per_s=rate(p, "actions")),
        "plies_per_game": total(p, "turns") / total(p, "games"),
        "actions_per_ply": total(p, "actions") / total(p, "turns"),
        "games": total(p, "games"),
        "batches": len(p),
        "avg_legal": sum(map(len, legal)) / len(legal),
    }


def bench_model(Model, players: int, texts: list[str], seconds: float, seed: int,
                repeat: int = 1) -> dict:
    models = [Model.from_position(t) for t in texts]
    moves = [sorted(m.legal_moves()) for m in models]

    def gen(k):
        for _ in range(k):
            for m in models:
                m.legal_moves()
        return {"n": k * len(models)}

    def app(k):
        n = 0
        for _ in range(k):
            for m, ms in zip(models, moves):
                for mv in ms:
                    m.copy().apply(mv)
                n += len(ms)
        return {"n": n}

    deal = [seed]

    def play(k):
        games = turns = 0
        for _ in range(k):
            deal[0] += 1
            rng = random.Random(deal[0])
            m = Model.new(players, deal[0], deal[0] % players)
            while not m.is_over():
                m.apply(rng.choice(sorted(m.legal_moves())))
                turns += 1
            games += 1
        return {"games": games, "turns": turns}

    g = measure(gen, seconds, repeat)
    a = measure(app, seconds, repeat)
    p = measure(play, seconds, repeat)
    return {
        **rates(legal_per_s=rate(g, "n"), apply_per_s=rate(a, "n"), games_per_s=rate(p, "games"),
                plies_per_s=rate(p, "turns")),
        "plies_per_game": total(p, "turns") / total(p, "games"),
        "games": total(p, "games"),
        "batches": len(p),
        "avg_legal": sum(map(len, moves)) / len(moves),
    }


def fmt(x) -> str:
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:,.2f}" if x >= 1 else f"{x:.3f}"


ROWS = [  # label, key
    ("legal-move generations/s", "legal_per_s"),
    ("move applications/s", "apply_per_s"),
    ("random playouts/s", "games_per_s"),
    ("plies/s (whole turns)", "plies_per_s"),
    ("actions/s (engine actions)", "actions_per_s"),
]


def rel_half(fig: dict | None, key: str) -> float | None:
    """The half-width of a figure's 95% interval relative to the figure (None without one)."""
    ci = fig.get(key + "_95") if fig else None
    return None if not ci or not fig[key] else (ci[1] - ci[0]) / 2 / fig[key]


def with_ci(fig: dict | None, key: str) -> str:
    """A rate with the half-width of its 95% interval in percent: "36,216,506 +-0.8%"."""
    x = fig.get(key) if fig else None
    r = rel_half(fig, key)
    return fmt(x) + ("" if r is None else f" \u00b1{100 * r:.1f}%")


def ratio_ci(a: dict | None, b: dict | None, key: str, form: str) -> str:
    """a[key] / b[key] with an approximate 95% half-width (relative half-widths in quadrature)."""
    x, y = (a or {}).get(key), (b or {}).get(key)
    if not x or not y:
        return "-"
    ra, rb = rel_half(a, key), rel_half(b, key)
    half = "" if ra is None or rb is None else f" \u00b1{100 * (ra * ra + rb * rb) ** 0.5:.0f}%"
    return form.format(x / y) + half


def table(players: int, npos: int, eng: dict, mod: dict | None, module: str = "base",
          base: dict | None = None) -> str:
    lines = [f"== {players} players" + ("" if module == "base" else f", {module}") + " ==",
             f"positions: {npos} mid-game positions from random games; "
             f"{eng['avg_legal']:.1f} legal actions (engine)"
             + (f", {mod['avg_legal']:.1f} legal whole turns (model)" if mod else "") + " on average",
             f"playouts: engine {eng['plies_per_game']:.1f} plies/game, {eng['actions_per_ply']:.2f} "
             f"actions/ply ({eng['games']} games)"
             + (f"; model {mod['plies_per_game']:.1f} plies/game ({mod['games']} games)" if mod else ""),
             "rates: the mean over timed batches, +- the half-width of its 95% interval"]
    other, title, form = (base, "base game", "{:.2f}") if base is not None else (mod, "model", "{:,.0f}x")
    head = f"{'measurement':<28}{'engine':>24}{title:>22}{'engine/' + ('base' if base is not None else 'model'):>18}"
    if base is not None:   # a module: its speed against the base game's
        head = head.replace("engine/base", "module/base")
    lines += [head, "-" * len(head)]
    for label, key in ROWS:
        lines.append(f"{label:<28}{with_ci(eng, key):>24}{with_ci(other, key):>22}"
                     f"{ratio_ci(eng, other, key, form):>18}")
    return "\n".join(lines)


def machine() -> dict:
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "python": platform.python_version(),
            "platform": platform.platform()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--players", type=int, nargs="+", default=[2, 3, 4], choices=[2, 3, 4],
                    help="player counts to benchmark (default: 2 3 4)")
    ap.add_argument("--seconds", type=float, default=None,
                    help="minimum wall time per measurement (default 1.0; --quick: 0.2)")
    ap.add_argument("--quick", action="store_true", help="short measurements (0.2 s) and fewer positions")
    ap.add_argument("--games", type=int, default=None,
                    help="random games to take mid-game positions from (default 8; --quick: 3)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run each measurement this many times and report the fastest (default 1)")
    ap.add_argument("--modules", nargs="+", default=list(MODULES), choices=list(MODULES),
                    help="rule sets to benchmark (default: all; the model runs on base only)")
    ap.add_argument("--no-model", action="store_true", help="skip the plain-Python model")
    ap.add_argument("--seed", type=int, default=1, help="seed of the positions and playouts")
    ap.add_argument("--json", metavar="PATH", help="also write the figures as JSON to PATH")
    args = ap.parse_args(argv)
    seconds = args.seconds if args.seconds is not None else (0.2 if args.quick else 1.0)
    ngames = args.games if args.games is not None else (3 if args.quick else 8)
    if seconds <= 0 or ngames < 1 or args.repeat < 1:
        ap.error("--seconds, --games and --repeat must be positive")

    Model = None if args.no_model else load_model().Model
    info = machine()
    print(f"splendor_ai engine benchmark: {info['cpu'] or 'unknown CPU'}, {info['cores']} cores, "
          f"Python {info['python']}; >= {seconds:g} s per measurement"
          + (f", best of {args.repeat}" if args.repeat > 1 else ""))
    out = {"machine": info, "seconds": seconds, "repeat": args.repeat, "seed": args.seed, "argv": sys.argv[1:], "results": []}
    for players in args.players:
        base = None
        for module in args.modules:
            flags = MODULES[module]
            dicts = mid_game_positions(players, args.seed * 1000 + players, ngames, 6, flags)
            eng = bench_engine(players, dicts, seconds, args.seed * 1000 + players, args.repeat, flags)
            mod = None
            if Model is not None and module == "base":
                texts = [pos.to_text(d) for d in dicts]
                mod = bench_model(Model, players, texts, seconds, args.seed * 1000 + players, args.repeat)
            print()
            print(table(players, len(dicts), eng, mod, module, base), flush=True)
            if module == "base":
                base = eng
            ratio = {k: eng[k] / mod[k] for _, k in ROWS if mod and k in mod and mod[k]}
            out["results"].append({"players": players, "module": module, "positions": len(dicts),
                                   "engine": eng, "model": mod, "ratio": ratio})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=2)
            f.write("\n")
        print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
