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
        with pytest.raises(ConfigError, match="phase_weights must hold 10 numbers"):
            make_player(spec)
    # a weight that is not a number: a ConfigError naming the spec, not a bare ValueError
    for spec in ("mcts(phase_weights=('a',1,1,1,1,1,1,1,1,1))", "expectimax(weights=('x',1,1,1,1,1,1,1,1,1))"):
        with pytest.raises(ConfigError, match="player spec .*could not convert string to float"):
            make_player(spec)


def test_fit_value_reports_and_writes_weights(tmp_path):
    """The fit on a few recorded games: a report comparing the weights' held-out log loss and
    weights.json with the linear and the phased weights, 10 of each."""
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
    assert len(w["linear"]["weights"]) == len(w["phased"]["weights"]) == len(w["phased"]["phase_weights"]) == 10
    r = subprocess.run([sys.executable, str(ROOT / "experiments" / "fit_value.py"), "--records",
                        str(tmp_path / "missing.jsonl")], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "missing.jsonl" in r.stderr and "Traceback" not in r.stderr
    # records played before a date: none here
    r = subprocess.run([sys.executable, str(ROOT / "experiments" / "fit_value.py"), "--records",
                        str(games / "games.jsonl"), "--before", "2000-01-01"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "no two-player base-game records" in r.stderr


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
