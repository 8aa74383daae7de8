#!/usr/bin/env python
"""Parameter sweep: one parameter of a player spec over several values, each against the same
fixed baseline on the same deals (duplicate format). A point is the Elo difference over the
baseline with its 95% interval (two players) or the win rate against players-1 copies of the
baseline (three or four players), with the measured seconds per move.

    python experiments/sweep.py --player "mcts(iterations=300)" --param c --values 0.5,1,2 \\
        --baseline greedy --deals 50 -j 2
    python experiments/sweep.py --player "mcts(iterations=300)" --param cutoff --values 0,10,20
    python experiments/sweep.py --player mcts --param iterations --values 100,200,400,800 --logx
    python experiments/sweep.py --config sweep.toml     # player = "...", param = "c", values = [0.5, 1, 2]

Values are Python literals (1, 0.5, True, 'random', [..]); with commas inside a value (a weights
list) use a TOML file. Writes OUT/games.jsonl (rerun the same command to resume),
OUT/summary.json, OUT/report.txt and OUT/curve.png.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from splendor_ai.tournament import cli  # noqa: E402
from splendor_ai.tournament.curves import run_curve  # noqa: E402
from splendor_ai.tournament.errors import ExperimentError  # noqa: E402
from splendor_ai.tournament.specs import parse_value, split_list, with_param  # noqa: E402

NAME = "sweep"


def main(argv=None) -> int:
    p = cli.parser(NAME, __doc__)
    s = p.add_argument_group("sweep")
    s.add_argument("--player", metavar="SPEC", help="the player spec whose parameter is swept, e.g. 'mcts(iterations=300)'")
    s.add_argument("--param", metavar="NAME", help="the parameter, e.g. c, iterations, cutoff, dets, eps")
    a = s.add_argument("--values", metavar="V1,V2,...", help="the values, comma-separated, e.g. 0.5,1,2")
    a.joins_lists = True  # a TOML list is accepted too
    s.add_argument("--baseline", metavar="SPEC", default="greedy", help="the fixed opponent (default greedy)")
    s.add_argument("--logx", action="store_true", help="log scale (base 2) for the values in the plot")
    args = cli.parse(p, argv)
    for opt in ("player", "param", "values"):
        if not getattr(args, opt):
            raise ExperimentError(f"--{opt} is required")
    values = [parse_value(v) for v in split_list(args.values)]
    if args.param in ("iterations", "seconds") and (args.iterations or args.seconds):
        raise ExperimentError("--iterations/--seconds set a limit for every player, which would override "
                              f"the swept {args.param}: put the baseline's budget in its spec instead")
    points = [(v, with_param(args.player, args.param, v)) for v in values]
    return run_curve(NAME, args, argv, points, args.baseline, args.param,
                     f"Sweep of {args.param}: {args.player} against {args.baseline}", args.logx)


if __name__ == "__main__":
    sys.exit(cli.main(main, NAME))
