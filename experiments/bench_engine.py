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
time would also count the time spent waiting for a core on a shared machine), in batches grown until one batch takes a tenth of that; --repeat N keeps the
fastest of N such runs (useful on a shared machine).

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


def load_model():
    """tests/rules_model.py, imported by path (it is not part of the package)."""
    path = ROOT / "tests" / "rules_model.py"
    spec = importlib.util.spec_from_file_location("rules_model", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def measure(batch, seconds: float, repeat: int = 1) -> tuple[dict, float]:
    """Run batch(k) (which returns a dict of counts, the rate's count first) until `seconds` have
    passed, doubling k while a batch takes under a tenth of the time. Returns the summed counts and
    the elapsed time; with repeat > 1, those of the fastest of `repeat` runs."""
    best = None
    for _ in range(repeat):
        k, totals, elapsed = 1, {}, 0.0
        while elapsed < seconds:
            t0 = time.process_time()
            counts = batch(k)
            dt = time.process_time() - t0
            elapsed += dt
            for key, v in counts.items():
                totals[key] = totals.get(key, 0) + v
            if dt < seconds / 10:
                k *= 2
        rate = next(iter(totals.values())) / elapsed
        if best is None or rate > best[0]:
            best = (rate, totals, elapsed)
    return best[1], best[2]


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

    g, tg = measure(gen, seconds, repeat)
    a, ta = measure(app, seconds, repeat)
    p, tp = measure(play, seconds, repeat)
    return {
        "legal_per_s": g["n"] / tg,
        "apply_per_s": a["n"] / ta,
        "games_per_s": p["games"] / tp,
        "plies_per_s": p["turns"] / tp,
        "actions_per_s": p["actions"] / tp,
        "plies_per_game": p["turns"] / p["games"],
        "actions_per_ply": p["actions"] / p["turns"],
        "games": p["games"],
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

    g, tg = measure(gen, seconds, repeat)
    a, ta = measure(app, seconds, repeat)
    p, tp = measure(play, seconds, repeat)
    return {
        "legal_per_s": g["n"] / tg,
        "apply_per_s": a["n"] / ta,
        "games_per_s": p["games"] / tp,
        "plies_per_s": p["turns"] / tp,
        "plies_per_game": p["turns"] / p["games"],
        "games": p["games"],
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


def table(players: int, npos: int, eng: dict, mod: dict | None, module: str = "base",
          base: dict | None = None) -> str:
    lines = [f"== {players} players" + ("" if module == "base" else f", {module}") + " ==",
             f"positions: {npos} mid-game positions from random games; "
             f"{eng['avg_legal']:.1f} legal actions (engine)"
             + (f", {mod['avg_legal']:.1f} legal whole turns (model)" if mod else "") + " on average",
             f"playouts: engine {eng['plies_per_game']:.1f} plies/game, {eng['actions_per_ply']:.2f} "
             f"actions/ply ({eng['games']} games)"
             + (f"; model {mod['plies_per_game']:.1f} plies/game ({mod['games']} games)" if mod else "")]
    if base is not None:   # a module: its speed against the base game's
        head = f"{'measurement':<28}{'engine':>16}{'base game':>14}{'module/base':>14}"
        lines += [head, "-" * len(head)]
        for label, key in ROWS:
            e, b = eng.get(key), base.get(key)
            ratio = f"{e / b:.2f}" if e and b else "-"
            lines.append(f"{label:<28}{fmt(e):>16}{fmt(b):>14}{ratio:>14}")
        return "\n".join(lines)
    head = f"{'measurement':<28}{'engine':>16}{'model':>14}{'engine/model':>14}"
    lines += [head, "-" * len(head)]
    for label, key in ROWS:
        e = eng.get(key)
        m = mod.get(key) if mod else None
        ratio = f"{e / m:,.0f}x" if e and m else "-"
        lines.append(f"{label:<28}{fmt(e):>16}{fmt(m):>14}{ratio:>14}")
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
