"""Seeded random games at 2, 3 and 4 players, with the engine's invariants checked at every turn:
token conservation, every card in one place, push/pop, copies, the text/JSON/view round trips and
resampling of views."""
import json
import random
from collections import Counter

import pytest

from splendor_ai import CARDS, NOBLES, Config, State, View

SUPPLY = {2: 4, 3: 5, 4: 7}
TURNS = 2000   # per player count


def level_of(card):
    return CARDS[card].level


def check_tokens(st):
    n, bank, seats = st.players, st.bank, st.seats
    for c in range(6):
        held = [s.tokens[c] for s in seats]
        assert bank[c] >= 0 and min(held) >= 0
        assert bank[c] + sum(held) == (5 if c == 5 else SUPPLY[n])
    for s in seats:
        assert sum(s.tokens) <= 10 and len(s.reserved) <= 3


def check_cards(st):
    """Every card in exactly one place, read from the JSON form (its own code path)."""
    obj = st.to_json()
    places = [c for row in obj["market"] for c in row if c is not None]
    for lv, deck in enumerate(obj["decks"]):
        assert all(level_of(c) == lv + 1 for c in deck["cards"])
        places += deck["cards"]
    for s in obj["seats"]:
        places += s["cards"] + [r["card"] for r in s["reserved"]]
    assert sorted(places) == list(range(90))
    for lv, row in enumerate(obj["market"]):
        assert all(c is None or level_of(c) == lv + 1 for c in row)
        if None in row:
            assert obj["decks"][lv]["cards"] == []
    nobles = list(obj["nobles"]) + [nb for s in obj["seats"] for nb in s["nobles"]]
    assert len(nobles) == len(set(nobles)) == st.players + 1
    for s in st.seats:
        assert s.points == sum(CARDS[c].points for c in s.cards) + sum(NOBLES[nb].points for nb in s.nobles)


def check_round_trips(st, pos, turn):
    assert State(pos).position() == pos
    obj = st.to_json()
    assert State.from_json(json.loads(json.dumps(obj))).position() == pos
    if turn % 10 == 0:
        assert State.from_json(json.dumps(obj)) == st


def unseen_by_level(view_obj):
    """The cards a view does not show, per level."""
    seen = {c for row in view_obj["market"] for c in row if c is not None}
    for deck in view_obj["decks"]:
        seen |= set(deck.get("cards", []))
    for s in view_obj["seats"]:
        seen |= set(s["cards"]) | {r["card"] for r in s["reserved"] if "card" in r}
    return [sorted(c for c in range(90) if level_of(c) == lv and c not in seen) for lv in (1, 2, 3)]


def hidden_cards_by_level(st_obj, view_obj):
    """The cards of a true position that sit where the view shows '?', per level."""
    out = [[], [], []]
    for lv, deck in enumerate(st_obj["decks"]):
        out[lv] += deck["cards"]
    for s, vs in zip(st_obj["seats"], view_obj["seats"]):
        for r, vr in zip(s["reserved"], vs["reserved"]):
            if "card" not in vr:
                out[vr["level"] - 1].append(r["card"])
    return [sorted(x) for x in out]


def check_views(st, pos, rng, stats, deep):
    """Every seat's view round-trips through its text; the seats in `deep` get the full checks."""
    legal = {str(m) for m in st.legal_moves}
    for seat in range(st.players):
        view = st.view(seat)
        vpos = view.position()
        assert View.from_position(vpos, seat).position() == vpos
        if seat not in deep:
            continue
        assert View.from_json(json.loads(json.dumps(view.to_json())), seat).position() == vpos
        # a true position read as a view is the view of that state
        assert View.from_position(pos, seat) == view
        vobj = view.to_json()
        assert all("count" in d or d == {"cards": []} for d in vobj["decks"])
        for i, (s, vs) in enumerate(zip(st.seats, vobj["seats"])):
            assert len(vs["reserved"]) == len(s.reserved)
            for card, blind, vr in zip(s.reserved, s.reserved_blind, vs["reserved"]):
                if blind and i != seat:
                    assert vr == {"level": level_of(card), "blind": True}
                else:
                    assert vr["card"] == card
        sample = view.resample(rng.getrandbits(64))
        spos = sample.position()
        assert State(spos).position() == spos
        assert sample.view(seat).position() == vpos
        sobj = sample.to_json()
        assert hidden_cards_by_level(sobj, vobj) == unseen_by_level(vobj)
        stats["resample differs"] += spos != pos
        if seat == st.to_move:
            # what the mover may do depends only on what the mover sees
            assert {str(m) for m in view.legal_moves} == legal
            assert {str(m) for m in sample.legal_moves} == legal


def check_moves(st, pos, moves, rng, everything):
    """Legal moves apply and pop restores the position: all of them on some turns, else a sample
    (whose positions are also parsed back)."""
    sample = rng.sample(moves, min(2, len(moves)))
    for m in (moves if everything else sample):
        played = st.push(m)
        assert str(played) == m
        after = st.position()
        assert st.pop() == played
        assert st.position() == pos
        if m in sample:
            assert State(after).position() == after
    # copies are independent, both ways
    other = st.copy()
    assert other == st and other is not st
    other.push(rng.choice(moves))
    other_pos = other.position()
    assert st.position() == pos
    st.push(rng.choice(moves))
    assert other.position() == other_pos
    st.pop()
    other.pop()
    assert st.position() == pos and other.position() == pos


def choose(moves, rng):
    """Random play, leaning to buys so that games reach the 15-point end."""
    buys = [m for m in moves if m.startswith("b")]
    return rng.choice(buys if buys and rng.random() < 0.6 else moves)


def play(players, seed, stats):
    rng = random.Random(seed)
    cap = 12 if seed % 6 == 0 else 100   # some games end at a short cap
    st = State.new(players, seed=seed, first_player=seed % players, config=Config(players, cap=cap))
    turns = 0
    while True:
        pos = st.position()
        check_tokens(st)
        check_cards(st)
        check_round_trips(st, pos, turns)
        check_views(st, pos, rng, stats, deep={rng.randrange(players)})
        if st.is_over():
            assert not st.legal_moves
            return turns, st.result()
        moves = sorted(str(m) for m in st.legal_moves)
        assert moves and len(moves) == len(set(moves))
        check_moves(st, pos, moves, rng, everything=turns % 16 == 0)
        move = choose(moves, rng)
        st.push(move)
        turns += 1
        stats["returns"] += "/-" in move
        stats["nobles"] += "/n" in move
        stats["blind reserves"] += move.startswith("rL")
        stats["passes"] += move.startswith("pass")
        stats["empty slots"] += "-" in st.position().split()[3]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_keep_every_invariant(players):
    stats = Counter()
    turns, seed, reasons = 0, players * 1000, Counter()
    while turns < TURNS:
        n, result = play(players, seed, stats)
        turns += n
        seed += 1
        reasons[result.reason] += 1
        assert len(result.points) == players
        if result.reason == "points":
            assert result.winners and max(result.points) >= 15
            assert all(result.ranks[w] == 1 for w in result.winners)
        else:
            assert result.winners == ()
    # the games went through the interesting cases, not just gem taking
    assert reasons["points"] >= 3 and reasons["cap"] >= 1
    assert stats["returns"] > 0 and stats["nobles"] > 0 and stats["blind reserves"] > 0
    assert stats["resample differs"] > turns / 2
