"""The static evaluation's phase weights and the script that fits the weights to game outcomes."""
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from splendor_ai.errors import ConfigError
from splendor_ai.players import make_player
from splendor_ai.players.evaluation import DEFAULT_WEIGHTS, MODULE_WEIGHTS, NO_PHASE, evaluate
from splendor_ai.cards import CARDS, NOBLES
from splendor_ai.state import Config, State

ROOT = Path(__file__).resolve().parent.parent
SLOPES = (1.2, -0.8, 0.3, 0.35, 0.5, 0.2, 0.9, 1.1, 2.5, 0.0)


@pytest.mark.parametrize("seed,module", [(1, None), (2, None), (3, None), (1, "orient"), (2, "strongholds"),
                                         (3, "posts")])
def test_phase_weights_move_each_weight_with_the_leaders_points(seed, module):
    """With slopes, a seat's value is the evaluation at weights w + slope * min(leader's points,
    15) / 15 (the modules' best-buy term too), at every position of a random game played to its
    end (past 15 points, where the phase stays 1)."""
    st = State.new(2, seed=seed, config=Config(2, modules=(module,) if module else ()))
    rng = random.Random(seed)
    leaders = set()
    while True:
        lead = min(max(p.points for p in st.seats), 15)
        leaders.add(lead)
        at = [w + s * lead / 15 for w, s in zip(DEFAULT_WEIGHTS, SLOPES)]
        got = evaluate(st, DEFAULT_WEIGHTS, MODULE_WEIGHTS, SLOPES)
        assert got == pytest.approx(evaluate(st, at), rel=1e-5, abs=1e-4)
        if st.is_over():
            break
        st.push(rng.choice(list(st.legal_moves)))
    assert 0 in leaders and (15 in leaders or module)
    assert evaluate(st, DEFAULT_WEIGHTS, MODULE_WEIGHTS, NO_PHASE) == evaluate(st)


def test_phase_weights_are_validated():
    for spec in ("mcts(phase_weights=(1.0, 2.0))", "expectimax(phase_weights=(1.0,))"):
        with pytest.raises(ConfigError, match="phase_weights must hold 10 to 16 numbers"):
            make_player(spec)
    # a weight that is not a number: a ConfigError naming the spec and the parameter, not a bare ValueError
    for spec, name in (("mcts(phase_weights=('a',1,1,1,1,1,1,1,1,1))", "phase_weights"),
                       ("expectimax(weights=('x',1,1,1,1,1,1,1,1,1))", "weights")):
        with pytest.raises(ConfigError, match=f"player spec .*: {name}: expected a tuple of finite numbers"):
            make_player(spec)


def test_fit_value_reports_and_writes_weights(tmp_path):
    """The fit on a few recorded games: a report comparing the weights' held-out log loss and
    weights.json with the linear and the phased weights, one for each of the 16 terms."""
    games = tmp_path / "h2h"
    r = subprocess.run([sys.executable, str(ROOT / "experiments" / "head_to_head.py"), "mcts(iterations=30)",
                        "mcts(iterations=10)", "--deals", "4", "--out", str(games), "--no-progress"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "fit"
    r = subprocess.run([sys.executable, str(ROOT / "experiments" / "fit_value.py"), "--records",
                        str(games / "games.jsonl"), "--holdout", "0.5", "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    report = (out / "report.txt").read_text()
    assert "8 games" in report and "fitted, with phase" in report
    w = json.loads((out / "weights.json").read_text())
    assert len(w["linear"]["weights"]) == len(w["phased"]["weights"]) == len(w["phased"]["phase_weights"]) == 16
    # other terms by name; the positions' terms cached and read back for the same records
    for run in range(2):
        r = subprocess.run([sys.executable, str(ROOT / "experiments" / "fit_value.py"), "--records",
                            str(games / "games.jsonl"), "--holdout", "0.5", "--extra", "reach", "spread",
                            "--cache", str(tmp_path / "pos.npz"), "--out", str(tmp_path / f"rich{run}")],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
    reports = [(tmp_path / f"rich{run}" / "report.txt").read_text().split("\n", 1)[1] for run in range(2)]
    assert reports[0] == reports[1] and "spread" in reports[0]
    rich = json.loads((tmp_path / "rich1" / "weights.json").read_text())["phased"]
    assert len(rich["weights"]) == len(rich["phase_weights"]) == 16
    fitted = {0, 1, 2, 3, 4, 5, 6, 7, 9, 12}
    assert all(v == 0 for k, v in enumerate(rich["weights"] + rich["phase_weights"]) if k % 16 not in fitted)
    assert rich["weights"][9] != 0 and rich["weights"][12] != 0
    # --round-turn (the spelling in experiments/results/fit_value_round_turn's command) is --extra round_turn
    reports = []
    for flags in (["--round-turn"], ["--extra", "round_turn"]):
        r = subprocess.run([sys.executable, str(ROOT / "experiments" / "fit_value.py"), "--records",
                            str(games / "games.jsonl"), "--holdout", "0.5", *flags], capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 0, r.stderr
        reports.append(r.stdout)
    assert reports[0] == reports[1] and "round_turn" in reports[0]
    r = subprocess.run([sys.executable, str(ROOT / "experiments" / "fit_value.py"), "--extra", "nonsense"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "nonsense" in r.stderr
    r = subprocess.run([sys.executable, str(ROOT / "experiments" / "fit_value.py"), "--records",
                        str(tmp_path / "missing.jsonl")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "missing.jsonl" in r.stderr and "Traceback" not in r.stderr
    # records played before a date: none here
    r = subprocess.run([sys.executable, str(ROOT / "experiments" / "fit_value.py"), "--records",
                        str(games / "games.jsonl"), "--before", "2000-01-01"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "no two-player base-game records" in r.stderr


def _fit_value_module():
    import importlib.util
    spec = importlib.util.spec_from_file_location("fit_value", ROOT / "experiments" / "fit_value.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_softmax_fit_with_two_seats_is_the_logistic_regression_on_differences():
    """The conditional logit over two seats is the logistic regression of seat 0's win on the
    difference of the seats' terms: the same weights as a direct IRLS fit of that regression, and
    its log loss is the logistic one. Three seats: the gradient at the fit is zero."""
    import numpy as np
    fv = _fit_value_module()
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 2, 3))
    true = np.array([1.0, -0.5, 0.25])
    p0 = 1 / (1 + np.exp(-(X[:, 0] - X[:, 1]) @ true))
    win0 = (rng.random(400) < p0).astype(float)
    Y = np.stack([win0, 1 - win0], axis=1)
    beta = fv.fit_softmax(X, Y, l2=0.0)
    D = X[:, 0] - X[:, 1]
    b = np.zeros(3)
    for _ in range(50):   # IRLS on the differences, independently of fit_softmax
        p = 1 / (1 + np.exp(-D @ b))
        b -= np.linalg.solve((D * (p * (1 - p))[:, None]).T @ D, D.T @ (p - win0))
    assert beta == pytest.approx(b, abs=1e-8)
    z = D @ b
    logistic = np.mean(win0 * np.logaddexp(0, -z) + (1 - win0) * np.logaddexp(0, z))
    assert fv.log_loss(X, Y, beta) == pytest.approx(logistic)
    X3 = rng.normal(size=(300, 3, 2))
    Y3 = np.eye(3)[rng.integers(0, 3, 300)]
    beta3 = fv.fit_softmax(X3, Y3, l2=0.0)
    assert np.einsum("rs,rsk->k", fv.probs(X3, beta3) - Y3, X3) == pytest.approx(np.zeros(2), abs=1e-8)


@pytest.mark.parametrize("flags,games,module_terms", [(["--players", "3"], 6, ()),
                                                      (["--module", "cities"], 4, (0, 1)),
                                                      (["--module", "strongholds"], 4, (6, 7, 8))])
def test_fit_value_fits_other_player_counts_and_modules(tmp_path, flags, games, module_terms):
    """--players and --module fit the games of that kind only (the 2-player base-game records
    beside them are not read) and, in a module, its own terms: weights.json gives them and 0 for
    every other module's."""
    kind = ["--players", "3"] if "--players" in flags else flags
    recs = []
    for name, how in (("kind", kind), ("base", [])):
        out = tmp_path / name
        r = subprocess.run([sys.executable, str(ROOT / "experiments" / "head_to_head.py"), "mcts(iterations=30)",
                            "mcts(iterations=10)", "--deals", "2", "--out", str(out), "--no-progress", *how],
                           capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        recs.append(str(out / "games.jsonl"))
    out = tmp_path / "fit"
    r = subprocess.run([sys.executable, str(ROOT / "experiments" / "fit_value.py"), "--records", *recs,
                        "--holdout", "0.5", "--extra", "round_turn", *flags, "--out", str(out)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    report = (out / "report.txt").read_text()
    assert f"{games} games (" in report and "the players' current" in report
    w = json.loads((out / "weights.json").read_text())
    phased = w["phased"]
    assert len(phased["weights"]) == len(phased["phase_weights"]) == 16 and phased["weights"][8] != 0
    if module_terms:
        assert w["module"] == flags[1]
        ms = phased["module_weights"]
        assert len(ms) == len(MODULE_WEIGHTS) and any(ms[k] != 0 for k in module_terms)
        assert all(m == 0 for k, m in enumerate(ms) if k not in module_terms)
        assert "city_progress" in report if flags[1] == "cities" else "sh_conquest" in report
    else:
        assert w["players"] == 3 and "module_weights" not in phased
    # the wrong kind for these records: none to fit
    r = subprocess.run([sys.executable, str(ROOT / "experiments" / "fit_value.py"), "--records", recs[0],
                        "--players", "4"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "no four-player base-game records" in r.stderr


@pytest.mark.parametrize("players,first", [(2, 0), (2, 1), (3, 2), (4, 1)])
def test_round_turn_counts_the_seats_still_to_move_this_round(players, first):
    """Term 8 is 1 for every seat whose turn of this round is still to come: all of them at the
    start of a round, then one fewer after each turn."""
    st = State.new(players, seed=4, first_player=first)
    unit = [0.0] * 10
    unit[8] = 1.0
    rng = random.Random(players)
    for turn in range(2 * players):
        done = turn % players
        moved = {(first + k) % players for k in range(done)}
        assert evaluate(st, unit, [0.0] * 12) == [0.0 if s in moved else 1.0 for s in range(players)]
        st.push(rng.choice(list(st.legal_moves)))


def rich_terms(st: State, seat: int) -> list[float]:
    """Terms 9-15 of evaluation.py, computed here from the public state."""
    p = st.seats[seat]
    gold = p.tokens[5]
    bonus = p.bonuses

    def missing(card):   # gems still missing after bonuses, tokens and gold
        return max(0, sum(max(0, need - bonus[c] - p.tokens[c]) for c, need in enumerate(CARDS[card].cost)) - gold)

    cards = [c for row in st.market for c in row if c is not None] + [c for c in p.reserved if c is not None]
    best = max([CARDS[c].points for c in cards if missing(c) == 0], default=0)
    near = sum(1 for n in st.nobles
               if sum(max(0, need - bonus[c]) for c, need in enumerate(NOBLES[n].requirement)) <= 2)
    return [sum((1 + CARDS[c].points) / (1 + missing(c)) ** 2 for c in cards),
            sum(1 for c in cards if missing(c) == 0),
            float(p.points + best >= 15),
            sum(min(b, 3) for b in bonus),
            max(0, sum(p.tokens) - 7),
            float(len(p.reserved) >= 3),
            near]


@pytest.mark.parametrize("seed,players", [(1, 2), (2, 2), (3, 3), (4, 4)])
def test_rich_terms_match_their_definitions(seed, players):
    """Each of terms 9-15 alone (unit weights, every other 0) is what evaluation.py says, for every
    seat at every position of a random game to its end; with no weight on them they change
    nothing."""
    st = State.new(players, seed=seed)
    rng = random.Random(seed)
    seen = set()
    while not st.is_over():
        for k in range(9, 16):
            unit = [0.0] * 16
            unit[k] = 1.0
            got = evaluate(st, unit, [0.0] * 12)
            want = [rich_terms(st, s)[k - 9] for s in range(players)]
            assert got == pytest.approx(want, rel=1e-5), (k, str(st))
            seen.update((k, v) for v in want if v)
        assert evaluate(st, DEFAULT_WEIGHTS + (0.0,) * 6) == evaluate(st)
        st.push(rng.choice(list(st.legal_moves)))
    # every term was nonzero somewhere (a reference that is always 0 would prove nothing)
    assert {k for k, _ in seen} == set(range(9, 16))


def test_win_now_is_not_a_win_with_the_cities():
    """With the Cities 15 points end nothing, so term 11 stays 0 where a buy would reach 15."""
    st = State.new(2, seed=1, config=Config(2, modules=("cities",)))
    rng = random.Random(1)
    unit = [0.0] * 16
    unit[11] = 1.0
    reach15 = 0
    while not st.is_over():
        assert evaluate(st, unit, [0.0] * 12) == [0.0, 0.0]
        reach15 += sum(rich_terms(st, s)[2] for s in range(2))
        st.push(rng.choice(list(st.legal_moves)))
    assert reach15 > 0


@pytest.mark.parametrize("players,module,fitted", [(2, None, "RICH"), (3, None, "3P"), (4, None, "4P"),
                                                    (2, "cities", "CITIES"), (2, "orient", "ORIENT"),
                                                    (2, "posts", "POSTS"), (2, "strongholds", "STRONGHOLDS"),
                                                    (3, "strongholds", "3P_SH"), (4, "strongholds", "4P_SH"),
                                                    (3, "cities", "CITIES"), (4, "cities", "CITIES"),
                                                    (3, "orient", "ORIENT"), (4, "orient", "VALUE"),
                                                    (3, "posts", "VALUE"), (4, "posts", "VALUE")])
def test_search_players_take_the_fitted_weights_of_the_game(players, module, fitted):
    """mcts() searches with the weights fitted for the game's player count and module
    (evaluation.FITTED; VALUE_* and MODULE_WEIGHTS where none were fitted): the same visits as the
    player given those weights, different visits from the one given another set."""
    from splendor_ai.players import evaluation as ev
    m = ev.MODULE_WEIGHTS
    sets = {"RICH": (ev.RICH_WEIGHTS, ev.RICH_PHASE, m), "3P": (ev.WEIGHTS_3P, ev.PHASE_3P, m),
            "4P": (ev.WEIGHTS_4P, ev.PHASE_4P, m), "VALUE": (ev.VALUE_WEIGHTS, ev.VALUE_PHASE, m),
            "CITIES": (ev.WEIGHTS_CITIES, ev.PHASE_CITIES, ev.MODULE_CITIES),
            "ORIENT": (ev.WEIGHTS_ORIENT, ev.PHASE_ORIENT, ev.MODULE_ORIENT),
            "POSTS": (ev.WEIGHTS_POSTS, ev.PHASE_POSTS, ev.MODULE_POSTS),
            "STRONGHOLDS": (ev.WEIGHTS_STRONGHOLDS, ev.PHASE_STRONGHOLDS, ev.MODULE_STRONGHOLDS),
            "3P_SH": (ev.WEIGHTS_3P, ev.PHASE_3P, ev.MODULE_STRONGHOLDS),
            "4P_SH": (ev.WEIGHTS_4P, ev.PHASE_4P, ev.MODULE_STRONGHOLDS)}
    modules = (module,) if module else ()
    assert ev.value_weights(players, modules) + (ev.value_module_weights(players, modules),) == sets[fitted]
    st = State.new(players, seed=9, config=Config(players, modules=modules))
    rng = random.Random(9)
    for _ in range(6 * players):
        st.push(rng.choice(list(st.legal_moves)))
    view = st.view(st.to_move)

    def visits(spec):
        return [(str(m.move), m.visits) for m in make_player(spec).choose(view).info.moves]

    def spec(name):
        w, ph, mw = sets[name]
        return f"mcts(iterations=3000,weights={w},phase_weights={ph},module_weights={mw})"
    other = "RICH" if fitted != "RICH" else "VALUE"
    assert visits("mcts(iterations=3000)") == visits(spec(fitted)) != visits(spec(other))


def test_expectimax_takes_none_for_its_default_weights():
    """weights=None (as mcts takes it) is expectimax's default VALUE_* / MODULE_WEIGHTS set: the
    same scores as the player without them, different ones from another set."""
    st = State.new(2, seed=5, config=Config(2, modules=("cities",)))
    rng = random.Random(5)
    for _ in range(10):
        st.push(rng.choice(list(st.legal_moves)))
    view = st.view(st.to_move)

    def scores(spec):
        return make_player(spec).choose(view).info.extra["scores"]
    default = scores("expectimax(depth=1)")
    assert scores("expectimax(depth=1,weights=None,phase_weights=None,module_weights=None)") == default
    assert scores("expectimax(depth=1,module_weights=(0,0,0,0,0,0,0,0,0,0,0,0))") != default
