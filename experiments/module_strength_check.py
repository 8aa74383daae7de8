"""A quick strength check of the players in each Cities of Splendor module: one
player spec against another at 2 players, seats alternating, one deal per pair of games.

    python experiments/module_strength_check.py --games 10 --a "mcts(iterations=1000)" --b greedy
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from splendor_ai.match import play_game  # noqa: E402
from splendor_ai.players import make_player  # noqa: E402
from splendor_ai.state import Config  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", default="mcts(iterations=1000)")
    ap.add_argument("--b", default="greedy")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--modules", default="base,cities,orient,posts,strongholds")
    ap.add_argument("--seed", type=int, default=1000)
    args = ap.parse_args(argv)
    for module in args.modules.split(","):
        cfg = Config(players=2, modules=() if module == "base" else (module,))
        score, lengths, t0, bad = 0.0, [], time.time(), 0
        for g in range(args.games):
            a_seat = g % 2
            specs = [args.b, args.b]
            specs[a_seat] = args.a
            out = play_game([make_player(s, seed=g) for s in specs], seed=args.seed + g // 2, config=cfg)
            if out.result is None:
                bad += 1
                continue
            w = out.result.winners
            score += (1.0 / len(w)) if a_seat in w else 0.0
            lengths.append(len(out.moves))
        n = args.games - bad
        print(f"{module:12s} {args.a} vs {args.b}: {score:.1f}/{n} ({100 * score / max(n, 1):.0f}%), "
              f"mean length {sum(lengths) / max(len(lengths), 1):.0f} turns, {bad} unfinished, "
              f"{time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
