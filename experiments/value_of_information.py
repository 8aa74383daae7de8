#!/usr/bin/env python
"""Value of information: what hidden information costs a search. The determinized player (e.g.
ISMCTS, `mcts(...)`, which sees only its seat's view) and the same search with perfect
information (`mcts(mode='perfect',...)`, handed the true state: decks and hidden reserves) each
play the same opponent on the same deals, and (unless --no-head-to-head) each other. At two
players the price is the Elo difference between their results against the opponent (and the
head-to-head Elo); at three or four players, the difference of their win rates against
players-1 copies of the opponent.

    python experiments/value_of_information.py --player "mcts(iterations=300)" --opponent greedy --deals 50 -j 2
    python experiments/value_of_information.py --player "mcts(iterations=300,mode='pimc')" \\
        --perfect "mcts(iterations=300,mode='perfect')" --opponent none
    python experiments/value_of_information.py --player "mcts(iterations=300)" --modules base orient

With --modules every match is played once per module on the same deals: each module's tables,
then the combined ones.

Writes OUT/games.jsonl (rerun the same command to resume), OUT/summary.json, OUT/report.txt and
OUT/value_of_information.png.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from splendor_ai.players import parse_spec  # noqa: E402
from splendor_ai.tournament import cli, report, versus  # noqa: E402
from splendor_ai.tournament.errors import ExperimentError  # noqa: E402
from splendor_ai.tournament.specs import with_param  # noqa: E402
from splendor_ai.tournament.summary import match_summary  # noqa: E402

NAME = "value_of_information"


def main(argv=None) -> int:
    p = cli.parser(NAME, __doc__)
    s = p.add_argument_group("players")
    s.add_argument("--player", metavar="SPEC", default="mcts(iterations=300)",
                   help="the determinized player (default mcts(iterations=300))")
    s.add_argument("--perfect", metavar="SPEC",
                   help="the perfect-information player (default: --player with mode='perfect')")
    s.add_argument("--opponent", metavar="SPEC", default="greedy",
                   help="the common opponent (default greedy; 'none' for head to head only)")
    s.add_argument("--no-head-to-head", action="store_true", help="do not play the two against each other")
    args = cli.parse(p, argv)
    det = args.player
    perfect = args.perfect
    if perfect is None:
        try:
            name, kw = parse_spec(det)
        except Exception as e:
            raise ExperimentError(str(e)) from None
        if name != "mcts":
            raise ExperimentError(f"--player {det!r} is not an mcts spec: give the perfect-information player with --perfect")
        perfect = with_param(det, "mode", "perfect")
    opponent = None if args.opponent in (None, "", "none") else args.opponent
    n = args.players
    lineups = []
    if opponent:
        lineups += [versus(det, opponent, n), versus(perfect, opponent, n)]
    if not args.no_head_to_head:
        lineups.append(versus(det, perfect, n))
    if not lineups:
        raise ExperimentError("nothing to play: --opponent none and --no-head-to-head")
    exp = cli.play(NAME, args, lineups)
    summary = cli.base_summary(exp, argv)
    summary.update({"determinized": det, "perfect": perfect, "opponent": opponent})
    title = f"Value of information: {det} vs {perfect}"
    text = [cli.header(exp, title, argv), ""]
    bars = {}

    def body(module, outs, records):
        matches = [match_summary(outs, lu) for lu in lineups]
        sm = {"matches": matches}
        text = []
        labels, vals, los, his = [], [], [], []
        if opponent:
            md, mp = matches[0], matches[1]
            if n == 2:
                rows = []
                for who, m in (("determinized", md), ("perfect information", mp)):
                    pr = m.get("pair")
                    if pr:
                        rows.append([who, m["lineup"][0], pr["games"], f"{pr['score']:.3f}", report.num(pr["elo"]),
                                     report.interval(*pr["elo_95"])])
                        labels.append(f"{who} vs {opponent}")
                        vals.append(pr["elo"])
                        los.append(pr["elo_95"][0])
                        his.append(pr["elo_95"][1])
                text += [f"Against {opponent} (Elo over the opponent):",
                         report.table(["", "player", "games", "score", "Elo", "Elo 95%"], rows, right={2, 3, 4, 5})]
                if md.get("pair") and mp.get("pair"):
                    ed, ep = md["pair"]["elo"], mp["pair"]["elo"]
                    if isinstance(ed, (int, float)) and isinstance(ep, (int, float)):
                        sm["price_elo"] = round(ep - ed, 1)
                        text.append(f"price of hidden information against {opponent}: {ep - ed:+.0f} Elo "
                                    "(perfect minus determinized)")
                    else:
                        sm["price_elo"] = None
                        text.append(f"price of hidden information against {opponent}: not measured (a 100% or 0% "
                                    "score has no finite Elo: play more deals or a stronger opponent)")
            else:
                rows = []
                for who, m in (("determinized", md), ("perfect information", mp)):
                    if m["members"]:
                        mem = m["members"][0]
                        rows.append([who, mem["spec"], mem["games"], report.pct(mem["win_rate"]),
                                     report.ci(mem["win_rate_95"]),
                                     f"{mem['avg_rank']:.2f}"])
                        labels.append(f"{who} vs {n - 1} x {opponent}")
                        vals.append(mem["win_rate"])
                        los.append(mem["win_rate_95"][0])
                        his.append(mem["win_rate_95"][1])
                text += [f"Against {n - 1} x {opponent} (win rate; a fair share is {100 / n:.1f}%):",
                         report.table(["", "player", "games", "win%", "95% CI", "avg rank"], rows, right={2, 3, 4, 5})]
                if md["members"] and mp["members"]:
                    diff = mp["members"][0]["win_rate"] - md["members"][0]["win_rate"]
                    sm["price_win_rate"] = round(diff, 4)
                    text.append(f"price of hidden information: {100 * diff:+.1f} points of win rate (perfect minus determinized)")
            text.append("")
        if not args.no_head_to_head:
            m = matches[-1]
            text.append("Head to head, determinized against perfect information:")
            text.append(report.matches_text([m]))
            if n == 2 and m.get("pair"):
                pr = m["pair"]
                labels.append("determinized vs perfect")
                vals.append(pr["elo"])
                los.append(pr["elo_95"][0])
                his.append(pr["elo_95"][1])
        if module == "all":
            bars.update(labels=labels, vals=vals, los=los, his=his)
        return sm, text

    part, lines = cli.module_sections(exp.modules, exp.outcomes, exp.result.records, body, exp.per_module)
    summary.update(part)
    text += lines
    labels, vals, los, his = bars["labels"], bars["vals"], bars["los"], bars["his"]
    if labels and (n == 2 or opponent):
        report.bars(exp.out / "value_of_information.png", labels, vals, los, his,
                    "Elo difference (95% interval; beyond +-800 drawn at +-800)" if n == 2 else
                    "win rate of the first player (Wilson 95%)", title if len(title) < 70 else "Value of information",
                    ref=0 if n == 2 else 1 / n, clip=800 if n == 2 else 1)
        text.append("\nplot: value_of_information.png")
    cli.write(exp, summary, "\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(cli.main(main, NAME))
