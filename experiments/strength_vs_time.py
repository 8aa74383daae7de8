#!/usr/bin/env python
"""Strength against thinking budget: one player at several iteration or time budgets per move,
each against the same fixed opponent on the same deals (duplicate format). The curve is the Elo
difference over the opponent with its 95% interval (two players) or the win rate against
players-1 copies of it, against the budget on a log scale, with the measured seconds per move.

    python experiments/strength_vs_time.py --player mcts --budgets 100,200,400,800,1600 \\
        --opponent "mcts(iterations=400)" --deals 50 -j 2
    python experiments/strength_vs_time.py --player "mcts(c=1.2)" --kind seconds --budgets 0.05,0.1,0.2

The budget goes into the player's spec (iterations=N, or seconds=S without iterations), so the
opponent keeps its own: give it in the opponent's spec. Writes OUT/games.jsonl (rerun the same
command to resume), OUT/summary.json, OUT/report.txt and OUT/curve.png.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from splendor_ai.tournament import cli  # noqa: E402
from splendor_ai.tournament.curves import run_curve  # noqa: E402
from splendor_ai.tournament.errors import ExperimentError  # noqa: E402
from splendor_ai.tournament.specs import parse_value, split_list, with_param  # noqa: E402

NAME = "strength_vs_time"


def main(argv=None) -> int:
    p = cli.parser(NAME, __doc__, limits=False)
    s = p.add_argument_group("budgets")
    s.add_argument("--player", metavar="SPEC", default="mcts", help="the player spec (default mcts)")
    s.add_argument("--kind", choices=("iterations", "seconds"), default="iterations",
                   help="what the budgets are: iterations or seconds per move (default iterations)")
    a = s.add_argument("--budgets", metavar="B1,B2,...", help="the budgets per move, e.g. 100,200,400,800")
    a.joins_lists = True
    s.add_argument("--opponent", metavar="SPEC", default="greedy", help="the fixed opponent (default greedy)")
    args = cli.parse(p, argv)
    if not args.budgets:
        raise ExperimentError("--budgets is required (e.g. --budgets 100,200,400,800)")
    budgets = [parse_value(v) for v in split_list(args.budgets)]
    for b in budgets:
        if isinstance(b, bool) or not isinstance(b, (int, float)) or b <= 0 or (args.kind == "iterations" and not isinstance(b, int)):
            raise ExperimentError(f"budget {b!r}: expected a positive {'integer' if args.kind == 'iterations' else 'number'}")
    other = "seconds" if args.kind == "iterations" else "iterations"
    points = [(b, with_param(args.player, args.kind, b, drop=(other,))) for b in budgets]
    unit = "iterations per move" if args.kind == "iterations" else "seconds per move"
    return run_curve(NAME, args, argv, points, args.opponent, unit,
                     f"Strength against {args.kind}: {args.player} against {args.opponent}", True)


if __name__ == "__main__":
    sys.exit(cli.main(main, NAME))
