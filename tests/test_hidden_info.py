"""Analysis and hints never use hidden cards: two true states that the analysing seat cannot tell
apart (different deck order, a different card under an opponent's blind reserve) give the same
analysis for the same seed, through the Python API and through the engine protocol."""
import io
import json
import random

import pytest

from splendor_ai import State
from splendor_ai.analysis import analyse, hint
from splendor_ai.interfaces.protocol import serve
from splendor_ai.players.base import Limit
from splendor_ai.records import GameRecord

LIMIT = Limit(iterations=1200)

# (players, deal seed, moves: the opponents reserve blind, the analysing seat 0 is then to move)
CASES = [(2, 11, ["+wbg", "rL2"]), (3, 4, ["+wbg", "rL2", "rL3"])]


def _twin_start(start: State, moves: list[str], seed: int) -> State:
    """A start position that plays `moves` to a position seat 0 sees exactly as the original's:
    the decks reshuffled except their top cards, and the top cards of the decks the opponents
    reserve from swapped with deeper ones (so they hold other cards)."""
    rng = random.Random(seed)
    obj = start.to_json()
    blind_levels = {int(m[2]) for m in moves if m.startswith("rL")}
    for level, deck in enumerate(obj["decks"], 1):
        cards = deck["cards"]
        if level in blind_levels:
            rest = cards[1:]
            rng.shuffle(rest)
            cards[:] = [rest[0], cards[0]] + rest[1:]   # a different card on top
        else:
            cards[:] = rng.sample(cards, len(cards))
    return State.from_json(obj)


def _twins(players: int, seed: int, moves: list[str]):
    start1 = State.new(players, seed=seed)
    start2 = _twin_start(start1, moves, seed)
    st1, st2 = start1.copy(), start2.copy()
    for m in moves:
        st1.push(m)
        st2.push(m)
    return st1, st2


def _strip_time(obj):
    """An analysis without its timing (the only thing allowed to differ)."""
    obj = json.loads(json.dumps(obj))
    root = obj.get("rootInfo", {})
    root.pop("seconds", None)
    return obj


@pytest.mark.parametrize("players,seed,moves", CASES)
def test_twin_states_really_differ_only_in_hidden_cards(players, seed, moves):
    st1, st2 = _twins(players, seed, moves)
    assert st1.position() != st2.position()
    assert st1.view(0) == st2.view(0)
    # each opponent knows its own blind reserve, which differs between the twins
    for seat in range(1, players):
        assert st1.view(seat) != st2.view(seat)
        assert st1.seats[seat].reserved != st2.seats[seat].reserved


@pytest.mark.parametrize("players,seed,moves", CASES)
def test_analysis_of_twin_states_is_identical(players, seed, moves):
    st1, st2 = _twins(players, seed, moves)
    a1 = analyse(st1, LIMIT, top_k=6, seed=5)
    a2 = analyse(st2, LIMIT, top_k=6, seed=5)
    assert a1.seat == 0
    assert _strip_time(a1.to_json()) == _strip_time(a2.to_json())
    # the analysis of the view itself is the same too
    assert _strip_time(analyse(st1.view(0), LIMIT, top_k=6, seed=5).to_json()) == _strip_time(a1.to_json())
    h1, h2 = hint(st1, LIMIT, seed=5), hint(st2, LIMIT, seed=5)
    assert (h1.move, h1.reason) == (h2.move, h2.reason)


@pytest.mark.parametrize("players,seed,moves", CASES)
def test_analysis_from_a_non_moving_seat_is_identical_too(players, seed, moves):
    st1, st2 = _twins(players, seed, moves)
    st1.push("+rk" if "+rk" in st1.legal_moves else str(next(iter(st1.legal_moves))))
    st2.push(st1.move_stack[-1])
    assert st1.view(0) == st2.view(0) and st1.to_move != 0
    a1 = analyse(st1, LIMIT, seat=0, seed=2)
    a2 = analyse(st2, LIMIT, seat=0, seed=2)
    assert _strip_time(a1.to_json()) == _strip_time(a2.to_json())


def _engine(requests: list[dict]) -> list[dict]:
    out = io.StringIO()
    serve(io.StringIO("".join(json.dumps(r) + "\n" for r in requests)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.mark.parametrize("players,seed,moves", CASES)
def test_engine_with_full_records_and_true_positions(players, seed, moves):
    st1, st2 = _twins(players, seed, moves)
    specs = ["human"] + ["mcts"] * (players - 1)
    rec1 = GameRecord.from_state(st1, seed=seed, players=specs)
    rec2 = GameRecord.from_state(st2, seed=None, players=specs)
    assert rec1.start != rec2.start and rec1.moves == rec2.moves
    common = {"seat": 0, "limit": {"iterations": 1200}, "topK": 6, "seed": 5}
    requests = [
        {"id": "rec1", "record": rec1.to_json(), **common},
        {"id": "rec2", "record": rec2.to_line(), **common},
        {"id": "pos1", "position": st1.position(), **common},
        {"id": "pos2", "position": st2.position(), **common},
        {"id": "json1", "position": st1.to_json(), **common},
        {"id": "json2", "position": st2.to_json(), **common},
        {"id": "start1", "position": rec1.start, "moves": rec1.moves, **common},
        {"id": "start2", "position": rec2.start, "moves": rec2.moves, **common},
        {"id": "view", "position": st1.view(0).position(), **common},
    ]
    replies = _engine(requests)
    assert [r["id"] for r in replies] == [r["id"] for r in requests]
    for r in replies:
        assert "error" not in r, r
    first = _strip_time(replies[0])
    first.pop("id")
    for r in replies[1:]:
        r = _strip_time(r)
        r.pop("id")
        assert r == first
    # and the engine's answer is the Python API's
    assert first == _strip_time(analyse(st1, LIMIT, top_k=6, seed=5).to_json())
    # the analysing seat's view is all the response shows: no hidden card appears in it
    assert "?" in first["rootInfo"]["position"]


def test_control_a_search_of_the_true_states_tells_the_twins_apart():
    """The check above can fail: a (forbidden) search of the true states does see the difference."""
    from splendor_ai.players.mcts import MCTSPlayer
    st1, st2 = _twins(2, 11, CASES[0][2])
    infos = [MCTSPlayer(seed=5, mode="perfect").choose(st.copy(stack=False), LIMIT).info.to_json()["moveInfos"]
             for st in (st1, st2)]
    assert infos[0] != infos[1]
