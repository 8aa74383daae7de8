#!/usr/bin/env python
"""Does a search's choice settle as its budget grows? On mid-game positions, the move a player
chooses at each budget under two seeds: how often the two seeds agree, and how often the second
seed agrees with the first seed at the largest budget (the reference).

A search that converges agrees with itself more and more as the budget grows; one whose root
locks onto whichever move looked best early keeps disagreeing however long it runs (its extra
iterations then cannot buy strength). Cheap next to games: no game is played, and a player whose
agreement does not grow is worth a strength match before anything else.

    python experiments/move_agreement.py --player mcts --budgets 2500,10000,40000,160000 --positions 30
    python experiments/move_agreement.py --player "mcts(c=1.6)" --budgets 10000,40000,160000 --json out.json

The positions are those of experiments/bench_search.py (greedy self-play, the middle half of each
game, seat to move's view; --seed). Per budget it prints both agreement rates with Wilson 95%
intervals; --json writes every search's move and its top three root moves (visits, value).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from bench_search import mid_game_views  # noqa: E402
from splendor_ai.errors import ConfigError  # noqa: E402
from splendor_ai.players import Limit, make_player  # noqa: E402
from splendor_ai.tournament.stats import wilson  # noqa: E402
from tqdm import tqdm  # noqa: E402

SEEDS = (1, 2)


def search_all(spec: str, budgets: list[int], views, progress: bool):
    """rows[i][(budget, seed)] = (move, [(move, visits, value) of the top three root moves])."""
    rows = []
    for view in tqdm(views, desc="positions", disable=not progress):
        row = {}
        for b in budgets:
            for seed in SEEDS:
                d = make_player(spec, seed=seed).choose(view, Limit(iterations=b))
                row[(b, seed)] = (str(d.move), [(str(m.move), m.visits, round(m.value, 4)) for m in d.info.moves[:3]])
        rows.append(row)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--player", default="mcts", help="a search player's spec (default mcts)")
    ap.add_argument("--budgets", required=True, help="increasing iteration budgets, e.g. 2500,10000,40000")
    ap.add_argument("--positions", type=int, default=30)
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    ap.add_argument("--seed", type=int, default=7, help="seed of the self-play games the positions come from")
    ap.add_argument("--json", type=Path, help="write every search's result here")
    ap.add_argument("--no-progress", action="store_true")
    a = ap.parse_args(argv)
    try:
        budgets = [int(b) for b in a.budgets.split(",")]
    except ValueError:
        ap.error(f"--budgets must be integers separated by commas, got {a.budgets!r}")
    if any(b <= 0 for b in budgets) or budgets != sorted(set(budgets)):
        ap.error("--budgets must be positive and increasing")
    if a.positions < 1:
        ap.error("--positions must be at least 1")
    try:
        make_player(a.player)
    except ConfigError as e:
        ap.error(str(e))
    views = mid_game_views(a.players, a.seed, a.positions)
    rows = search_all(a.player, budgets, views, not a.no_progress)
    ref = (budgets[-1], SEEDS[0])
    n = len(rows)
    print(f"{a.player}: {n} positions, {a.players} players, seeds {SEEDS[0]} and {SEEDS[1]}; "
          f"reference: seed {SEEDS[0]} at {budgets[-1]} iterations")
    print(f"{'iterations':>10}  {'seeds agree (95%)':>24}  {'seed 2 = reference (95%)':>26}")
    for b in budgets:
        same = sum(r[(b, SEEDS[0])][0] == r[(b, SEEDS[1])][0] for r in rows)
        to_ref = sum(r[(b, SEEDS[1])][0] == r[ref][0] for r in rows)
        lo, hi = wilson(same, n)
        rlo, rhi = wilson(to_ref, n)
        print(f"{b:>10}  {same / n:>8.2f} [{lo:.2f}, {hi:.2f}]       {to_ref / n:>10.2f} [{rlo:.2f}, {rhi:.2f}]")
    if a.json:
        a.json.write_text(json.dumps({"player": a.player, "budgets": budgets, "seeds": SEEDS, "positions": [
            {f"{b}/{s}": r[(b, s)] for (b, s) in r} for r in rows]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
