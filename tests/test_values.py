"""The public API's small values (python-chess style): a move's kind and its decisions' tags, and a
result's reason, are str-valued enums (so JSON and comparisons with the plain names keep working);
a State, which `push` changes, is compared by a frozen key and is not hashable."""
import json

import pytest

from splendor_ai import DecisionTag, Move, MoveKind, Result, State, Termination
from splendor_ai.records import GameRecord


def test_move_kind_and_decision_tags_are_enums_equal_to_their_names():
    m = Move.parse("b12/m30:31/b31/t1")
    assert m.kind is MoveKind.BUY and m.kind == "buy" and f"{m.kind}" == "buy" and str(m.kind) == "buy"
    assert [t for t, _ in m.decisions] == [DecisionTag.SH_MOVE, DecisionTag.CONQUER, DecisionTag.PLACE]
    assert all(type(t) is DecisionTag for t, _ in m.decisions)
    assert [t for t, _ in m.decisions] == ["m", "b", "t"]
    # built from the plain strings, a move is the same value, hashed alike
    plain = Move("buy", card=12, decisions=(("m", (30, 31)), ("b", 31), ("t", 1)))
    assert plain == m and hash(plain) == hash(m) and {plain: 1}[m] == 1 and plain.kind is MoveKind.BUY
    assert Move.parse("+wbg/-r").returns == (3,) and m.without("b", DecisionTag.PLACE) == Move.parse("b12/m30:31")
    assert json.dumps([m.kind, m.decisions[0][0]]) == '["buy", "m"]'
    with pytest.raises(ValueError):
        Move("steal")
    assert [k.value for k in MoveKind] == ["take", "reserve", "reserve_deck", "buy", "pass"]
    assert "".join(t.value for t in DecisionTag) == "-njhfdtmxb+c"


def _finished(seed: int) -> State:
    st = State.new(2, seed=seed)
    while not st.is_over():
        st.push(sorted(st.legal_moves, key=str)[seed % len(st.legal_moves)])
    return st


def test_result_reason_is_a_termination():
    st = _finished(3)
    res = st.result()
    assert type(res.reason) is Termination and res.reason in ("points", "cap", "stalemate")
    assert res.to_json()["reason"] == res.reason.value and type(res.to_json()["reason"]) is str
    assert json.loads(json.dumps(res.to_json())) == res.to_json()
    again = GameRecord.from_json(GameRecord.from_state(st, seed=3, players=["a", "b"]).to_json()).result
    assert again == res and type(again.reason) is Termination
    assert Result("cap", (1, 2), (3, 4), (1, 1), ()).reason is Termination.CAP
    with pytest.raises(ValueError):
        Result("resigned", (1, 2), (3, 4), (1, 1), ())


def test_a_state_is_not_hashable_its_key_is():
    st = State.new(2, seed=5)
    with pytest.raises(TypeError):
        hash(st)
    seen = {st.key()}
    before = st.copy()
    st.push(next(iter(st.legal_moves)))
    assert st.key() not in seen and before.key() in seen and before != st
    st.pop()
    assert st.key() in seen and st == before and st.key() == st.position()
    view = st.view(0)
    assert {view: 1}[st.view(0)] == 1   # a View does not change: it stays hashable
