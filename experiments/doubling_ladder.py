#!/usr/bin/env python
"""Does each doubling of the budget gain? A ladder of head-to-head matches between neighbouring
budgets (B[i] against B[i-1]) of one player, two players, same deals under both seat orders
(duplicate format). Per doubling: W-D-L, Elo with its 95% interval and LOS (likelihood that the
larger budget is stronger); and the Elo of each budget over the smallest, summed along the ladder
(its interval adds the rungs' variances: a normal approximation).

    python experiments/doubling_ladder.py --player mcts --budgets 2500,5000,10000,20000 \\
        --deals 80,40,30 -j 1 --out experiments/results/doubling_ladder_2p

Each rung is `experiments/head_to_head.py A B --deals D` written to OUT/<A budget>_vs_<B budget>/
(its own report.txt, games.jsonl, progress.png); rerun the same command to resume, or with larger
--deals to extend a rung (only the new deals are played). --report-only rebuilds the summary from
the rungs' folders. Writes OUT/report.txt, OUT/summary.json and OUT/ladder.png.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import math
import shlex
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from splendor_ai.tournament import report  # noqa: E402
from splendor_ai.tournament.specs import split_list, with_param  # noqa: E402
from splendor_ai.tournament.stats import Z95  # noqa: E402


def head_to_head():
    spec = importlib.util.spec_from_file_location("head_to_head", HERE / "head_to_head.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--player", default="mcts", metavar="SPEC", help="the player spec (default mcts)")
    ap.add_argument("--param", default="iterations", help="the budget parameter (default iterations)")
    ap.add_argument("--budgets", required=True, metavar="B1,B2,...", help="increasing budgets, e.g. 2500,5000,10000")
    ap.add_argument("--deals", required=True, metavar="D[,D2,...]",
                    help="deals per rung (one number for every rung, or one per rung)")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--report-only", action="store_true", help="summarize the rungs already played")
    args = ap.parse_args(argv)
    budgets = [int(b) for b in split_list(args.budgets)]
    if len(budgets) < 2 or any(b <= a for a, b in zip(budgets, budgets[1:])):
        ap.error("--budgets: at least two, increasing")
    deals = [int(d) for d in split_list(args.deals)]
    if len(deals) == 1:
        deals *= len(budgets) - 1
    if len(deals) != len(budgets) - 1:
        ap.error(f"--deals: one number or {len(budgets) - 1} (one per rung)")
    args.out.mkdir(parents=True, exist_ok=True)
    h2h = None if args.report_only else head_to_head()
    rungs = []
    for lo, hi, d in zip(budgets, budgets[1:], deals):
        a = with_param(args.player, args.param, hi)
        b = with_param(args.player, args.param, lo)
        sub = args.out / f"{hi}_vs_{lo}"
        if h2h is not None:
            h2h.main([a, b, "--deals", str(d), "--seed", str(args.seed), "-j", str(args.jobs),
                      "--out", str(sub), "--no-progress"])
        if not (sub / "summary.json").exists():
            ap.error(f"{sub}/summary.json is missing: play the rung first (without --report-only)")
        summary = json.loads((sub / "summary.json").read_text())
        pair = summary["match"]["pair"]
        rungs.append({"from": lo, "to": hi, "a": a, "b": b, "folder": sub.name, "command": summary.get("command"),
                      **{k: pair[k] for k in ("games", "wins", "draws", "losses", "score", "elo", "elo_95", "los")}})
    # Elo over the smallest budget, summed along the ladder; the variance of a rung's Elo from
    # its interval's half-width (normal approximation)
    total, var, cumulative = 0.0, 0.0, [{"budget": budgets[0], "elo": 0.0, "elo_95": [0.0, 0.0]}]
    for r in rungs:
        lo95, hi95 = (float(x) for x in r["elo_95"])
        e = float(r["elo"])
        if not all(map(math.isfinite, (e, lo95, hi95))):
            total = math.nan
        else:
            total += e
            var += ((hi95 - lo95) / (2 * Z95)) ** 2
        half = Z95 * math.sqrt(var)
        cumulative.append({"budget": r["to"], "elo": total, "elo_95": [total - half, total + half]})
    command = "python " + shlex.join(["experiments/doubling_ladder.py", *argv])
    title = f"Doubling ladder: {args.player}, {args.param} {', '.join(map(str, budgets))}"
    rows = [[f"{r['to']} vs {r['from']}", r["games"], f"{r['wins']}-{r['draws']}-{r['losses']}", f"{r['score']:.3f}",
             f"{report.num(r['elo'])} {report.interval(*r['elo_95'])}", f"{100 * r['los']:.1f}%",
             "yes" if float(r["elo_95"][0]) > 0 else "no"] for r in rungs]
    text = [title, "=" * len(title), f"command: {command}",
            "2 players; each rung: the larger budget (A) against the smaller (B) on the same deals under both "
            "seat orders; Elo intervals are 95%; LOS = likelihood of superiority of A.", "",
            report.table(["doubling", "games", "W-D-L", "score", "Elo of A (95%)", "LOS", "gain shown"], rows,
                         right={1, 3, 5}), "",
            "Elo over the smallest budget (sum of the rungs; interval: normal approximation):", "",
            report.table([args.param, "Elo (95%)"],
                         [[c["budget"], f"{report.num(c['elo'])} {report.interval(*c['elo_95'])}"] for c in cumulative],
                         right={0}), "",
            "rungs: " + ", ".join(r["folder"] + "/" for r in rungs) + "; plot: ladder.png"]
    report.curve(args.out / "ladder.png",
                 [("Elo of each doubling over the budget below", [r["to"] for r in rungs],
                   [float(r["elo"]) for r in rungs], [float(r["elo_95"][0]) for r in rungs],
                   [float(r["elo_95"][1]) for r in rungs]),
                  ("Elo over the smallest budget (summed)", [c["budget"] for c in cumulative[1:]],
                   [c["elo"] for c in cumulative[1:]], [c["elo_95"][0] for c in cumulative[1:]],
                   [c["elo_95"][1] for c in cumulative[1:]])],
                 f"{args.param} per move", "Elo (95% interval)", title, logx=True, ref=0.0)
    (args.out / "summary.json").write_text(json.dumps({"command": command, "player": args.player, "param": args.param,
                                                       "budgets": budgets, "rungs": rungs,
                                                       "cumulative": cumulative}, indent=1) + "\n")
    (args.out / "report.txt").write_text("\n".join(text).rstrip() + "\n")
    print("\n".join(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
