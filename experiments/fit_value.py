"""Fit the evaluation's weights to game outcomes (a softmax regression on recorded positions).

The search backs up `softmax(eval_scale * value)` over the seats at its cut-offs, where a seat's
value is `sum_k w_k * f_k(seat)` and f_k are the evaluation's terms
(splendor_ai/players/evaluation.py). Predicting the winner of a recorded position with those win
chances is a conditional logit (for two players, the logistic regression of seat 0's win on the
difference of the seats' terms), and the recorded games of the tournaments in experiments/results
are its data: every position of every game between search players of the chosen kind (player
count and module), labelled with who won. The weights SPSA tuned (experiments/tune_eval.py) were
chosen for the one-ply greedy player; this asks instead which weights predict the winner best,
which is what a cut-off needs.

    python experiments/fit_value.py                      # all 2-player base-game records
    python experiments/fit_value.py --before 2026-11-30T17:46 --out experiments/results/fit_value
                                   # the records VALUE_WEIGHTS / VALUE_PHASE were fitted on
    python experiments/fit_value.py --extra round_turn   # also fit the round_turn term (w[8])
    python experiments/fit_value.py --extra reach win_now --cache /tmp/pos.npz
                                   # other terms too; the positions' terms kept for the next fit
    python experiments/fit_value.py --players 4          # 4-player base games
    python experiments/fit_value.py --module orient      # 2-player Orient games, with its own terms

Prints the held-out log loss and accuracy of SPSA's weights (DEFAULT_WEIGHTS), of the ten-term
VALUE_WEIGHTS / VALUE_PHASE (with the hand-set MODULE_WEIGHTS; MCTS's cut-off in version 0.4.0,
expectimax's leaves still), of the weights the search
players use now in such games (evaluation.value_weights: when they were fitted on these records,
their held-out games were in the fit), of fitted ones and of fitted ones
that move with the game's phase (each base weight w + slope * min(leader's points, 15) / 15, the
evaluation's `phase_weights`), the weights fitted on every game (in the evaluation's units, for
eval_scale = DEFAULT_SCALE) and the plain fit per game phase. With --module the module's own terms
(evaluation.MODULE_NAMES) are fitted too, without a phase slope (the evaluation has none for them).
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
from splendor_ai.players.evaluation import (DEFAULT_SCALE, DEFAULT_WEIGHTS, MODULE_NAMES, MODULE_WEIGHTS,  # noqa: E402
                                            NAMES, NTERMS as ALL_TERMS, VALUE_PHASE, VALUE_WEIGHTS,
                                            value_module_weights, value_weights)
from splendor_ai.records import read_records  # noqa: E402
from splendor_ai.state import State  # noqa: E402

BASE_TERMS = tuple(range(8))   # points .. tempo; --extra adds others by name
WIN = 15
NMODULE = len(MODULE_NAMES)
# the module terms each module reads (indices into MODULE_NAMES): fitted with the base terms in
# that module's games
MODULE_TERMS = {"cities": (0, 1), "orient": (2, 3), "posts": (4, 5), "strongholds": (6, 7, 8)}
COUNT = {2: "two", 3: "three", 4: "four"}


def terms(state: State) -> np.ndarray:
    """Every term of the evaluation per seat, shape (seats, NTERMS + NMODULE): the base terms, then
    the module terms (the evaluation with one unit weight each)."""
    out = np.empty((state.config.players, ALL_TERMS + NMODULE))
    for k in range(ALL_TERMS + NMODULE):
        unit, munit = [0.0] * ALL_TERMS, [0.0] * NMODULE
        if k < ALL_TERMS:
            unit[k] = 1.0
        else:
            munit[k - ALL_TERMS] = 1.0
        out[:, k] = _policy.evaluate(state._core, unit, munit)
    return out


def positions(paths, before: str | None = None, players: int = 2, module: str | None = None,
              search_only: bool = True):
    """(game id, terms per seat, each seat's share of the win, max points) for every position of
    every record of a `players`-player game with `module` (None: the base game) in `paths`
    (played before `before`, an ISO date, if given). A sole winner takes 1; a shared win is split
    among its winners, a game without a winner among all seats."""
    gid = 0
    want = (module,) if module else ()
    for path in paths:
        for rec in read_records(path):
            if rec.config.players != players or tuple(rec.config.modules) != want or rec.result is None:
                continue
            if before and str((rec.meta or {}).get("date", "")) >= before:
                continue
            if search_only and any(p.split("(")[0] in ("random", "greedy") for p in rec.players):
                continue
            winners = list(rec.result.winners) or list(range(players))
            y = np.zeros(players)
            y[winners] = 1.0 / len(winners)
            st = State(rec.start)
            for text in rec.moves:
                t = terms(st)
                yield gid, t, y, float(t[:, 0].max())
                st.push(text)
            gid += 1


def probs(X, beta):
    """Win chances per seat, softmax over the seats of X @ beta; X (positions, seats, terms)."""
    z = X @ beta
    z -= z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def fit_softmax(X, Y, l2=1e-3, iters=50):
    """Newton's method for the win chances softmax_seats(X @ beta) (a conditional logit, no
    intercept: the model is symmetric in the seats), with a small ridge. With two seats it is the
    logistic regression of seat 0's win on the difference of the seats' terms."""
    n, s, k = X.shape
    beta = np.zeros(k)
    flat = X.reshape(n * s, k)
    for _ in range(iters):
        p = probs(X, beta)
        g = np.einsum("rs,rsk->k", p - Y, X) + l2 * beta
        m = np.einsum("rs,rsk->rk", p, X)
        H = (flat * p.reshape(-1, 1)).T @ flat - m.T @ m + l2 * np.eye(k)
        step = np.linalg.solve(H, g)
        beta -= step
        if np.abs(step).max() < 1e-9:
            break
    return beta


def log_loss(X, Y, beta):
    z = X @ beta
    lse = np.logaddexp.reduce(z, axis=1)
    # draws and shared wins count as the share each seat got
    return float(np.mean(np.sum(Y * (lse[:, None] - z), axis=1)))


def accuracy(X, Y, beta):
    z = X @ beta
    decided = Y.max(axis=1) == 1
    return float(np.mean(z[decided].argmax(axis=1) == Y[decided].argmax(axis=1)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", nargs="*", default=None,
                    help="games.jsonl files (default: every one under experiments/results)")
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="the games' player count (default 2)")
    ap.add_argument("--module", default=None, choices=tuple(MODULE_TERMS),
                    help="games of this Cities of Splendor module (default: the base game); the module's "
                         "own terms are fitted too")
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
    module_which = MODULE_TERMS.get(args.module, ())
    columns = list(which) + [ALL_TERMS + m for m in module_which]
    names = [NAMES[k] for k in which] + [MODULE_NAMES[m] for m in module_which]
    nterms = len(columns)
    nbase = len(which)   # the phase slopes are fitted for the base terms only, as the evaluation has them
    key = json.dumps([paths, args.before, args.players, args.module,
                      [pathlib.Path(p).stat().st_size for p in paths]])
    cached = np.load(args.cache) if args.cache and pathlib.Path(args.cache).exists() else None
    if cached is not None and str(cached["key"]) == key:
        g, X, Y, pts = cached["g"], cached["X"], cached["Y"], cached["pts"]
    else:
        rows = list(positions(paths, args.before, args.players, args.module))
        if not rows:
            ap.error(f"no {COUNT[args.players]}-player {args.module or 'base'}-game records between search "
                     "players in the given files")
        g = np.array([r[0] for r in rows])
        X = np.array([r[1] for r in rows])
        Y = np.array([r[2] for r in rows])
        pts = np.array([r[3] for r in rows])
        if args.cache:
            np.savez(args.cache, key=key, g=g, X=X, Y=Y, pts=pts)
    # a term the same for every seat changes no win chance: centre each position's terms
    X = X[:, :, columns]
    X = X - X.mean(axis=1, keepdims=True)
    rng = np.random.default_rng(args.seed)
    games = np.unique(g)
    test_games = set(rng.choice(games, size=int(len(games) * args.holdout), replace=False).tolist())
    test = np.array([gi in test_games for gi in g])
    train = ~test

    def pick(ws):   # the fitted terms' entries of a weight tuple (a short tuple's missing ones are 0)
        return [ws[k] if k < len(ws) else 0.0 for k in which]
    cur = DEFAULT_SCALE * np.array(pick(DEFAULT_WEIGHTS) + [MODULE_WEIGHTS[m] for m in module_which])
    # what the search players use now in these games (evaluation.value_weights and value_module_weights)
    modules = (args.module,) if args.module else ()
    now_w, now_phase = value_weights(args.players, modules)
    now_m = value_module_weights(args.players, modules)
    now = DEFAULT_SCALE * np.array(pick(now_w) + [now_m[m] for m in module_which] + pick(now_phase))
    value = DEFAULT_SCALE * np.array(pick(VALUE_WEIGHTS) + [MODULE_WEIGHTS[m] for m in module_which]
                                     + pick(VALUE_PHASE))
    beta = fit_softmax(X[train], Y[train])
    # the phased model: each base weight moves linearly with the leader's points (capped at 15)
    Z = np.concatenate([X, X[:, :, :nbase] * (np.minimum(pts, WIN) / WIN)[:, None, None]], axis=2)
    gamma = fit_softmax(Z[train], Y[train])
    game = f"{args.players} players, {args.module or 'base game'}"
    lines = [f"records: {len(paths)} files, {len(games)} games ({game}), {len(Y)} positions "
             f"({int(train.sum())} train / {int(test.sum())} held out, by game)",
             "",
             "held-out                   log loss   accuracy",
             f"  SPSA's DEFAULT_WEIGHTS   {log_loss(X[test], Y[test], cur):.4f}     {accuracy(X[test], Y[test], cur):.3f}",
             f"  VALUE_* (ten terms)      {log_loss(Z[test], Y[test], value):.4f}     {accuracy(Z[test], Y[test], value):.3f}",
             f"  the players' current     {log_loss(Z[test], Y[test], now):.4f}     {accuracy(Z[test], Y[test], now):.3f}",
             f"  fitted                   {log_loss(X[test], Y[test], beta):.4f}     {accuracy(X[test], Y[test], beta):.3f}",
             f"  fitted, with phase       {log_loss(Z[test], Y[test], gamma):.4f}     {accuracy(Z[test], Y[test], gamma):.3f}",
             f"  coin                     {np.log(args.players):.4f}",
             ""]
    # the weights to use: fitted on every game (the held-out split above only measures them)
    beta = fit_softmax(X, Y) / DEFAULT_SCALE
    gamma = fit_softmax(Z, Y) / DEFAULT_SCALE
    lines += [f"weights fitted on every game (evaluation units at eval_scale={DEFAULT_SCALE}):",
              "  term                 SPSA   fitted   phased: at 0 points, slope to 15"]
    for j, name in enumerate(names):
        slope = f"{gamma[nterms + j]:8.3f}" if j < nbase else "       -"
        lines.append(f"  {name:16s} {cur[j] / DEFAULT_SCALE:8.3f} {beta[j]:8.3f}   {gamma[j]:8.3f} {slope}")
    lines += ["", "fitted per phase (most points on the table), all games:",
              "  phase      n     " + " ".join(f"{name[:8]:>8s}" for name in names)]
    for lo, hi in ((0, 4), (4, 8), (8, 12), (12, 99)):
        m = (pts >= lo) & (pts < hi)
        if m.sum() < 100:
            continue
        b = fit_softmax(X[m], Y[m]) / DEFAULT_SCALE
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

        def full(vals):   # every base term of the evaluation, 0 where not fitted
            ws = [0.0] * ALL_TERMS
            for j, k in enumerate(which):
                ws[k] = round(float(vals[j]), 3)
            return ws

        def modules(vals):   # every module term, 0 where not fitted (each module reads only its own)
            ms = [0.0] * NMODULE
            for j, m in enumerate(module_which):
                ms[m] = round(float(vals[nbase + j]), 3)
            return ms
        weights = {"eval_scale": DEFAULT_SCALE, "players": args.players, "module": args.module,
                   "linear": {"weights": full(beta)},
                   "phased": {"weights": full(gamma[:nterms]), "phase_weights": full(gamma[nterms:])}}
        if args.module:
            weights["linear"]["module_weights"] = modules(beta)
            weights["phased"]["module_weights"] = modules(gamma)
        (out / "weights.json").write_text(json.dumps(weights) + "\n")


if __name__ == "__main__":
    from splendor_ai.tournament import cli
    sys.exit(cli.main(main, "fit_value"))
