"""Fit the evaluation's weights to game outcomes (logistic regression on recorded positions).

The search backs up `softmax(eval_scale * value)` at its cut-offs, so for two players the win
chance it assumes is `sigmoid(eval_scale * sum_k w_k * (f_k(seat 0) - f_k(seat 1)))`, where f_k are
the evaluation's terms (splendor_ai/players/evaluation.py). That is a logistic regression, and the
recorded games of the tournaments in experiments/results are its data: every position of every
two-player base game between search players, labelled with who won. The weights SPSA tuned
(experiments/tune_eval.py) were chosen for the one-ply greedy player; this asks instead which
weights predict the winner best, which is what a cut-off needs.

    python experiments/fit_value.py                      # all 2-player base-game records
    python experiments/fit_value.py --before 2026-11-30T17:46 --out experiments/results/fit_value
                                   # the records VALUE_WEIGHTS / VALUE_PHASE were fitted on
    python experiments/fit_value.py --extra round_turn   # also fit the round_turn term (w[8])
    python experiments/fit_value.py --extra reach win_now --cache /tmp/pos.npz
                                   # other terms too; the positions' terms kept for the next fit

Prints the held-out log loss and accuracy of SPSA's weights (DEFAULT_WEIGHTS), of fitted ones and of fitted
ones that move with the game's phase (each weight w + slope * min(leader's points, 15) / 15, the
evaluation's `phase_weights`), the weights fitted on every game (in the evaluation's units, for
eval_scale = DEFAULT_SCALE) and the plain fit per game phase.
"""
from __future__ import annotations

import argparse
import glob
import json
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from splendor_ai import _policy  # noqa: E402
from splendor_ai.players.evaluation import DEFAULT_SCALE, DEFAULT_WEIGHTS, NAMES, NTERMS as ALL_TERMS  # noqa: E402
from splendor_ai.records import read_records  # noqa: E402
from splendor_ai.state import State  # noqa: E402

BASE_TERMS = tuple(range(8))   # points .. tempo; --extra adds others by name
WIN = 15
ZERO_MODULES = [0.0] * 12


def terms(state: State, which=BASE_TERMS) -> np.ndarray:
    """The evaluation's terms `which` (indices into NAMES) per seat, shape (seats, len(which)):
    the evaluation with unit weights."""
    out = np.empty((state.config.players, len(which)))
    for j, k in enumerate(which):
        unit = [0.0] * ALL_TERMS
        unit[k] = 1.0
        out[:, j] = _policy.evaluate(state._core, unit, ZERO_MODULES)
    return out


def positions(paths, before: str | None = None, which=BASE_TERMS, search_only: bool = True):
    """(game id, X row = terms(seat 0) - terms(seat 1), label, max points) for every position of
    every 2-player base-game record in `paths` (played before `before`, an ISO date, if given); a
    game's seat 0 wins -> 1, draw 0.5."""
    gid = 0
    for path in paths:
        for rec in read_records(path):
            if rec.config.players != 2 or rec.config.modules or rec.result is None:
                continue
            if before and str((rec.meta or {}).get("date", "")) >= before:
                continue
            if search_only and any(p.split("(")[0] in ("random", "greedy") for p in rec.players):
                continue
            winners = rec.result.winners
            y = 0.5 if len(winners) != 1 else float(winners[0] == 0)
            st = State(rec.start)
            for text in rec.moves:
                t = terms(st, which)
                yield gid, t[0] - t[1], y, float(t[:, 0].max())
                st.push(text)
            gid += 1


def fit_logistic(X, y, l2=1e-3, iters=50):
    """Newton's method (IRLS) for a logistic regression without intercept (the model is
    antisymmetric in the seats), with a small ridge."""
    beta = np.zeros(X.shape[1])
    for _ in range(iters):
        p = 1 / (1 + np.exp(-X @ beta))
        g = X.T @ (p - y) + l2 * beta
        H = (X * (p * (1 - p))[:, None]).T @ X + l2 * np.eye(X.shape[1])
        step = np.linalg.solve(H, g)
        beta -= step
        if np.abs(step).max() < 1e-9:
            break
    return beta


def log_loss(X, y, beta):
    z = X @ beta
    # log(1 + e^-z) for y=1 and log(1 + e^z) for y=0, stably; draws count half each
    return float(np.mean(y * np.logaddexp(0, -z) + (1 - y) * np.logaddexp(0, z)))


def accuracy(X, y, beta):
    z = X @ beta
    decided = y != 0.5
    return float(np.mean((z[decided] > 0) == (y[decided] == 1)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", nargs="*", default=None,
                    help="games.jsonl files (default: every one under experiments/results)")
    ap.add_argument("--holdout", type=float, default=0.25, help="share of games held out for testing")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--extra", nargs="*", default=[], choices=NAMES[8:], metavar="TERM",
                    help=f"terms to fit besides points .. tempo: {', '.join(NAMES[8:])}")
    ap.add_argument("--round-turn", action="store_true", help="the same as --extra round_turn")
    ap.add_argument("--cache", default=None, metavar="FILE.npz",
                    help="keep every position's terms here and read them back when the records are the same")
    ap.add_argument("--before", default=None, metavar="ISO_DATE",
                    help="only records played before this date (meta.date), e.g. 2026-11-30T17:46")
    ap.add_argument("--out", default=None, help="a folder for report.txt and weights.json")
    args = ap.parse_args(argv)
    root = pathlib.Path(__file__).resolve().parent / "results"
    paths = args.records or sorted(glob.glob(str(root / "**" / "games.jsonl"), recursive=True))
    extra = args.extra + ["round_turn"] * args.round_turn
    which = BASE_TERMS + tuple(dict.fromkeys(NAMES.index(e) for e in extra))
    nterms = len(which)
    key = json.dumps([paths, args.before, [pathlib.Path(p).stat().st_size for p in paths]])
    cached = np.load(args.cache) if args.cache and pathlib.Path(args.cache).exists() else None
    if cached is not None and str(cached["key"]) == key:
        g, X, y, pts = cached["g"], cached["X"], cached["y"], cached["pts"]
    else:
        rows = list(positions(paths, args.before, tuple(range(ALL_TERMS))))
        if not rows:
            ap.error("no two-player base-game records between search players in the given files")
        g = np.array([r[0] for r in rows])
        X = np.array([r[1] for r in rows])
        y = np.array([r[2] for r in rows])
        pts = np.array([r[3] for r in rows])
        if args.cache:
            np.savez(args.cache, key=key, g=g, X=X, y=y, pts=pts)
    X = X[:, list(which)]
    rng = np.random.default_rng(args.seed)
    games = np.unique(g)
    test_games = set(rng.choice(games, size=int(len(games) * args.holdout), replace=False).tolist())
    test = np.array([gi in test_games for gi in g])
    train = ~test
    cur = DEFAULT_SCALE * np.array([DEFAULT_WEIGHTS[k] if k < len(DEFAULT_WEIGHTS) else 0.0 for k in which])
    beta = fit_logistic(X[train], y[train])
    # the phased model: each weight moves linearly with the leader's points (capped at 15)
    Z = np.hstack([X, X * (np.minimum(pts, WIN) / WIN)[:, None]])
    gamma = fit_logistic(Z[train], y[train])
    lines = [f"records: {len(paths)} files, {len(games)} games, {len(y)} positions "
             f"({int(train.sum())} train / {int(test.sum())} held out, by game)",
             "",
             "held-out                   log loss   accuracy",
             f"  SPSA's DEFAULT_WEIGHTS   {log_loss(X[test], y[test], cur):.4f}     {accuracy(X[test], y[test], cur):.3f}",
             f"  fitted                   {log_loss(X[test], y[test], beta):.4f}     {accuracy(X[test], y[test], beta):.3f}",
             f"  fitted, with phase       {log_loss(Z[test], y[test], gamma):.4f}     {accuracy(Z[test], y[test], gamma):.3f}",
             f"  coin                     {np.log(2):.4f}",
             ""]
    # the weights to use: fitted on every game (the held-out split above only measures them)
    beta = fit_logistic(X, y) / DEFAULT_SCALE
    gamma = fit_logistic(Z, y) / DEFAULT_SCALE
    lines += [f"weights fitted on every game (evaluation units at eval_scale={DEFAULT_SCALE}):",
              "  term                 SPSA   fitted   phased: at 0 points, slope to 15"]
    for j, k in enumerate(which):
        lines.append(f"  {NAMES[k]:16s} {cur[j] / DEFAULT_SCALE:8.3f} {beta[j]:8.3f}   {gamma[j]:8.3f} {gamma[nterms + j]:8.3f}")
    lines += ["", "fitted per phase (most points on the table), all games:",
              "  phase      n     " + " ".join(f"{NAMES[k][:8]:>8s}" for k in which)]
    for lo, hi in ((0, 4), (4, 8), (8, 12), (12, 99)):
        m = (pts >= lo) & (pts < hi)
        if m.sum() < 100:
            continue
        b = fit_logistic(X[m], y[m]) / DEFAULT_SCALE
        lines.append(f"  {lo:2d}-{min(hi, 15) - 1:2d}  {int(m.sum()):7d}  " + " ".join(f"{v:8.3f}" for v in b))
    lines += ["", "records read:"] + [f"  {pathlib.Path(p).resolve().relative_to(root.parent.parent) if pathlib.Path(p).resolve().is_relative_to(root.parent.parent) else p}"
                                      for p in paths]
    report = "\n".join(lines)
    print(report)
    if args.out:
        out = pathlib.Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        cmd = "python experiments/fit_value.py " + " ".join(argv if argv is not None else sys.argv[1:])
        (out / "report.txt").write_text(f"$ {cmd.strip()}\n\n{report}\n")
        def full(vals):   # every term of the evaluation, 0 where not fitted
            ws = [0.0] * ALL_TERMS
            for j, k in enumerate(which):
                ws[k] = round(float(vals[j]), 3)
            return ws
        (out / "weights.json").write_text(json.dumps({
            "eval_scale": DEFAULT_SCALE,
            "linear": {"weights": full(beta)},
            "phased": {"weights": full(gamma[:nterms]), "phase_weights": full(gamma[nterms:])}}) + "\n")


if __name__ == "__main__":
    from splendor_ai.tournament import cli
    sys.exit(cli.main(main, "fit_value"))
