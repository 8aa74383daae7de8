"""The compiled engine at the level search uses it: single actions, playouts, keys."""
import random

import pytest

from splendor_ai import State
from splendor_ai._engine import Core


def check_fields(core: Core, players: int):
    d = core.to_dict()
    supply = {2: 4, 3: 5, 4: 7}[players]
    for c in range(6):
        total = d["bank"][c] + sum(s["tokens"][c] for s in d["seats"])
        assert total == (5 if c == 5 else supply)
        assert d["bank"][c] >= 0 and all(s["tokens"][c] >= 0 for s in d["seats"])
    seen = [card for row in d["market"] for card in row if card is not None]
    seen += [card for deck in d["decks"] for card in deck]
    for s in d["seats"]:
        seen += s["cards"] + [card for card, _ in s["reserved"]]
    assert sorted(seen) == list(range(90))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_action_games_never_dead_end(players):
    """Every non-final state has a legal action, and every action keeps the invariants. (Token
    returns are made one at a time in colour order; an early return must not strand the player.)"""
    for seed in range(40):
        core, rng = Core.new(players, seed), random.Random(seed)
        while not core.over:
            acts = core.legal_actions()
            assert acts, core.to_dict()
            core.apply(rng.choice(acts))
            check_fields(core, players)


def test_return_order_cannot_strand_the_player():
    pos = ("SPN1 2 110335 23,21,28,33/67,59,55,50/75,70,76,80 30.4.34.5.39.22.2.16.29.17.32.8.24.27.18.3.19.6."
           "38.36.14.0.35.15.7.26.9/66.44.64.58.54.62.43.41.51.47.60.48.61.56.69.45.65.49.46.52.57.53.68.42.63/"
           "72.83.88.73.79.87.81.85.82.74.71.77 1,2,6 1/0/29/0/0 100100:1,10,13,20,25,40:84,78,*12:- "
           "234010:11,31:*89,37,86:-")
    core = State(pos)._core.copy()
    core.apply(1)  # +wbr: seat 1 goes from w2 b3 g4 k1 to w3 b4 g4 r1 k1 = 13 tokens, returns 3
    assert core.phase == 1
    # red first would leave only red+black (2 tokens) for the other 2 returns... 1 red + 1 black
    # after it is just 1: stranded. So red and black cannot open the returns.
    assert core.legal_actions() == [76, 77, 78]
    core.apply(78)                                    # return a green; 2 more to go
    assert core.legal_actions() == [78, 79]           # green, or red then black; black alone can't
    core.apply(79)
    assert core.legal_actions() == [80]


def test_playouts_end_and_are_reproducible():
    a, b = Core.new(3, 9), Core.new(3, 9)
    assert a.playout(5) == b.playout(5)
    assert a.key() == b.key() and a.over


def test_action_keys_name_cards_not_slots():
    st = State.new(2, seed=4)
    core = st._core
    market = st.market
    keys = {core.action_key(a) for a in core.legal_actions()}
    assert {338 + c for row in market for c in row} <= keys      # reserve each face-up card
    assert {48, 49, 50} <= keys                                   # blind reserves by deck
    assert set(range(10)) <= keys                                 # the ten 3-colour takes


def test_transposed_positions_have_equal_engine_keys():
    """Different turns that reach the same position (e.g. +wbg/-w and +bgk/-k style transpositions)
    leave byte-identical engine states, so hashes and tables can key on Core.key()."""
    rng = random.Random(2)
    transpositions = 0
    for seed in range(6):
        st = State.new(2, seed=seed)
        while not st.is_over() and st.turn < 40:
            keys_by_position = {}
            for m in st.legal_moves:
                c = st.copy(stack=False)
                c.push(m)
                keys_by_position.setdefault(c.position(), []).append(c._core.key())
            for keys in keys_by_position.values():
                assert len(set(keys)) == 1
            transpositions += sum(1 for keys in keys_by_position.values() if len(keys) > 1)
            st.push(rng.choice(list(st.legal_moves)))
    assert transpositions > 0
