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
    python experiments/tune_eval.py --module cities --steps 60 --out experiments/results/tune_eval_cities

With --module (cities, orient, posts, strongholds) the games are played in that Cities of Splendor
module and SPSA moves that module's terms of MODULE_WEIGHTS (evaluation.py); the base weights stay.

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
from splendor_ai.players.evaluation import DEFAULT_WEIGHTS, MODULE_NAMES, MODULE_WEIGHTS, NAMES  # noqa: E402
from splendor_ai.state import Config  # noqa: E402
from splendor_ai.tournament.stats import elo  # noqa: E402

TUNED = range(1, 8)  # the weights SPSA moves (0 is the unit; 8-9 are unused)
# with --module: the module weights SPSA moves (MODULE_NAMES)
MODULE_TUNED = {"cities": (0, 1), "orient": (2, 3), "posts": (4, 5), "strongholds": (6, 7, 8)}
MODULE = None   # the module played (set by --module; the workers get it with each job)


def spec_with(template: str, weights) -> str:
    name, kwargs = parse_spec(template)
    kwargs["module_weights" if MODULE else "weights"] = tuple(round(w, 4) for w in weights)
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"


def duel(args) -> list[float]:
    """Scores of spec a against spec b on one deal in both seat orders (1 win, 0.5 draw or
    shared win, 0 loss)."""
    a, b, deal, seed, *module = args
    config = Config(players=2, modules=tuple(module[:1]) if module and module[0] else ())
    scores = []
    for a_seat in (0, 1):
        specs = [b, b]
        specs[a_seat] = a
        out = play_game([make_player(s, seed=seed + i) for i, s in enumerate(specs)], seed=deal, config=config)
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
    ap.add_argument("--module", choices=sorted(MODULE_TUNED), default=None,
                    help="play this Cities of Splendor module and tune its module weights")
    ap.add_argument("--out", default=None, help="default experiments/results/tune_eval[_<module>]")
    args = ap.parse_args(argv)
    global MODULE, TUNED, NAMES
    MODULE = args.module
    if MODULE:
        TUNED, NAMES = MODULE_TUNED[MODULE], MODULE_NAMES
    nweights = len(NAMES)
    args.out = args.out or str(ROOT / "experiments" / "results" / ("tune_eval" + (f"_{MODULE}" if MODULE else "")))
    try:
        start = ([float(x) for x in args.start.split(",")] if args.start
                 else list(MODULE_WEIGHTS if MODULE else DEFAULT_WEIGHTS))
        if len(start) != nweights:
            raise ValueError(f"--start needs {nweights} weights")
        make_player(spec_with(args.player, start))
    except (ValueError, ConfigError) as e:
        print(f"tune_eval: {e}", file=sys.stderr)
        return 2
    # module weights differ in scale (a claimed city is worth 25, a gold card 0.6): their steps
    # and perturbations are relative to the starting value; the base weights keep absolute ones
    scale = [max(abs(x), 0.5) if MODULE else 1.0 for x in start]
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
            delta = [rng.choice((-1, 1)) if i in TUNED else 0 for i in range(nweights)]
            plus = [max(0.0, t + ck * d * sc) for t, d, sc in zip(theta, delta, scale)]
            minus = [max(0.0, t - ck * d * sc) for t, d, sc in zip(theta, delta, scale)]
            a, b = spec_with(args.player, plus), spec_with(args.player, minus)
            jobs = [(a, b, deal_seed + i, k, MODULE) for i in range(args.deals)]
            deal_seed += args.deals
            score = sum(sum(pair) for pair in pool.map(duel, jobs))
            diff = (2 * score - 2 * args.deals) / (2 * args.deals)  # in [-1, 1]: plus minus minus
            theta = [max(0.0, t + ak * diff * sc / (2 * ck * d)) if d else t for t, d, sc in zip(theta, delta, scale)]
            row = {"step": k, "score_plus": score / (2 * args.deals), "theta": [round(t, 4) for t in theta]}
            history.append(row)
            hist.write(json.dumps(row) + "\n")
            hist.flush()
            print(f"step {k + 1}/{args.steps}  plus scored {row['score_plus']:.2f}  "
                  + " ".join(f"{NAMES[i]}={theta[i]:.3f}" for i in TUNED), flush=True)
        tuned, base = spec_with(args.player, theta), spec_with(args.player, start)
        check_seed = 7_000_000 + args.seed
        games = [g for pair in pool.map(duel, [(tuned, base, check_seed + i, 0, MODULE) for i in range(args.check_deals)])
                 for g in pair]
    w = sum(1 for g in games if g == 1.0)
    l = sum(1 for g in games if g == 0.0)
    d = len(games) - w - l
    est = elo(w, d, l)
    summary = {"player": args.player, "module": MODULE, "start": start, "tuned": [round(t, 4) for t in theta], "steps": args.steps,
               "deals_per_step": args.deals, "check": {"wins": w, "draws": d, "losses": l, **est.to_json()},
               "seconds": round(time.time() - t0, 1), "names": list(NAMES)}
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    lines = [f"SPSA tuning of {args.player}" + (f" in the {MODULE} module (module weights)" if MODULE else "")
             + f": {args.steps} steps x {args.deals} deals x 2 games",
             "", f"{'weight':16} {'start':>8} {'tuned':>8}"]
    lines += [f"{NAMES[i]:16} {start[i]:8.3f} {theta[i]:8.3f}" for i in range(nweights)]
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
