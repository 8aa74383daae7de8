"""Seeded random games of the base game and of each Cities of Splendor module at 2, 3 and 4 players,
with the public API's invariants checked at every turn: token conservation, every card in one place
(the Orient decks and the out-of-game pile included), nobles / cities accounted for, strongholds
hand + board = 3, points = cards + nobles + posts, trading posts held exactly when met, push/pop and
copies, the text/JSON round trips, and the seats' views: deck order and other seats' blind reserves
(Orient ones included) hidden, and View.resample giving a state consistent with the view."""
import json
import random
from collections import Counter

import pytest

from splendor_ai import CARDS, NOBLES, Config, State, View
from splendor_ai.cards import CITIES, POSTS

SUPPLY = {2: 4, 3: 5, 4: 7}
MODULES = ("cities", "orient", "posts", "strongholds")
#: turns per game kind and player count in the default run (pytest -m slow: SLOW_TURNS)
TURNS = {None: 1000, **{m: 200 for m in MODULES}}
SLOW_TURNS = 3000


def deck_of(card: int) -> int:
    return CARDS[card].deck


def met(requirement, bonuses) -> bool:
    return all(b >= r for b, r in zip(bonuses, requirement))


def check_tokens(st):
    n, bank, seats = st.players, st.bank, st.seats
    for c in range(6):
        held = [s.tokens[c] for s in seats]
        assert bank[c] >= 0 and min(held) >= 0
        assert bank[c] + sum(held) == (5 if c == 5 else SUPPLY[n])
    for s in seats:
        assert sum(s.tokens) <= 10 and len(s.reserved) <= 3


def check_cards(st, module):
    """Every card in exactly one place, read from the JSON form (its own code path)."""
    obj = st.to_json()
    ndecks = 6 if module == "orient" else 3
    assert len(obj["decks"]) == ndecks
    places = [c for row in obj["market"] for c in row if c is not None]
    for d, deck in enumerate(obj["decks"]):
        assert all(deck_of(c) == d for c in deck["cards"])
        places += deck["cards"]
    for s in obj["seats"]:
        places += s["cards"] + [r["card"] for r in s["reserved"]]
    places += obj.get("discard", [])
    assert sorted(places) == list(range(120 if module == "orient" else 90))
    for lv, row in enumerate(obj["market"]):
        assert len(row) == (6 if module == "orient" else 4)
        for slot, c in enumerate(row):
            deck = lv + (3 if slot >= 4 else 0)   # slots 5-6 (4, 5 from 0) are the Orient slots
            if c is None:
                assert obj["decks"][deck]["cards"] == []
            else:
                assert deck_of(c) == deck
    if module == "orient":
        for s in st.seats:
            jokers = sorted(c for c in s.cards if "joker" in CARDS[c].abilities)
            assert [c for c, _ in s.jokers] == jokers
            assert all(0 <= colour < 5 for _, colour in s.jokers)
    else:
        assert all(c < 90 for c in places) and not obj.get("discard")


def check_nobles_cities(st, module):
    received = [nb for s in st.seats for nb in s.nobles]
    held = [nb for s in st.seats for nb in s.held_nobles]
    if module == "cities":
        assert st.nobles == () and received == [] and held == []
        claimed = [c for s in st.seats for c in s.cities]
        cities = list(st.cities) + claimed
        assert len(cities) == len({CITIES[c].tile for c in cities}) == 3
        assert st.final_round == bool(claimed)
    else:
        nobles = list(st.nobles) + received + held
        assert len(nobles) == len(set(nobles)) == st.players + 1
        assert st.cities == () and all(not s.cities for s in st.seats)
    if module != "orient":
        assert held == []


def check_points_posts_strongholds(st, module):
    on_board = Counter()
    for card, (seat, count) in st.strongholds.items():
        assert module == "strongholds" and 1 <= count <= 3 and 0 <= seat < st.players
        assert any(card in row for row in st.market)
        on_board[seat] += count
    for i, s in enumerate(st.seats):
        posts = (5 if 3 in s.posts else 0) + (len(s.posts) if 4 in s.posts else 0)
        assert s.points == sum(CARDS[c].points for c in s.cards) + 3 * len(s.nobles) + posts
        assert all(NOBLES[nb].points == 3 for nb in s.nobles)
        if module == "strongholds":
            assert s.strongholds + on_board[i] == 3
        else:
            assert s.strongholds == 0
        if module == "posts":
            # a power is held exactly when its requirement is met (bonuses never drop here)
            for p in POSTS:
                assert (p.id in s.posts) == (met(p.requirement, s.bonuses) and len(s.nobles) >= p.nobles)
        else:
            assert s.posts == ()


def check_round_trips(st, pos, turn):
    assert State(pos).position() == pos
    obj = st.to_json()
    assert State.from_json(json.loads(json.dumps(obj))).position() == pos
    if turn % 10 == 0:
        assert State.from_json(json.dumps(obj)) == st


def unseen_by_deck(view_obj, ndecks):
    """The cards a view does not show, per deck."""
    seen = {c for row in view_obj["market"] for c in row if c is not None}
    seen |= set(view_obj.get("discard", []))
    for s in view_obj["seats"]:
        seen |= set(s["cards"]) | {r["card"] for r in s["reserved"] if "card" in r}
    universe = 120 if ndecks == 6 else 90
    return [sorted(c for c in range(universe) if deck_of(c) == d and c not in seen) for d in range(ndecks)]


def hidden_by_deck(st_obj, view_obj, ndecks):
    """The cards of a true position that sit where the view shows '?', per deck."""
    out = [list(deck["cards"]) for deck in st_obj["decks"]]
    for s, vs in zip(st_obj["seats"], view_obj["seats"]):
        for r, vr in zip(s["reserved"], vs["reserved"]):
            if "card" not in vr:
                out[vr["level"] - 1 + (3 if vr.get("orient") else 0)].append(r["card"])
    return [sorted(x) for x in out]


def sh_targets(move: str) -> set[int]:
    """The cards a move puts a stronghold on (placed `t<card>` or moved `m<from>:<card>`)."""
    out = set()
    for tok in move.split("/")[1:]:
        if tok[0] == "t":
            out.add(int(tok[1:]))
        elif tok[0] == "m":
            out.add(int(tok.split(":")[1]))
    return out


def check_views(st, pos, rng, stats, deep):
    """Every seat's view round-trips through its text; the seats in `deep` get the full checks."""
    legal = {str(m) for m in st.legal_moves}
    ndecks = len(st.to_json()["decks"])
    for seat in range(st.players):
        view = st.view(seat)
        vpos = view.position()
        assert View.from_position(vpos, seat).position() == vpos
        if seat not in deep:
            continue
        assert View.from_json(json.loads(json.dumps(view.to_json())), seat).position() == vpos
        assert View.from_position(pos, seat) == view
        vobj = view.to_json()
        # no deck order, Orient decks included
        assert len(vobj["decks"]) == ndecks
        assert all(set(d) == {"count"} or d == {"cards": []} for d in vobj["decks"])
        for i, (s, vs) in enumerate(zip(st.seats, vobj["seats"])):
            assert len(vs["reserved"]) == len(s.reserved)
            for card, blind, vr in zip(s.reserved, s.reserved_blind, vs["reserved"]):
                if blind and i != seat:
                    expected = {"level": CARDS[card].level, "blind": True}
                    if CARDS[card].orient:
                        expected["orient"] = True
                        stats["hidden orient reserves"] += 1
                    assert vr == expected
                else:
                    assert vr["card"] == card
        sample = view.resample(rng.getrandbits(64))
        spos = sample.position()
        assert State(spos).position() == spos
        assert sample.view(seat).position() == vpos
        assert hidden_by_deck(sample.to_json(), vobj, ndecks) == unseen_by_deck(vobj, ndecks)
        stats["resample differs"] += spos != pos
        if seat == st.to_move:
            # what the mover may do depends only on what the mover sees: no decision of a turn
            # names a card the turn draws (Strongholds refills a bought card's slot only after
            # the stronghold action)
            market = {c for row in st.market for c in row if c is not None}
            assert all(sh_targets(m) <= market for m in legal)
            assert {str(m) for m in view.legal_moves} == set(legal)
            assert set(map(str, sample.legal_moves)) == set(legal)


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


def choose(moves, rng, buy_bias):
    """Random play, leaning to buys so that games reach the 15-point end."""
    buys = [m for m in moves if m.startswith("b")]
    return rng.choice(buys if buys and rng.random() < buy_bias else moves)


def play(module, players, seed, stats, cap):
    rng = random.Random(seed)
    st = State.new(players, seed=seed, first_player=seed % players,
                   config=Config(players, cap=cap, modules=(module,) if module else ()))
    turns = 0
    while True:
        pos = st.position()
        assert pos.startswith(f"SPN2 {players}:{module}" if module else f"SPN1 {players}")
        check_tokens(st)
        check_cards(st, module)
        check_nobles_cities(st, module)
        check_points_posts_strongholds(st, module)
        check_round_trips(st, pos, turns)
        check_views(st, pos, rng, stats, deep={rng.randrange(players)})
        if st.is_over():
            assert not st.legal_moves
            return turns, st
        moves = sorted(str(m) for m in st.legal_moves)
        assert moves and len(moves) == len(set(moves))
        if module is None:
            check_moves(st, pos, moves, rng, everything=turns % 16 == 0)
        else:
            check_moves(st, pos, moves, rng, everything=turns % 25 == 0 and len(moves) < 400)
        move = choose(moves, rng, 0.6 if module is None else 0.7)
        st.push(move)
        turns += 1
        for tok in move.split("/")[1:]:
            stats["decision " + tok[0]] += 1
        stats["blind reserves"] += move.startswith("rL")
        stats["orient blind reserves"] += move.startswith("rO")
        stats["passes"] += move.startswith("pass")


EXPECTED = {   # decisions that random play must have gone through, per module
    None: {"decision -", "decision n", "blind reserves"},
    "cities": {"decision c"},
    "orient": {"decision j", "decision h", "decision f", "orient blind reserves", "hidden orient reserves"},
    "posts": {"decision +"},
    "strongholds": {"decision t", "decision x", "decision b"},
}


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("module", [None, *MODULES])
def test_random_games_keep_every_invariant(module, players):
    run(module, players, TURNS[module], players * 1000 + (17 if module else 0))


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("module", [None, *MODULES])
def test_many_random_games_keep_every_invariant(module, players):
    stats = run(module, players, SLOW_TURNS, players * 100000 + 29)
    print(f"\n{module or 'base'} {players}p: {dict(sorted(stats.items()))}")


def cap_of(module, seed, games):
    """Some games end at a short cap."""
    if module is None:
        return 12 if seed % 6 == 0 else 100
    return 8 if games % 5 == 1 else 100


def run(module, players, total, seed):
    stats = Counter()
    turns, games, reasons = 0, 0, Counter()
    while turns < total:
        n, st = play(module, players, seed, stats, cap=cap_of(module, seed, games))
        games += 1
        result = st.result()
        turns += n
        seed += 1
        reasons[result.reason] += 1
        assert len(result.points) == players
        if result.reason == "points":
            assert result.winners and all(result.ranks[w] == 1 for w in result.winners)
            if module == "cities":
                assert all(st.seats[w].cities for w in result.winners)
            else:
                assert max(result.points) >= 15
        else:
            assert result.winners == ()
    if module is None:   # the games went through the interesting cases, not just gem taking
        assert reasons["points"] >= 3 and reasons["cap"] >= 1, reasons
        assert stats["resample differs"] > turns / 2
        assert EXPECTED[None] <= set(stats), EXPECTED[None] - set(stats)
    else:
        assert reasons["points"] >= 1 and reasons["cap"] >= 1, reasons
        assert stats["resample differs"] > turns / 3
        if total > TURNS[module]:   # the rarer decisions, over the long run
            assert EXPECTED[module] <= set(stats), EXPECTED[module] - set(stats)
        elif players == 4:  # the longest games of the default run: all but the conquest
            assert EXPECTED[module] - {"decision b"} <= set(stats), EXPECTED[module] - set(stats)
    stats["turns"] += turns
    stats.update("reason " + r for r in reasons.elements())
    return stats
