#!/usr/bin/env python
"""A against B on the same deals under every seat rotation (duplicate format). At two players:
W-D-L, score, Elo difference with its 95% interval and LOS, and with --sprt a sequential
probability ratio test that stops the run as soon as "A is elo1 stronger" (H1) or "A is at most
elo0 stronger" (H0) is accepted (GSPRT, normal approximation, as fishtest / cutechess); --deals
is then the most deals to play. At three or four players, A plays against players-1 copies of B:
win rates (Wilson 95%), average rank and per-seat win rates.

    python experiments/head_to_head.py "mcts(iterations=300)" greedy --deals 50 -j 2
    python experiments/head_to_head.py "mcts(iterations=300,c=1)" "mcts(iterations=300)" \\
        --sprt --elo0 0 --elo1 20 --deals 2000 -j 2
    python experiments/head_to_head.py "mcts(iterations=100)" greedy --players 4
    python experiments/head_to_head.py "mcts(iterations=300)" greedy --module strongholds
    python experiments/head_to_head.py "mcts(iterations=300)" greedy --modules base cities orient posts strongholds

With --modules the match is played once per module on the same deals; the report gives A's
results per module (W-D-L, win% with its Wilson interval, Elo with its interval), then each
module's tables, then the combined ones (the SPRT, when asked for, counts every module's games).

Writes OUT/games.jsonl (rerun the same command to resume), OUT/summary.json, OUT/report.txt,
OUT/progress.png (running Elo or win rate with its 95% interval) and with --sprt OUT/sprt.png.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from splendor_ai.tournament import cli, outcome, report, versus  # noqa: E402
from splendor_ai.tournament.errors import ExperimentError  # noqa: E402
from splendor_ai.tournament.stats import check_sprt, elo, sprt, wilson  # noqa: E402
from splendor_ai.tournament.summary import match_summary, module_rows, sprt_sequence, wdl  # noqa: E402

NAME = "head_to_head"


def main(argv=None) -> int:
    p = cli.parser(NAME, __doc__)
    p.add_argument("specs", nargs="*", metavar="SPEC", help="the two player specs, A then B")
    s = p.add_argument_group("SPRT (two players)")
    s.add_argument("--sprt", action="store_true", help="stop when the SPRT accepts H0 or H1")
    s.add_argument("--elo0", type=cli.number, default=0.0, help="H0: A is elo0 stronger than B (default 0)")
    s.add_argument("--elo1", type=cli.number, default=10.0, help="H1: A is elo1 stronger than B (default 10)")
    s.add_argument("--alpha", type=cli.number, default=0.05, help="false positive rate (default 0.05)")
    s.add_argument("--beta", type=cli.number, default=0.05, help="false negative rate (default 0.05)")
    args = cli.parse(p, argv)
    if len(args.specs) != 2:
        raise ExperimentError(f"expected two player specs (A and B), got {len(args.specs)}")
    a, b = args.specs
    if a == b:
        raise ExperimentError(f"A and B are the same spec {a!r}")
    sprt_args = None
    stop = None
    if args.sprt:
        if args.players != 2:
            raise ExperimentError("--sprt needs --players 2")
        check_sprt(args.elo0, args.elo1, args.alpha, args.beta)
        sprt_args = dict(elo0=args.elo0, elo1=args.elo1, alpha=args.alpha, beta=args.beta)

        seen = {"n": 0, "wdl": [0, 0, 0], "decided": False}

        def stop(records):
            """True once the SPRT has crossed a bound over the games in recorded order (also
            when resuming a run that had already decided)."""
            for rec in records[seen["n"]:]:
                o = outcome(rec)
                if o is not None and not seen["decided"]:
                    sc = o.scores[o.order.index(0)]
                    seen["wdl"][0 if sc == 1 else 2 if sc == 0 else 1] += 1
                    w, l, d = seen["wdl"][0], seen["wdl"][2], seen["wdl"][1]
                    seen["decided"] = sprt(w, d, l, **sprt_args).decision is not None
            seen["n"] = len(records)
            return seen["decided"]
    lineup = versus(a, b, args.players)
    exp = cli.play(NAME, args, [lineup], stop=stop)
    summary = cli.base_summary(exp, argv)
    # running statistics in the order the games were recorded (what the SPRT saw)
    outs = [o for o in map(outcome, exp.result.recorded) if o is not None]
    if sprt_args:
        summary["sprt"] = sprt_sequence(outs, sprt_args)
    title = f"{a} vs {b}" if args.players == 2 else f"{a} vs {args.players - 1} x {b}"
    text = [cli.header(exp, f"Head to head: {title}", argv), ""]
    if exp.per_module and exp.outcomes:
        rows = module_rows(exp.outcomes, lineup, exp.modules)
        summary["per_module"] = rows
        text += [f"A = {a}, B = {b}{'' if args.players == 2 else f' ({args.players - 1} copies)'}: results of A "
                 f"per module", report.modules_text(rows, args.players), ""]

    def body(module, outs_, records):
        m = match_summary(outs_, lineup)
        lines = []
        if "pair" in m:
            lines.append(f"A = {a}, B = {b}: " + report.pair_line(m["pair"]))
        if m["members"]:
            lines += ([""] if lines else []) + [report.members_table(m["members"])]
        return {"match": m}, lines

    part, lines = cli.module_sections(exp.modules, exp.outcomes, exp.result.records, body, exp.per_module)
    summary.update(part)
    if sprt_args:
        lines.append(report.sprt_text(summary["sprt"]) + (" (over every module's games)" if exp.per_module else ""))
    text += lines
    if outs:
        xs = list(range(1, len(outs) + 1))
        if args.players == 2:
            ys, lo, hi, llr = [], [], [], []
            for k in xs:
                est = elo(*wdl(outs[:k]))
                ys.append(est.elo)
                lo.append(est.lower)
                hi.append(est.upper)
                if sprt_args:
                    llr.append(sprt(*wdl(outs[:k]), **sprt_args).llr)
            report.trajectory(exp.out / "progress.png", [("Elo of A over B", xs, ys, lo, hi)],
                              "Elo difference (95% interval)", title, hlines=[(0, "")], clip=800)
            if sprt_args:
                t = sprt(0, 0, 0, **sprt_args)
                report.trajectory(exp.out / "sprt.png", [("LLR", xs, llr, None, None)], "log-likelihood ratio",
                                  f"SPRT elo0={args.elo0:g} elo1={args.elo1:g}: {title}",
                                  hlines=[(t.lower, "accept H0"), (t.upper, "accept H1")])
        else:
            ys, lo, hi = [], [], []
            wins = 0.0
            for k, o in enumerate(outs, 1):
                wins += o.scores[o.order.index(0)]
                ys.append(wins / k)
                w = wilson(wins, k)
                lo.append(w[0])
                hi.append(w[1])
            report.trajectory(exp.out / "progress.png", [("win rate of A", xs, ys, lo, hi)],
                              "win rate of A (Wilson 95%)", title, hlines=[(1 / args.players, "fair share")])
        text.append("\nplots: progress.png" + (", sprt.png" if sprt_args else ""))
    cli.write(exp, summary, "\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main, NAME))
