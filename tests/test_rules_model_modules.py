"""Self-checks of the plain-Python rules model (tests/rules_model.py) for the four
Cities of Splendor modules (docs/MODULES.md): SPN2 positions, v2 whole-turn moves with
their decisions, the module end and winner rules, and random games with invariants."""

import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from rules_model import (CARDS, CITIES, ORIENT_CARDS,  # noqa: E402
                         Model)
from test_rules_model import check_invariants, play_random_game  # noqa: E402


SUPPLY = {2: 4, 3: 5, 4: 7}


# ---------------------------------------------------------------------------
# Building hand-made SPN2 positions
# ---------------------------------------------------------------------------

def seat(tokens="000000", cards=(), reserved=(), nobles=(), extra=None):
    """One seat of `spn2`; `extra` is the module field(s) (default: empty / 3 strongholds)."""
    return {"tokens": tokens, "cards": sorted(cards), "reserved": list(reserved),
            "nobles": sorted(nobles), "extra": extra}


def ids(values, separator=","):
    return separator.join(str(value) for value in values) if values else "-"


def spn2(module, market, seats, nobles="0,1,3", board="-", status="0/0/10/0/0",
         players_field=None, bank=None, skip_decks=()):
    """An SPN2 true position: the decks hold every card not placed elsewhere, in
    increasing id order (minus `skip_decks`, which must then be placed in `board`); the
    bank holds the supply minus the seats' tokens."""
    players = len(seats)
    orient = module == "orient"
    used = set(skip_decks)
    for row in market:
        used.update(card_id for card_id in row if card_id is not None)
    for entry in seats:
        used.update(entry["cards"])
        used.update(int(text.lstrip("*")) for text in entry["reserved"])
    if orient and board != "-":
        used.update(int(card_id) for card_id in board.split(","))
    decks = []
    for level in (1, 2, 3):
        decks.append([card.id for card in CARDS if card.level == level and card.id not in used])
    if orient:
        for level in (1, 2, 3):
            decks.append([card.id for card in ORIENT_CARDS
                          if card.level == level and card.id not in used])
    if bank is None:
        gems = SUPPLY[players]
        bank_counts = [gems] * 5 + [5]
        for entry in seats:
            for colour in range(6):
                bank_counts[colour] -= int(entry["tokens"][colour])
        bank = "".join(str(count) for count in bank_counts)
    default_extra = {"cities": "-", "orient": "-:-", "posts": "-", "strongholds": "3"}[module]
    fields = ["SPN2", players_field or "%d:%s" % (players, module), bank,
              "/".join(",".join("-" if c is None else str(c) for c in row) for row in market),
              "/".join(ids(deck, ".") for deck in decks), nobles, status, board]
    for entry in seats:
        fields.append("%s:%s:%s:%s:%s" % (
            entry["tokens"], ids(entry["cards"]), ids(entry["reserved"]), ids(entry["nobles"]),
            entry["extra"] if entry["extra"] is not None else default_extra))
    return " ".join(fields)


BASE_MARKET = [[0, 1, 2, 3], [40, 41, 42, 43], [70, 71, 72, 73]]
ORIENT_MARKET = [[0, 1, 2, 3, 95, 90], [40, 41, 42, 43, 108, 105],
                 [70, 71, 72, 73, 110, 115]]


def parse(text):
    """Parse and check the round trip."""
    model = Model.from_position(text)
    assert model.position() == text
    return model


def starting(moves, prefix):
    return {move for move in moves if move.split("/")[0] == prefix}


# ---------------------------------------------------------------------------
# Invariants and random games
# ---------------------------------------------------------------------------

EXPECTED_DECISIONS = {
    "cities": {"-", "c"},
    "orient": {"-", "n", "j", "h", "f", "d"},
    "posts": {"-", "n", "+"},
    "strongholds": {"-", "n", "t", "m", "x", "b"},
}


@pytest.mark.parametrize("module", ["cities", "orient", "posts", "strongholds"])
def test_random_games(module):
    seen = set()
    for players in (2, 3, 4):
        model, tokens = play_random_game(module, players, players + 10)
        seen |= tokens
        result = model.result()
        assert result["points"] == [s.points() for s in model.seats]
        assert result["cards"] == [len(s.cards) for s in model.seats]
        if result["reason"] == "points":
            assert model.final == 1 and model.to_move == model.first_player
            assert result["winners"] == [i for i, r in enumerate(result["ranks"]) if r == 1]
            if module == "cities":
                assert all(model.seats[i].cities for i in result["winners"])
            else:
                assert max(result["points"]) >= 15
        else:
            assert result["winners"] == []
    # Every kind of decision of the module showed up somewhere in the legal moves.
    assert EXPECTED_DECISIONS[module] <= seen, EXPECTED_DECISIONS[module] - seen


def test_generic_turn_procedure_matches_base_code():
    """The module turn procedure, run without a module, lists the same turns as the base
    code, and reaches the same positions."""
    rng = random.Random(5)
    for players in (3,):
        model = Model.new(players, players)
        while not model.is_over():
            moves = model.legal_moves()
            assert model.turn_legal_moves() == moves
            move = rng.choice(sorted(moves))
            other = model.copy()
            other._m_run_turn(other._m_turns()[move], False)
            model.apply(move)
            assert other.position() == model.position()


# ---------------------------------------------------------------------------
# Setup and positions
# ---------------------------------------------------------------------------

def test_new_module_games():
    for players in (2, 3, 4):
        orient = Model.new(players, 3, module="orient")
        assert [len(row) for row in orient.market] == [6, 6, 6]
        assert [len(deck) for deck in orient.decks] == [36, 26, 16, 8, 8, 8]
        assert len(orient.nobles) == players + 1
        cities = Model.new(players, 3, module="cities")
        assert cities.nobles == [] and len(cities.cities) == 3
        assert len({CITIES[c].tile for c in cities.cities}) == 3
        assert cities.position().split(" ")[5] == "-"
        strongholds = Model.new(players, 3, module="strongholds", cap=40)
        assert [s.sh_hand for s in strongholds.seats] == [3] * players
        assert strongholds.position().startswith("SPN2 %d:strongholds,cap=40 " % players)
        posts = Model.new(players, 3, module="posts")
        for model in (orient, cities, strongholds, posts):
            parse(model.position())
            check_invariants(model)
    # The regular deal is the base game's deal.
    base = Model.new(3, 9)
    assert Model.new(3, 9, module="posts").market == base.market
    assert [row[:4] for row in Model.new(3, 9, module="orient").market] == base.market
    with pytest.raises(ValueError):
        Model.new(2, 1, module="nobles")


def test_spn2_examples_round_trip():
    text = spn2("orient", ORIENT_MARKET,
                [seat("100001", cards=[8, 91, 96, 101], reserved=["44", "*116"],
                      extra="96b:4"),
                 seat(cards=[24], nobles=[2])],
                nobles="0", board="93,99")
    model = parse(text)
    assert model.seats[0].jokers == {96: 1} and model.seats[0].held == [4]
    assert model.seats[0].bonuses() == [0, 4, 0, 0, 0]      # 8, joker on blue, double blue
    assert model.discard == [93, 99]
    assert " 93,99 " in text and ":96b:4 " in text
    text = spn2("strongholds", BASE_MARKET,
                [seat(extra="1"), seat(extra="2")], board="1=0x2,41=1x1,73=0x0".replace(",73=0x0", ""))
    model = parse(text)
    assert model.strongholds == {1: [0, 2], 41: [1, 1]}
    text = spn2("cities", BASE_MARKET, [seat(cards=[4], extra="4"), seat()], nobles="-",
                board="6,13", status="1/0/11/1/0", players_field="2:cities,cap=60")
    model = parse(text)
    assert model.cap == 60 and model.cities == [6, 13] and model.seats[0].cities == [4]
    text = spn2("posts", BASE_MARKET, [seat(extra="0,4"), seat()], status="1/0/3/0/0")
    assert parse(text).seats[0].posts == [0, 4]
    # Options in another order are read, and written back canonically.
    other = text.replace("SPN2 2:posts", "SPN2 2:cap=100,posts")
    assert Model.from_position(other).position() == text


GOOD_ORIENT = spn2("orient", ORIENT_MARKET, [seat(cards=[95], extra="95w:-"), seat()])
GOOD_SH = spn2("strongholds", BASE_MARKET, [seat(extra="1"), seat(extra="3")],
               board="1=0x2")


@pytest.mark.parametrize("bad", [
    GOOD_ORIENT.replace("SPN2 2:orient", "SPN2 2"),                   # no module
    GOOD_ORIENT.replace("SPN2 2:orient", "SPN2 2:orient,posts"),      # two modules
    GOOD_ORIENT.replace("SPN2", "SPN1"),                               # v1 with a module
    GOOD_ORIENT.replace(":95w:-", ":-:-"),                             # joker without colour
    GOOD_ORIENT.replace(":95w:-", ":95y:-"),                           # gold is no colour
    GOOD_ORIENT.replace("0,1,2,3,95,90", "0,1,2,95,3,90"),             # Orient card in slot 4
    GOOD_ORIENT.replace("0,1,2,3,95,90", "0,1,2,3,95"),                # 5 slots
    GOOD_ORIENT.replace(" 0,1,3 ", " 0,1 "),                           # noble count
    GOOD_SH.replace(" 1=0x2 ", " 1=0x1 "),                             # hand + board != 3
    GOOD_SH.replace(" 1=0x2 ", " 5=0x2 "),                             # card not face up
    GOOD_SH.replace(":-:-:-:3", ":-:-:-:4"),
    spn2("strongholds", BASE_MARKET, [seat(extra="1"), seat(extra="2")],
         board="41=1x1,1=0x2"),                                        # not market order
    spn2("cities", BASE_MARKET, [seat(), seat()], nobles="0,1,3", board="6,7,13"),
    spn2("cities", BASE_MARKET, [seat(), seat()], nobles="-", board="6,7,13"),  # tile 4 twice
    spn2("cities", BASE_MARKET, [seat(), seat()], nobles="-", board="6,13"),    # 2 cities
    spn2("posts", BASE_MARKET, [seat(extra="5"), seat()]),
    spn2("posts", BASE_MARKET, [seat(cards=[95]), seat()]),            # an Orient card
])
def test_malformed_spn2_rejected(bad):
    with pytest.raises(ValueError):
        Model.from_position(bad)


def test_spn1_still_read_and_written():
    model = Model.new(2, 4)
    text = model.position()
    assert text.startswith("SPN1 2 ")
    assert parse(text).module is None


# ---------------------------------------------------------------------------
# The Orient
# ---------------------------------------------------------------------------

def test_orient_gold_cards_pay_after_gold_tokens():
    # Card 24 (red) costs 3 white. Seat 0: 1 white, 1 gold, gold cards 90 and 92.
    # Missing 2: 1 gold token, then gold card 90 whole (the lowest id).
    text = spn2("orient", [[24, 1, 2, 3, 95, 91], ORIENT_MARKET[1], ORIENT_MARKET[2]],
                [seat("100001", cards=[90, 92]), seat()])
    model = parse(text)
    assert "b24" in model.legal_moves()
    model.apply("b24")
    s = model.seats[0]
    assert s.cards == [24, 92] and s.tokens == [0] * 6 and model.discard == [90]
    assert model.bank[0] == 4 and model.bank[5] == 5
    check_invariants(model)
    # Card 45 (6 white): missing 6 > 1 gold + 2 x 2 jokers; card 44 (5 red): 5 <= 5.
    text = spn2("orient", [[0, 1, 2, 3, 95, 91], [45, 44, 42, 43, 108, 105], ORIENT_MARKET[2]],
                [seat("000001", cards=[90, 92]), seat()])
    model = parse(text)
    buys = {move for move in model.legal_moves() if move.startswith("b")}
    assert "b44" in buys and "b45" not in buys
    model.apply("b44")
    assert model.seats[0].cards == [44] and model.discard == [90, 92]


def test_orient_gold_cards_are_not_tokens():
    # 10 tokens and a gold card: reserving brings 11 tokens, one token goes back.
    model = parse(spn2("orient", ORIENT_MARKET, [seat("222220", cards=[93]), seat()]))
    moves = model.legal_moves()
    assert starting(moves, "r0") == {"r0/-" + c for c in "wbgrky"}
    assert "rO1/-y" in moves and "rO1" not in moves


def test_orient_joker_needs_a_coloured_bonus():
    market = [[0, 1, 2, 3, 95, 96], ORIENT_MARKET[1], ORIENT_MARKET[2]]
    # No card at all (a gold card is no coloured bonus): the jokers can't be bought,
    # but can be reserved.
    model = parse(spn2("orient", market, [seat("320301", cards=[93]), seat()]))
    moves = model.legal_moves()
    assert "r95" in moves and "r96" in moves
    assert not starting(moves, "b95") and not starting(moves, "b96")
    # Blue and red bonuses: the joker joins one of them (and only them).
    model = parse(spn2("orient", market, [seat("320300", cards=[8, 24]), seat()]))
    assert starting(model.legal_moves(), "b95") == {"b95/jb", "b95/jr"}
    model.apply("b95/jr")
    s = model.seats[0]
    assert s.jokers == {95: 3} and s.bonuses() == [0, 1, 0, 2, 0]
    assert s.tokens == [0, 2, 0, 2, 0, 0]
    text = model.position()
    assert ":95r:-" in text
    parse(text)


def test_orient_slots_refill_from_their_own_deck():
    model = parse(spn2("orient", [[0, 1, 2, 3, 95, 96], ORIENT_MARKET[1], ORIENT_MARKET[2]],
                       [seat("320300", cards=[8, 24]), seat()]))
    orient_top, regular_top = model.decks[3][0], model.decks[0][0]
    model.apply("b95/jb")
    assert model.market[0] == [0, 1, 2, 3, orient_top, 96]
    model.apply("r1")
    assert model.market[0][1] == regular_top


def test_orient_double_bonus_counts_two_and_is_one_card():
    # 101 is a blue double bonus, 102 a green one. With 8, 9 (blue) and 16, 17 (green):
    # 4 blue, 4 green: noble 1 visits at the end of any turn.
    model = parse(spn2("orient", ORIENT_MARKET,
                       [seat("000000", cards=[8, 9, 16, 17, 101, 102]), seat()],
                       nobles="0,1,3"))
    assert model.seats[0].bonuses() == [0, 4, 4, 0, 0]
    moves = model.legal_moves()
    assert moves and all(move.endswith("/n1") for move in moves)
    assert "b40/n1" not in moves                          # 2 white, 3 blue, 3 red: no
    assert "b1/n1" in moves                               # 3 blue: free with 4 blue
    model.apply("b1/n1")
    assert model.seats[0].nobles == [1] and len(model.seats[0].cards) == 7


def test_orient_reserve_noble_and_held_noble_visits_later():
    # 105 (white, reserve a noble) costs 2 blue 2 green 2 red 2 black.
    text = spn2("orient", ORIENT_MARKET, [seat("022220"), seat()], nobles="0,1,3")
    model = parse(text)
    assert starting(model.legal_moves(), "b105") == {"b105/h0", "b105/h1", "b105/h3"}
    model.apply("b105/h3")
    assert model.seats[0].held == [3] and model.nobles == [0, 1]
    assert model.seats[0].points() == 1
    assert ":-:3 " in model.position() + " "
    # A held noble is nobody else's; it visits its holder once met (4 red 4 black).
    text = spn2("orient", ORIENT_MARKET,
                [seat("000100", cards=[24, 25, 26, 32, 33, 34, 35, 103], extra="-:3"),
                 seat("000000", cards=[27, 28, 29, 30, 36, 37, 38, 39])],
                nobles="0,1", status="1/0/20/0/0")
    model = parse(text)
    assert all("/n" not in move for move in model.legal_moves())   # seat 1 meets it: no
    model.apply("+wbg")
    moves = model.legal_moves()                                   # seat 0: 5 red, 4 black
    # Every turn ends with the visit, except sacrificing two black cards for 115.
    assert {m for m in moves if not m.endswith("/n3")} == {
        "b115/d%d/d%d" % pair for pair in
        [(32, 33), (32, 34), (32, 35), (33, 34), (33, 35), (34, 35)]}
    model.apply("r0/n3")
    assert model.seats[0].nobles == [3] and model.seats[0].held == []
    assert model.seats[0].points() == 3
    # No face-up noble left: the ability does nothing.
    text = spn2("orient", ORIENT_MARKET, [seat("022220", extra="-:0,1"), seat(nobles=[3])],
                nobles="-")
    assert starting(parse(text).legal_moves(), "b105") == {"b105"}


def test_orient_take_l1_with_joker_first():
    # 108 (joker; take_l1) costs 4 white 3 blue 1 black; seat 0 has one blue card (8).
    text = spn2("orient", ORIENT_MARKET, [seat("430010", cards=[8]), seat()])
    model = parse(text)
    expected = {"b108/jb/f%d" % c for c in (0, 1, 2, 3, 90)} | {"b108/jb/f95/jb"}
    assert starting(model.legal_moves(), "b108") == expected
    l1_orient_top = model.decks[3][0]
    model.apply("b108/jb/f95/jb")
    s = model.seats[0]
    assert s.cards == [8, 95, 108] and s.jokers == {95: 1, 108: 1}
    assert s.bonuses() == [0, 3, 0, 0, 0]
    assert model.market[0][4] == l1_orient_top
    check_invariants(model)


def test_orient_take_l2_chains():
    # 110 (white, take_l2) costs 1 white 6 blue 3 green: 2 gold cover 2 blue.
    text = spn2("orient", ORIENT_MARKET, [seat("143002"), seat()])
    model = parse(text)
    expected = {"b110/f%d" % c for c in (40, 41, 42, 43)}
    expected |= {"b110/f105/h%d" % n for n in (0, 1, 3)}
    expected |= {"b110/f108/jw/f%d" % c for c in (0, 1, 2, 3, 90)} | {"b110/f108/jw/f95/jw"}
    assert starting(model.legal_moves(), "b110") == expected
    l2_orient_top, l3_orient_top = model.decks[4][0], model.decks[5][0]
    model.apply("b110/f108/jw/f95/jw")
    s = model.seats[0]
    assert s.cards == [95, 108, 110] and s.bonuses() == [3, 0, 0, 0, 0]
    # Each slot was refilled from its own deck.
    assert model.market[1][4] == l2_orient_top and model.market[2][4] == l3_orient_top
    check_invariants(model)


def test_orient_sacrifice_pairs_in_increasing_order():
    # 115 (white, 3 points) costs two black cards. Seat 0: black 32, 33, the black double
    # 104, the joker 96 on black, a white card, and a noble already received.
    cards = [4, 32, 33, 96, 104]
    text = spn2("orient", ORIENT_MARKET, [seat("000000", cards=cards, nobles=[4],
                                                extra="96k:-"), seat()],
                nobles="0,1")
    model = parse(text)
    pairs = [(32, 33), (32, 96), (32, 104), (33, 96), (33, 104), (96, 104)]
    assert starting(model.legal_moves(), "b115") == {"b115/d%d/d%d" % p for p in pairs}
    with pytest.raises(ValueError):
        model.apply("b115/d33/d32")
    model.apply("b115/d33/d96")
    s = model.seats[0]
    assert s.cards == [4, 32, 104, 115] and s.jokers == {} and model.discard == [33, 96]
    assert s.nobles == [4] and s.points() == 6 and s.bonuses() == [2, 0, 0, 0, 3]
    assert s.tokens == [0] * 6
    check_invariants(model)
    # One black card only: no purchase, but the card can be reserved (and bought from the
    # hand later, the same way).
    text = spn2("orient", ORIENT_MARKET, [seat(cards=[4, 32]), seat()])
    moves = parse(text).legal_moves()
    assert not starting(moves, "b115") and "r115" in moves
    text = spn2("orient", ORIENT_MARKET, [seat(cards=[32, 104], reserved=["*119", "116"]),
                                          seat()])
    assert starting(parse(text).legal_moves(), "b116") == set()
    text = spn2("orient", ORIENT_MARKET, [seat(cards=[4, 5, 32, 104], reserved=["116"]),
                                          seat()])
    assert starting(parse(text).legal_moves(), "b116") == {"b116/d4/d5"}


def test_orient_blind_reserves():
    model = parse(spn2("orient", ORIENT_MARKET, [seat(), seat()]))
    moves = model.legal_moves()
    assert {"rL1", "rL2", "rL3", "rO1", "rO2", "rO3"} <= moves
    top = model.decks[4][0]
    model.apply("rO2")
    assert model.seats[0].reserved == [[top, True]] and model.seats[0].tokens[5] == 1
    assert (":*%d:" % top) in model.position()
    parse(model.position())
    # An empty Orient deck: no blind reserve from it.
    level3 = [card.id for card in ORIENT_CARDS if card.level == 3]
    text = spn2("orient", [ORIENT_MARKET[0], ORIENT_MARKET[1], [70, 71, 72, 73, 110, 111]],
                [seat(), seat()], board=ids(sorted(set(level3) - {110, 111})))
    moves = parse(text).legal_moves()
    assert "rO3" not in moves and "rO2" in moves


# ---------------------------------------------------------------------------
# The Cities
# ---------------------------------------------------------------------------

CITY_MARKET = [[4, 5, 6, 7], [44, 45, 47, 48], [77, 78, 81, 82]]
# 5 white, 3 blue, 3 red, 3 black bonuses and 11 points (71, 72: 4 each; 40, 41, 46: 1).
# City 6 (4A: 3w 3b 3r 3k, 11 points) is met; city 8 (5A, 14 points) and 13 (7B, 17) not.
MEETS6 = [0, 8, 9, 24, 25, 26, 32, 33, 34, 71, 72, 40, 41, 46]


def cities_position(cards, board, extra=None):
    return spn2("cities", CITY_MARKET, [seat(cards=cards, extra=extra), seat()], nobles="-",
                board=board)


def test_city_claimed_automatically_but_named():
    model = parse(cities_position([c for c in MEETS6 if c != 34], "6,8,13"))  # 2 black
    assert all("/c" not in move for move in model.legal_moves())
    model = parse(cities_position(MEETS6, "6,8,13"))
    assert model.seats[0].points() == 11 and model.seats[0].bonuses() == [5, 3, 0, 3, 3]
    moves = model.legal_moves()
    assert moves and all(move.endswith("/c6") for move in moves)
    assert "+wbg" not in moves
    model.apply("+wbg/c6")
    assert model.cities == [8, 13] and model.seats[0].cities == [6] and model.final == 1
    assert model.seats[0].points() == 11                     # cities give no prestige
    assert ":6 " in model.position()
    assert not model.is_over()
    model.apply("+wbg")                                      # the round is finished
    assert model.is_over() and model.legal_moves() == set()
    result = model.result()
    assert result["reason"] == "points" and result["winners"] == [0]


def test_two_cities_met_is_a_choice():
    # + card 73 (white, 5 points): 16 points, 6 white, 3 red: city 4 (3A: 13 points,
    # 4w 3r) too.
    model = parse(cities_position(MEETS6 + [73], "4,6,8"))
    moves = model.legal_moves()
    assert {"+wbg/c4", "+wbg/c6"} <= moves and "+wbg" not in moves
    assert {move.split("/")[-1] for move in moves} == {"c4", "c6"}
    assert len(moves) == 2 * len({move.rsplit("/", 1)[0] for move in moves})
    model.apply("+wbg/c4")
    assert model.cities == [6, 8] and model.seats[0].cities == [4]


def test_city_same_colour_must_be_another_colour():
    # City 8 (5A): 14 points, 4 green + 4 of one other colour.  City 2 (2A): 12 points,
    # 6 of one colour.  14 points: 79, 80 (green, 4 each), 83 (red, 4), 40 (white, 1),
    # 52 (green, 1).
    points14 = [79, 80, 83, 40, 52]
    eight_green = points14 + [16, 17, 18, 19, 20]
    model = parse(cities_position(eight_green, "2,8,13"))
    assert model.seats[0].points() == 14 and model.seats[0].bonuses() == [1, 0, 8, 1, 0]
    takes = {move for move in model.legal_moves() if move.startswith("+")}
    assert takes and all(move.endswith("/c2") for move in takes)       # not city 8
    four_four = points14 + [16, 27, 28, 29]                            # 4 green, 4 red
    model = parse(cities_position(four_four, "2,8,13"))
    takes = {move for move in model.legal_moves() if move.startswith("+")}
    assert takes and all(move.endswith("/c8") for move in takes)
    # One prestige short: only buying card 7 (1 point, 4 green: free here) reaches it.
    model = parse(cities_position([c for c in four_four if c != 40], "2,8,13"))
    assert {move for move in model.legal_moves() if "/c" in move} == {"b7/c8"}


def test_cities_points_alone_never_end_the_game():
    many = [70, 71, 72, 73, 74]                              # 19 points, no city met
    model = parse(cities_position(many, "0,6,12"))
    assert model.seats[0].points() == 19
    model.apply("+wbg")
    model.apply("+wbg")
    assert model.final == 0 and not model.is_over()


def cities_result(seats, board):
    players = len(seats)
    return parse(spn2("cities", CITY_MARKET, seats, nobles="-", board=board,
                      status="0/0/%d/1/0" % (10 * players))).result()


def test_cities_winner_rule():
    # The only city holder wins, whatever the points.
    result = cities_result([seat(cards=[0, 70], extra="6"),
                            seat(cards=[71, 72, 73, 74, 75])], "8,13")
    assert result["points"] == [3, 20] and result["ranks"] == [1, 2]
    assert result["winners"] == [0] and result["reason"] == "points"
    # Two holders: the most prestige among them.
    result = cities_result([seat(cards=[0, 70], extra="6"), seat(cards=[71, 72, 73, 74, 75]),
                            seat(cards=[10, 11, 76], extra="13")], "8")
    assert result["points"] == [3, 20, 4] and result["ranks"] == [2, 3, 1]
    assert result["winners"] == [2]
    # Equal prestige: fewest cards; still equal: a shared win.
    result = cities_result([seat(cards=[10, 85], extra="6"), seat(cards=[71, 72, 73, 74, 75]),
                            seat(cards=[89], extra="13")], "8")
    assert result["points"] == [5, 20, 5] and result["ranks"] == [2, 3, 1]
    assert result["winners"] == [2]
    result = cities_result([seat(cards=[10, 85], extra="6"), seat(cards=[71, 72, 73, 74, 75]),
                            seat(cards=[11, 89], extra="13")], "8")
    assert result["ranks"] == [1, 3, 1] and result["winners"] == [0, 2]
    # The non-holders follow by prestige, then cards.
    result = cities_result([seat(cards=[10, 85], extra="6"), seat(cards=[71]),
                            seat(cards=[11, 89], extra="13"), seat(cards=[72, 12])], "8")
    assert result["ranks"] == [1, 3, 1, 4]


# ---------------------------------------------------------------------------
# The Trading Posts
# ---------------------------------------------------------------------------

def test_post_gem_after_each_purchase():
    # Power 0. Bank: no green left.  Card 1 costs 3 blue.
    text = spn2("posts", BASE_MARKET, [seat("030000", extra="0"), seat("004000")])
    model = parse(text)
    assert model.bank[2] == 0
    assert starting(model.legal_moves(), "b1") == {"b1/+w", "b1/+b", "b1/+r", "b1/+k"}
    assert "+wbr" in model.legal_moves()                    # no gem after a take
    model.apply("b1/+b")
    assert model.seats[0].tokens == [0, 1, 0, 0, 0, 0] and model.bank[1] == 3
    # Over 10 after the extra gem: the returns follow it.  Card 1 is free here (3 blue
    # bonuses); 10 tokens + 1 gem: 5 gems x 5 colours to return.
    text = spn2("posts", BASE_MARKET,
                [seat("222220", cards=[8, 9, 10], extra="0"), seat()])
    moves = parse(text).legal_moves()
    assert "b1/+w/-w" in moves and "b1/+w" not in moves and "b1/+k/-b" in moves
    assert len(starting(moves, "b1")) == 5 * 5


def test_post_extra_gem_on_take_two_excludes_that_colour():
    text = spn2("posts", BASE_MARKET, [seat(extra="1"), seat()])
    model = parse(text)
    moves = model.legal_moves()
    assert starting(moves, "+rr") == {"+rr/+w", "+rr/+b", "+rr/+g", "+rr/+k"}
    assert "+wbg" in moves and not any(m.startswith("+wbg/") for m in moves)
    model.apply("+rr/+k")
    assert model.seats[0].tokens == [0, 0, 0, 2, 1, 0]
    # 9 tokens, +ww +b: 12, two go back.
    text = spn2("posts", BASE_MARKET, [seat("022221", extra="1"), seat()])
    moves = parse(text).legal_moves()
    assert "+ww/+b/-bb" in moves and "+ww/+b/-wy" in moves and "+ww/+b" not in moves
    assert not starting(moves, "+ww") & {"+ww/+w/-bb"}


def test_post_gold_worth_two():
    # Card 45 costs 6 white: 3 gold with power 2 (ceil(6/2)); not with 2 gold.
    market = [BASE_MARKET[0], [45, 41, 42, 43], BASE_MARKET[2]]
    model = parse(spn2("posts", market, [seat("000003", extra="2"), seat()]))
    assert "b45" in model.legal_moves()
    model.apply("b45")
    assert model.seats[0].tokens == [0] * 6 and model.bank[5] == 5
    model = parse(spn2("posts", market, [seat("000002", extra="2"), seat()]))
    assert not starting(model.legal_moves(), "b45")
    model = parse(spn2("posts", market, [seat("000003"), seat()]))       # without it
    assert not starting(model.legal_moves(), "b45")
    # Card 40 costs 2 white 3 blue 3 red: 1 white + 1 blue missing take one gold each.
    model = parse(spn2("posts", BASE_MARKET, [seat("122302", extra="2"), seat()]))
    assert "b40" in model.legal_moves()
    model.apply("b40")
    assert model.seats[0].tokens == [0, 0, 2, 0, 0, 0]
    model = parse(spn2("posts", BASE_MARKET, [seat("122301", extra="2"), seat()]))
    assert "b40" not in model.legal_moves()


def test_post_claims_and_points():
    # Seat 0 (2 black bonuses) buys a third black card (36: 3 green): power 4 is claimed
    # at the end of the turn, worth 1 point per power held.
    market = [[36, 1, 2, 3], BASE_MARKET[1], BASE_MARKET[2]]
    model = parse(spn2("posts", market, [seat("003000", cards=[32, 33]), seat()]))
    assert starting(model.legal_moves(), "b36") == {"b36"}
    model.apply("b36")
    assert model.seats[0].posts == [4] and model.seats[0].points() == 1
    assert model.position().endswith(":32,33,36:-:-:4 000000:-:-:-:-")
    # Power 0 claimed by a purchase gives no gem in that same turn.  Card 27 costs
    # 2 white 2 red; with 1 white and 2 red bonuses it needs 1 white.
    market = [[27, 1, 2, 3], BASE_MARKET[1], BASE_MARKET[2]]
    model = parse(spn2("posts", market, [seat("100000", cards=[0, 24, 25]), seat()]))
    assert starting(model.legal_moves(), "b27") == {"b27"}
    model.apply("b27")
    assert model.seats[0].posts == [0]
    # Power 3 needs 5 green and a noble: +5.  Card 22 (green) costs 3 red.
    market = [[22, 1, 2, 3], BASE_MARKET[1], BASE_MARKET[2]]
    model = parse(spn2("posts", market,
                       [seat("000300", cards=[16, 17, 18, 19], nobles=[2]), seat()],
                       nobles="0,1"))
    model.apply("b22")
    assert model.seats[0].posts == [3] and model.seats[0].points() == 3 + 5
    # With powers 0, 3 and 4: 5 + 3.
    model = parse(spn2("posts", BASE_MARKET,
                       [seat(cards=[16, 17, 18, 19, 20], nobles=[2], extra="0,3,4"), seat()],
                       nobles="0,1"))
    assert model.seats[0].points() == 3 + 5 + 3


def test_posts_push_over_fifteen_ends_the_game():
    # 14 card points (70: 3, 71: 4, 72: 4, 40, 41, 46: 1 each), 2 black bonuses, power 1
    # already held.  Buying black card 36 claims power 4: 14 + 2 = 16.
    cards = [70, 71, 72, 40, 41, 46, 32, 33]
    market = [[36, 1, 2, 3], [42, 43, 44, 45], [73, 74, 75, 76]]
    model = parse(spn2("posts", market, [seat("003000", cards=cards, extra="1"), seat()]))
    assert model.seats[0].points() == 14
    model.apply("b36")
    assert model.seats[0].posts == [1, 4] and model.seats[0].points() == 16
    assert model.final == 1

# ---------------------------------------------------------------------------
# The Strongholds
# ---------------------------------------------------------------------------

def test_stronghold_action_options_after_a_purchase():
    # Seat 0: 1 stronghold on card 1, 2 in hand. Seat 1: 1 on card 41. Seat 0 buys 0
    # (3 white 1 blue 1 black); its slot is refilled at once (card 4, the deck's top), before
    # the stronghold action, which may use the new card: a two-step turn, b0 then the rest.
    text = spn2("strongholds", BASE_MARKET, [seat("310010", extra="2"), seat(extra="2")],
                board="1=0x1,41=1x1")
    model = parse(text)
    open_cards = [4, 1, 2, 3, 40, 42, 43, 70, 71, 72, 73]
    expected = {"b0/t%d" % c for c in open_cards}
    expected |= {"b0/m1:%d" % c for c in open_cards if c != 1}
    expected |= {"b0/x41"}
    assert starting(model.legal_moves(), "b0") == expected
    assert all(model.two_step_first(m) == "b0" for m in expected)
    assert starting(model.legal_steps(), "b0") == {"b0"}
    assert "r41" not in model.legal_moves()                  # seat 1's card
    model.apply("b0/m1:4")
    assert model.strongholds == {4: [0, 1], 41: [1, 1]} and model.market[0][0] == 4
    check_invariants(model)


def test_stronghold_cards_only_for_their_owner():
    # Card 1 (3 blue) holds 2 of seat 1's strongholds: seat 0 can't buy or reserve it.
    text = spn2("strongholds", BASE_MARKET, [seat("030000"), seat(extra="1")],
                board="1=1x2")
    model = parse(text)
    moves = model.legal_moves()
    assert not starting(moves, "b1") and not starting(moves, "r1")
    model.apply("rL1")
    # Seat 1 can reserve it: its strongholds go back to its hand.
    moves = model.legal_moves()
    assert "r1" in moves
    model.apply("r1")
    assert model.strongholds == {} and model.seats[1].sh_hand == 3
    check_invariants(model)


def test_owner_buys_own_stronghold_card():
    # Seat 0 has 2 strongholds on card 1 and buys it: both go back, then the action.
    text = spn2("strongholds", BASE_MARKET, [seat("030000", extra="1"), seat()],
                board="1=0x2")
    model = parse(text)
    moves = starting(model.legal_moves(), "b1")
    assert "b1/t2" in moves and "b1/t4" in moves and not any(m.startswith("b1/m") for m in moves)
    model.apply("b1/t2")
    assert model.strongholds == {2: [0, 1]} and model.seats[0].sh_hand == 2


def test_conquest():
    # All 3 of seat 0's strongholds on card 2 (2 blue 2 green 1 black), affordable.
    text = spn2("strongholds", BASE_MARKET, [seat("022010", extra="0"), seat(extra="2")],
                board="2=0x3,42=1x1")
    model = parse(text)
    moves = model.legal_moves()
    # Declining writes nothing; conquering writes b2, then the stronghold action, with the
    # conquered slot still empty (refilled only afterwards).
    assert "+wrk" in moves
    conquests = {m for m in starting(moves, "+wrk") if m != "+wrk"}
    open_cards = [0, 1, 3, 40, 41, 43, 70, 71, 72, 73]
    assert conquests == {"+wrk/b2/t%d" % c for c in open_cards} | {"+wrk/b2/x42"}
    top = model.decks[0][0]
    model.apply("+wrk/b2/t3")
    s = model.seats[0]
    assert s.cards == [2] and s.tokens == [1, 0, 0, 1, 1, 0] and s.sh_hand == 2
    assert model.market[0] == [0, 1, top, 3] and model.strongholds == {3: [0, 1], 42: [1, 1]}
    check_invariants(model)
    # Not affordable: no conquest.
    text = spn2("strongholds", BASE_MARKET, [seat("020010", extra="0"), seat(extra="2")],
                board="2=0x3,42=1x1")
    assert starting(parse(text).legal_moves(), "+wrk") == {"+wrk"}


def test_conquest_after_the_third_stronghold_lands():
    # 2 on card 2, 1 in hand; seat 0 buys card 1 (3 blue) and places the third on 2: the
    # conquest of 2 follows in the same turn.
    # Seat 0 has a blue bonus (8): card 1 takes 2 blue, card 2 then 1 blue 2 green 1 black.
    text = spn2("strongholds", BASE_MARKET, [seat("032010", cards=[8], extra="1"), seat()],
                board="2=0x2")
    model = parse(text)
    moves = model.legal_moves()
    assert "b1/t2" in moves and "b1/t2/b2/t0" in moves
    assert not any(m.startswith("b1/t0/b2") for m in moves)
    # card 1's slot is refilled at once (card 4: a target of both stronghold actions); card 2's
    # only after the conquest's stronghold action (card 5 is no target)
    assert "b1/t4" in moves and "b1/t2/b2/t4" in moves
    assert not any("t5" in m.split("/") for m in moves)
    first, second = model.decks[0][:2]
    model.apply("b1/t2/b2/t0")
    assert model.seats[0].cards == [1, 2, 8] and model.strongholds == {0: [0, 1]}
    assert model.seats[0].tokens == [0] * 6
    assert model.market[0] == [0, first, second, 3]


def test_remove_one_of_several():
    text = spn2("strongholds", BASE_MARKET, [seat("030000", extra="3"), seat(extra="0")],
                board="41=1x3")
    model = parse(text)
    assert "b1/x41" in model.legal_moves()
    model.apply("b1/x41")
    assert model.strongholds == {41: [1, 2]} and model.seats[1].sh_hand == 1


# ---------------------------------------------------------------------------
# Moves are whole turns; nothing else is accepted
# ---------------------------------------------------------------------------

def test_incomplete_or_reordered_moves_rejected():
    model = parse(spn2("orient", ORIENT_MARKET, [seat("430010", cards=[8]), seat()]))
    for bad in ("b108", "b108/jb", "b108/f0/jb", "b108/jb/f0/n1", "b108/jr/f0", "pass"):
        with pytest.raises(ValueError):
            model.copy().apply(bad)


def test_every_move_of_busy_positions_gives_a_valid_position():
    """Apply each legal move of a few decision-heavy positions to a copy: the result is a
    valid position (round trip) and keeps the invariants."""
    texts = [
        spn2("orient", ORIENT_MARKET, [seat("143002"), seat()]),
        spn2("orient", ORIENT_MARKET, [seat("000000", cards=[4, 32, 33, 96, 104], nobles=[4],
                                            extra="96k:-"), seat()], nobles="0,1"),
        spn2("strongholds", BASE_MARKET, [seat("032010", cards=[8], extra="1"), seat()],
             board="2=0x2"),
        spn2("posts", BASE_MARKET, [seat("222220", cards=[8, 9, 10], extra="0,1"), seat()]),
        cities_position(MEETS6 + [73], "4,6,8"),
    ]
    for text in texts:
        model = parse(text)
        moves = model.legal_moves()
        assert moves
        for index, move in enumerate(sorted(moves)):
            other = model.copy()
            other.apply(move)
            check_invariants(other)
            again = parse(other.position())
            if index % 25 == 0:
                assert again.legal_moves() == other.legal_moves()
