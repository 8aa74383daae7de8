"""The compiled engine against the plain-Python rules model (tests/rules_model.py), move for move:
same legal whole-turn sets, same positions after every turn, same results."""
import random

import pytest

from rules_model import Model
from splendor_ai import State


def play_both(players: int, seed: int, cap: int = 100, first: int = 0):
    from splendor_ai import Config
    st = State.new(players, seed=seed, first_player=first, config=Config(players=players, cap=cap))
    model = Model.from_position(st.position())
    rng = random.Random(seed)
    turns = 0
    while True:
        engine_moves = {str(m) for m in st.legal_moves}
        assert engine_moves == model.legal_moves(), f"turn {turns}: {st.position()}"
        if st.is_over():
            break
        move = rng.choice(sorted(engine_moves))
        st.push(move)
        model.apply(move)
        assert st.position() == model.position(), f"after {move} at turn {turns}"
        turns += 1
    assert model.is_over()
    res = st.result()
    assert res.to_json() == model.result()
    return turns, res.reason


@pytest.mark.parametrize("players", [2, 3, 4])
def test_engine_matches_model(players):
    reasons = set()
    total = 0
    for seed in range(6):
        turns, reason = play_both(players, seed * 7919 + players, first=seed % players)
        total += turns
        reasons.add(reason)
    assert total > 300
    assert "points" in reasons


def test_engine_matches_model_at_cap():
    turns, reason = play_both(3, 5, cap=4)
    assert (turns, reason) == (12, "cap")
