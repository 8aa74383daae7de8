"""Self-checks of the plain-Python reference model (tests/rules_model.py) only."""

import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import rules_model  # noqa: E402
from rules_model import ALL_CARDS, CARDS, CITIES, NOBLES, Model  # noqa: E402


SUPPLY = {2: 4, 3: 5, 4: 7}


def ids(first, last, skip=()):
    """Card ids first..last inclusive, minus `skip`, joined by '.' (a deck field)."""
    return ".".join(str(card_id) for card_id in range(first, last + 1) if card_id not in skip)


def card_points(model, seat_model):
    """Points recomputed from the data tables (cards, nobles, trading posts)."""
    total = sum(ALL_CARDS[card_id].points for card_id in seat_model.cards)
    total += sum(NOBLES[noble_id].points for noble_id in seat_model.nobles)
    if 3 in seat_model.posts:
        total += 5
    if 4 in seat_model.posts:
        total += len(seat_model.posts)
    return total


def check_invariants(model):
    """Token conservation, every card in exactly one place (the Orient's out-of-game pile
    included), nobles or cities accounted for, strongholds hand + board = 3, jokers, points."""
    gems = SUPPLY[model.players]
    for colour in range(6):
        total = model.bank[colour] + sum(s.tokens[colour] for s in model.seats)
        assert total == (5 if colour == 5 else gems)
        assert model.bank[colour] >= 0
    for s in model.seats:
        assert sum(s.tokens) <= 10 and min(s.tokens) >= 0 and len(s.reserved) <= 3
    places = list(model.discard)
    for row in model.market:
        assert len(row) == model.nslots
        places.extend(card_id for card_id in row if card_id is not None)
    for deck in model.decks:
        places.extend(deck)
    for s in model.seats:
        places.extend(s.cards)
        places.extend(s.reserved_ids())
    universe = 120 if model.module == "orient" else 90
    assert sorted(places) == list(range(universe))
    nobles = list(model.nobles)
    for s in model.seats:
        nobles.extend(s.nobles)
        nobles.extend(s.held)
    if model.module == "cities":
        assert nobles == []
        cities = list(model.cities)
        for s in model.seats:
            cities.extend(s.cities)
        assert len(cities) == len({CITIES[c].tile for c in cities}) == 3
        assert model.final == (1 if any(s.cities for s in model.seats) else 0)
    else:
        assert len(nobles) == len(set(nobles)) == model.players + 1
    if model.module == "strongholds":
        face_up = model._market_card_ids()
        for card_id, (owner, count) in model.strongholds.items():
            assert card_id in face_up and 1 <= count <= 3 and 0 <= owner < model.players
        for index, s in enumerate(model.seats):
            on_board = sum(c for o, c in model.strongholds.values() if o == index)
            assert s.sh_hand + on_board == 3
    else:
        assert model.strongholds == {}
    if model.module == "orient":
        for s in model.seats:
            assert sorted(s.jokers) == [c for c in s.cards if ALL_CARDS[c].kind == "joker"]
    for s in model.seats:
        assert s.points() == card_points(model, s)


def play_random_game(module, players, seed, cap=100):
    """Play one seeded random game, checking the position's round trip (and, in the base game,
    that the parsed position lists the same moves) and the invariants every turn; favour
    purchases so that games reach the end by points. Returns the model and the decision tokens
    seen in the legal moves."""
    base = module is None
    rng = random.Random(seed * (1000 if base else 100) + players)
    model = Model.new(players, seed, first_player=seed % players, cap=cap, module=module)
    seen_tokens = set()
    while True:
        text = model.position()
        if not base:
            assert text.startswith("SPN2 %d:%s" % (players, module))
        again = Model.from_position(text)
        assert again.position() == text
        check_invariants(model)
        moves = model.legal_moves()
        if model.is_over():
            assert moves == set()
            return model, seen_tokens
        assert moves, text
        if base:
            assert again.legal_moves() == moves
        for move in moves:
            for token in move.split("/")[1:]:
                seen_tokens.add(token[0] if token[0] != "+" else "+")
        ordered = sorted(moves)
        buys = [move for move in ordered if move.startswith("b")]
        move = rng.choice(buys) if buys and rng.random() < (0.7 if base else 0.9) else rng.choice(ordered)
        before = model.turn
        model.apply(move)
        assert model.turn == before + 1


def test_random_games_round_trip_and_invariants():
    reasons = set()
    for players in (2, 3, 4):
        for seed in range(4):
            cap = 100 if seed < 3 else 8
            model, _ = play_random_game(None, players, seed, cap)
            result = model.result()
            reasons.add(result["reason"])
            assert len(result["points"]) == players
            assert result["points"] == [seat.points() for seat in model.seats]
            assert min(result["ranks"]) == 1
            if result["reason"] == "points":
                assert model.final == 1 and model.to_move == model.first_player
                assert max(result["points"]) >= 15
                assert result["winners"]
                assert model.turn % players == 0
            else:
                assert result["winners"] == []
    assert "points" in reasons
    assert "cap" in reasons


def test_new_game_setup():
    for players in (2, 3, 4):
        model = Model.new(players, 7)
        assert model.bank == [SUPPLY[players]] * 5 + [5]
        assert len(model.nobles) == players + 1
        assert [len(deck) for deck in model.decks] == [36, 26, 16]
        assert model.turn == 0 and model.to_move == 0
        check_invariants(model)
    assert Model.new(3, 5, first_player=2, cap=60).position().split(" ")[1] == "3:cap=60"


def base_position(bank, seat0, seat1, nobles="0,1,3", seat0_cards="-", status="0/0/4/0/0"):
    """A 2-player true position: market holds 0-3 / 40-43 / 70-73, decks the rest."""
    taken = set()
    for part in (seat0_cards,):
        if part != "-":
            taken.update(int(card_id) for card_id in part.split(","))
    decks = "/".join([ids(4, 39, taken), ids(44, 69, taken), ids(74, 89, taken)])
    return ("SPN1 2 %s 0,1,2,3/40,41,42,43/70,71,72,73 %s %s %s %s:%s:-:- %s:-:-:-"
            % (bank, decks, nobles, status, seat0, seat0_cards, seat1))


def test_take_two_forbidden_with_three_left():
    model = Model.from_position(base_position("344445", "100000", "000000"))
    moves = model.legal_moves()
    assert "+ww" not in moves
    for move in ("+bb", "+gg", "+rr", "+kk", "+wbg", "+grk"):
        assert move in moves
    with pytest.raises(ValueError):
        model.apply("+ww")
    model.apply("+bb")
    assert model.bank == [3, 2, 4, 4, 4, 5]
    assert "+bb" not in model.legal_moves()  # only 2 blue left now


def test_fewer_than_three_colours_available():
    # Only white and blue are left in the bank: take one of them, or both.
    model = Model.from_position(base_position("110005", "000440", "334000"))
    takes = {move for move in model.legal_moves() if move.startswith("+")}
    assert takes == {"+w", "+b", "+wb"}


def test_returns_after_take_are_listed_exactly():
    # Seat 0 holds 9 tokens (2 2 2 2 1 0); taking 3 brings it to 12: return 2.
    model = Model.from_position(base_position("222235", "222210", "000000"))
    moves = model.legal_moves()
    wbg = sorted(move for move in moves if move.startswith("+wbg"))
    expected = ["+wbg/-" + r for r in
                ("ww", "wb", "wg", "wr", "wk", "bb", "bg", "br", "bk",
                 "gg", "gr", "gk", "rr", "rk")]
    assert wbg == sorted(expected)
    assert "+wbg" not in moves
    # No take-2 (nothing has 4 left); reserving brings it to exactly 10: no returns.
    actions = {move.split("/")[0] for move in moves}
    assert not actions & {"+ww", "+bb", "+gg", "+rr", "+kk"}
    assert "r0" in moves and not any(move.startswith("r0/") for move in moves)
    model.apply("+wbg/-rk")
    assert model.seats[0].tokens == [3, 3, 3, 1, 0, 0]
    assert model.bank == [1, 1, 1, 3, 4, 5]


def test_returns_after_reserve_include_the_gold():
    model = Model.from_position(base_position("222225", "222220", "000000"))
    moves = model.legal_moves()
    assert sorted(move for move in moves if move.startswith("r0")) == sorted(
        ["r0/-w", "r0/-b", "r0/-g", "r0/-r", "r0/-k", "r0/-y"])
    assert sorted(move for move in moves if move.startswith("rL2")) == sorted(
        ["rL2/-w", "rL2/-b", "rL2/-g", "rL2/-r", "rL2/-k", "rL2/-y"])
    model.apply("rL2/-y")
    assert model.seats[0].reserved == [[44, True]]
    assert model.decks[1][0] == 45
    assert model.bank[5] == 5
    text = model.position()
    assert ":*44:" in text
    assert Model.from_position(text).position() == text


TWO_NOBLES = (
    "SPN1 2 000005 11,15,20,29/40,41,42,43/70,71,72,73 "
    + ids(4, 39, {8, 9, 10, 11, 15, 16, 17, 18, 19, 20, 29}) + "/"
    + ids(44, 69) + "/" + ids(75, 89, {76, 84})
    + " 0,1,3 0/0/20/0/0 "
    + "440020:0,1,2,3,8,9,10,16,17,18,19:74,76,*84:- "
    + "004420:-:-:-"
)


def test_two_nobles_at_once_exact_move_set():
    # Seat 0: bonuses 4 white, 3 blue, 4 green; tokens 4w 4b 2k; three reserved cards;
    # no gems in the bank. The only affordable card is 11 (blue: 1 white, 2 black), and
    # it completes both noble 0 (4w 4b) and noble 1 (4b 4g). Noble 3 (4r 4k) is not met.
    model = Model.from_position(TWO_NOBLES)
    assert model.position() == TWO_NOBLES
    assert model.legal_moves() == {"b11/n0", "b11/n1"}
    with pytest.raises(ValueError):
        model.apply("b11")
    model.apply("b11/n1")
    seat = model.seats[0]
    assert seat.nobles == [1]
    assert model.nobles == [0, 3]
    assert seat.tokens == [4, 4, 0, 0, 0, 0]
    assert model.bank == [0, 0, 0, 0, 2, 5]
    assert model.market[0] == [4, 15, 20, 29]  # refilled from the L1 deck top, same slot
    assert seat.points() == 3
    assert model.to_move == 1 and model.turn == 21 and model.passes == 0
    check_invariants(model)


def test_pass_only_when_nothing_else_and_noble_on_pass():
    # Swap card 11 (the one affordable card) for card 12 (needs a red): seat 0 can
    # take nothing, reserve nothing, buy nothing, so it must pass.
    text = TWO_NOBLES.replace("11,15,20,29", "12,15,20,29").replace(".12.", ".11.")
    model = Model.from_position(text)
    assert model.legal_moves() == {"pass"}
    model.apply("pass")
    assert model.passes == 1 and model.turn == 21 and not model.is_over()
    # Same, but noble 5 (3w 3b 3g) is face up and already met: it visits on the pass.
    model = Model.from_position(text.replace(" 0,1,3 ", " 1,3,5 "))
    assert model.legal_moves() == {"pass/n5"}
    model.apply("pass/n5")
    assert model.passes == 0 and model.seats[0].nobles == [5]   # a visit: not a dead pass


def test_fifteen_points_on_a_pass_are_played_out_not_a_stalemate():
    # seat 0 reaches 15 by a noble visiting on its pass; seat 1 passed the turn before
    model = Model.from_position(
        "SPN1 2 000005 11,12,27,20/58,63,69,60/74,86,83,85 39.38.37.36.35.34.33.32.31.30.29.28.26.25.24.23.22."
        "17.15.13.9.8.7.6.5.3.2.1/68.67.66.65.64.62.59.57.56.55.54.53.51.50.46.45.42.40/89.88.87.82.81.80.79.78."
        "77.76.75.73.72.71 1,2 0/0/10/0/1 442000:4,10,14,16,18,19,41,43,44,47,48,52:0,49,70:0 002440:-:84,21,61:-")
    assert model.legal_moves() == {"pass/n1"}
    model.apply("pass/n1")
    assert not model.is_over() and (model.final, model.passes) == (1, 0)
    model.apply("pass")
    result = model.result()
    assert (result["reason"], result["winners"]) == ("points", [0])
    model.passes = 2         # passes in a row do not end a game whose end is triggered
    model.to_move = 1
    assert not model.is_over()


def test_result_ranks_and_reasons():
    model = Model.from_position(TWO_NOBLES)
    model.final = 1
    model.to_move = 0
    result = model.result()
    assert result["reason"] == "points"
    assert result["points"] == [0, 0]
    assert result["cards"] == [11, 0]
    assert result["ranks"] == [2, 1]
    assert result["winners"] == [1]
    model.final = 0
    model.passes = 2
    assert model.result()["reason"] == "stalemate"
    assert model.result()["winners"] == []
    model.passes = 0
    with pytest.raises(ValueError):
        model.result()
    model.turn = 200
    assert model.result()["reason"] == "cap"
    assert model.legal_moves() == set()


@pytest.mark.parametrize("bad", [
    "",
    TWO_NOBLES.replace("SPN1", "SPN2"),
    TWO_NOBLES.replace(" 004420:-:-:-", ""),
    TWO_NOBLES.replace("000005", "000015"),                 # token total wrong
    TWO_NOBLES.replace("11,15,20,29", "11,15,20,-"),        # empty slot, deck not empty
    TWO_NOBLES.replace("0,1,3 0/0", "0,1 0/0"),             # noble count
    TWO_NOBLES.replace("0,1,3 0/0", "1,0,3 0/0"),           # not increasing
    TWO_NOBLES.replace("0/0/20/0/0", "2/0/20/0/0"),         # seat out of range
    TWO_NOBLES.replace("74,76,*84", "74,76,*84,70"),        # card twice / 4 reserved
    TWO_NOBLES.replace("/" + ids(44, 69) + "/", "/?26/"),   # public position
    TWO_NOBLES.replace("SPN1 2 ", "SPN1 2:cap=x "),
    TWO_NOBLES.replace("SPN1 2 ", "SPN1 2:foo=3 "),
])
def test_malformed_positions_rejected(bad):
    with pytest.raises(ValueError):
        Model.from_position(bad)


def test_cap_option_round_trip():
    text = TWO_NOBLES.replace("SPN1 2 ", "SPN1 2:cap=60 ")
    assert Model.from_position(text).position() == text
    default = TWO_NOBLES.replace("SPN1 2 ", "SPN1 2:cap=100 ")
    assert Model.from_position(default).position() == TWO_NOBLES


def test_data_tables():
    assert len(CARDS) == 90 and len(rules_model.NOBLES) == 10
    assert [card.level for card in CARDS] == [1] * 40 + [2] * 30 + [3] * 20
    assert sum(card.points for card in CARDS) == 5 + 55 + 80
