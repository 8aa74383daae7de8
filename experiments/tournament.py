#!/usr/bin/env python
"""Round robin: every set of --players distinct specs among the given ones plays every deal under
every seat rotation (duplicate format). Reports each player's win rate (Wilson 95%), average rank,
per-seat win rates and Plackett-Luce rating (openskill), each match (at two players W-D-L, Elo with
its 95% interval, LOS) and, at two players, the score table of every pair.

    python experiments/tournament.py random greedy "mcts(iterations=300)" --deals 20 -j 2
    python experiments/tournament.py random greedy "mcts(iterations=100)" --players 3 --out results/rr3
    python experiments/tournament.py --config rr.toml          # specs = [...], deals = 20, ...
    python experiments/tournament.py ... --ray local           # the games as Ray tasks
    python experiments/tournament.py random greedy --module orient       # a Cities of Splendor module
    python experiments/tournament.py random greedy --modules base cities orient posts strongholds

With --modules the round robin is played once per module on the same deals; the report gives each
player's win rate per module, then each module's tables, then the combined tables.

Writes OUT/games.jsonl (one record per game, as it ends; rerun the same command to resume an
interrupted run), OUT/summary.json, OUT/report.txt, OUT/ratings.png, OUT/win_rates.png.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from splendor_ai.tournament import cli, report, round_robin  # noqa: E402
from splendor_ai.tournament.errors import ExperimentError  # noqa: E402
from splendor_ai.tournament.summary import match_summary, module_matrix, plackett_luce, players_table  # noqa: E402

NAME = "tournament"


def main(argv=None) -> int:
    p = cli.parser(NAME, __doc__)
    p.add_argument("specs", nargs="*", metavar="SPEC",
                   help="player specs, e.g. random greedy 'mcts(iterations=300,c=1.2)' (at least --players of them)")
    args = cli.parse(p, argv)
    if not args.specs:
        raise ExperimentError("no player specs given (e.g. random greedy 'mcts(iterations=300)')")
    lineups = round_robin(args.specs, args.players)
    exp = cli.play(NAME, args, lineups)
    outs = exp.outcomes

    def body(module, outs, records):
        players = players_table(outs)
        ratings = plackett_luce(outs) if outs else {}
        matches = [match_summary(outs, lu) for lu in lineups]
        sm = {"players": players, "ratings": ratings, "matches": matches}
        text = []
        if outs:
            text += ["Standings (Plackett-Luce rating by openskill: mu, sigma, mu +- 1.96 sigma; win% by seat: seat 0 first)",
                     report.players_text(players, ratings), ""]
        if args.players == 2 and outs:
            specs = list(ratings) + [s for s in args.specs if s not in ratings]
            cells = {}
            for m in matches:
                if "pair" in m:
                    a, b = m["lineup"]
                    pr = m["pair"]
                    cells[a, b] = f"{pr['score']:.2f}"
                    cells[b, a] = f"{1 - pr['score']:.2f}"
            rows = [[i, s] + [cells.get((s, t), "-" if s != t else "") for t in specs] for i, s in enumerate(specs, 1)]
            text += ["Score of the row player against the column player",
                     report.table(["#", "player"] + [str(i) for i in range(1, len(specs) + 1)], rows), ""]
            sm["score_table"] = {s: {t: cells[s, t] for t in specs if (s, t) in cells} for s in specs}
        text += ["Matches", report.matches_text(matches)]
        return sm, text

    summary = cli.base_summary(exp, argv)
    title = f"Round robin: {len(args.specs)} players, {args.players} at a table"
    text = [cli.header(exp, title, argv), ""]
    if exp.per_module and outs:
        matrix = module_matrix(outs, exp.modules)
        summary["module_matrix"] = matrix
        text += ["Win% [Wilson 95%] (games) per module", report.matrix_text(matrix, exp.modules), ""]
    part, lines = cli.module_sections(exp.modules, outs, exp.result.records, body, exp.per_module)
    summary.update(part)
    text += lines
    players, ratings = part["players"], part["ratings"]
    if outs:
        names = list(ratings)
        report.bars(exp.out / "ratings.png", names, [ratings[s]["mu"] for s in names],
                    [ratings[s]["mu_95"][0] for s in names], [ratings[s]["mu_95"][1] for s in names],
                    "Plackett-Luce rating mu (openskill), 95% interval", title)
        report.bars(exp.out / "win_rates.png", names, [players[s]["win_rate"] for s in names],
                    [players[s]["win_rate_95"][0] for s in names], [players[s]["win_rate_95"][1] for s in names],
                    "win rate (Wilson 95% interval)", title, ref=1 / args.players)
        text.append("\nplots: ratings.png, win_rates.png")
    cli.write(exp, summary, "\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main, NAME))
