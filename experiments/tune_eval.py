#!/usr/bin/env python
"""Tune the static evaluation's weights by self-play (SPSA).

Each step perturbs every tunable weight by +-c_k at random (one Rademacher vector), plays the
perturbed player theta+ against theta- on the same deals with both seat orders, and moves theta
along the score difference (simultaneous-perturbation stochastic approximation, Spall 1998).
Weight 0 (prestige points) is the unit and stays 1. The player is any spec taking `weights=`
(greedy by default: fast, and the evaluation is all it has; `mcts(iterations=200,cutoff=4)` tunes
the cut-off evaluation of the search itself, slower). A final check plays the tuned weights
against the starting ones and reports the Elo difference with a 95% interval.

    python experiments/tune_eval.py --steps 200 --deals 4 -j 2
    python experiments/tune_eval.py --player "mcts(iterations=200,cutoff=4)" --steps 60 --out results/tune_mcts

Outputs in --out (default experiments/results/tune_eval): history.jsonl (theta per step),
summary.json, report.txt and weights.png.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from splendor_ai.errors import ConfigError  # noqa: E402
from splendor_ai.match import play_game  # noqa: E402
from splendor_ai.players import make_player, parse_spec  # noqa: E402
from splendor_ai.players.evaluation import DEFAULT_WEIGHTS, NAMES  # noqa: E402
from splendor_ai.tournament.stats import elo  # noqa: E402

TUNED = range(1, 8)  # the weights SPSA moves (0 is the unit; 8-9 are unused)


def spec_with(template: str, weights) -> str:
    name, kwargs = parse_spec(template)
    kwargs["weights"] = tuple(round(w, 4) for w in weights)
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"


def duel(args) -> list[float]:
    """Scores of spec a against spec b on one deal in both seat orders (1 win, 0.5 draw or
    shared win, 0 loss)."""
    a, b, deal, seed = args
    scores = []
    for a_seat in (0, 1):
        specs = [b, b]
        specs[a_seat] = a
        out = play_game([make_player(s, seed=seed + i) for i, s in enumerate(specs)], seed=deal)
        winners = out.result.winners if out.result else ()
        scores.append((1 / len(winners) if a_seat in winners else 0.0) if winners else 0.5)
    return scores


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--player", default="greedy", help="spec of the player whose weights= are tuned")
    ap.add_argument("--start", default=None, help="starting weights, 10 comma-separated numbers (default: the current defaults)")
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--deals", type=int, default=4, help="deals per step (each played in both seat orders by theta+ and theta-)")
    ap.add_argument("--a", type=float, default=0.4, help="SPSA step size")
    ap.add_argument("--c", type=float, default=0.15, help="SPSA perturbation size")
    ap.add_argument("--check-deals", type=int, default=100, help="deals of the final tuned-vs-start check")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-j", type=int, default=1, help="worker processes")
    ap.add_argument("--out", default=str(ROOT / "experiments" / "results" / "tune_eval"))
    args = ap.parse_args(argv)
    try:
        start = [float(x) for x in args.start.split(",")] if args.start else list(DEFAULT_WEIGHTS)
        if len(start) != 10:
            raise ValueError("--start needs 10 weights")
        make_player(spec_with(args.player, start))
    except (ValueError, ConfigError) as e:
        print(f"tune_eval: {e}", file=sys.stderr)
        return 2
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    theta = list(start)
    history = []
    t0 = time.time()
    deal_seed = args.seed * 1_000_003
    with ProcessPoolExecutor(args.j) as pool, open(out / "history.jsonl", "w") as hist:
        for k in range(args.steps):
            ak = args.a / (k + 1 + args.steps / 10) ** 0.602
            ck = args.c / (k + 1) ** 0.101
            delta = [rng.choice((-1, 1)) if i in TUNED else 0 for i in range(10)]
            plus = [max(0.0, t + ck * d) for t, d in zip(theta, delta)]
            minus = [max(0.0, t - ck * d) for t, d in zip(theta, delta)]
            a, b = spec_with(args.player, plus), spec_with(args.player, minus)
            jobs = [(a, b, deal_seed + i, k) for i in range(args.deals)]
            deal_seed += args.deals
            score = sum(sum(pair) for pair in pool.map(duel, jobs))
            diff = (2 * score - 2 * args.deals) / (2 * args.deals)  # in [-1, 1]: plus minus minus
            theta = [max(0.0, t + ak * diff / (2 * ck * d)) if d else t for t, d in zip(theta, delta)]
            row = {"step": k, "score_plus": score / (2 * args.deals), "theta": [round(t, 4) for t in theta]}
            history.append(row)
            hist.write(json.dumps(row) + "\n")
            hist.flush()
            print(f"step {k + 1}/{args.steps}  plus scored {row['score_plus']:.2f}  "
                  + " ".join(f"{NAMES[i]}={theta[i]:.3f}" for i in TUNED), flush=True)
        tuned, base = spec_with(args.player, theta), spec_with(args.player, start)
        check_seed = 7_000_000 + args.seed
        games = [g for pair in pool.map(duel, [(tuned, base, check_seed + i, 0) for i in range(args.check_deals)])
                 for g in pair]
    w = sum(1 for g in games if g == 1.0)
    l = sum(1 for g in games if g == 0.0)
    d = len(games) - w - l
    est = elo(w, d, l)
    summary = {"player": args.player, "start": start, "tuned": [round(t, 4) for t in theta], "steps": args.steps,
               "deals_per_step": args.deals, "check": {"wins": w, "draws": d, "losses": l, **est.to_json()},
               "seconds": round(time.time() - t0, 1), "names": list(NAMES)}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    lines = [f"SPSA tuning of {args.player}: {args.steps} steps x {args.deals} deals x 2 games",
             "", f"{'weight':16} {'start':>8} {'tuned':>8}"]
    lines += [f"{NAMES[i]:16} {start[i]:8.3f} {theta[i]:8.3f}" for i in range(10)]
    lines += ["", f"check, tuned vs start over {2 * args.check_deals} games: +{w} ={d} -{l}, "
                  f"Elo {est.elo:+.0f} [{est.lower:+.0f}, {est.upper:+.0f}] (95%)",
              f"time {summary['seconds']} s"]
    (out / "report.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4))
        for i in TUNED:
            ax.plot([r["theta"][i] for r in history], label=NAMES[i])
        ax.set_xlabel("SPSA step")
        ax.set_ylabel("weight (prestige points)")
        ax.set_title(f"evaluation weights, tuned by self-play of {args.player}")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / "weights.png", dpi=100)
    except ImportError:
        print("matplotlib missing: no plot", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
