"""Hand-made SPN2 positions with EXACT legal-move sets for each Cities of Splendor ability and edge
case of RULES.md (module part) and docs/MODULES.md, checked on the engine through the public State
API and on the rules model alike, so that both implementations are pinned by the same expected sets.

The positions are those of the rules model's own tests (tests/test_rules_model_modules.py, built
with its `spn2`/`seat` helpers) plus a few edge cases of this file. Every case also checks that
the two implementations list the same whole turns on the position and reach the same position
after each of them."""
import pytest

from rules_model import ORIENT_CARDS, Model
from splendor_ai import State
from test_rules_model_modules import (BASE_MARKET, CITY_MARKET, MEETS6, ORIENT_MARKET,
                                      cities_position, ids, seat, spn2)


def legal(st) -> set[str]:
    """The whole turns of a true state: a two-step turn's first step is completed by each of
    its second steps (docs/RULES.md, "Two-step turns"); the model lists whole turns."""
    out = set()
    for m in st.legal_moves:
        if st.is_partial(m):
            mid = st.copy()
            mid.push(m)
            out |= {str(w) for w in mid.legal_moves}
        else:
            out.add(str(m))
    return out


def starting(moves, prefix):
    return {m for m in moves if m.split("/")[0] == prefix}


def both(text):
    """The engine's State and the model on one position (each writes it back unchanged)."""
    st = State.from_position(text)
    model = Model.from_position(text)
    assert st.position() == text == model.position()
    return st, model


def play(text, move):
    """Play one move on both: the resulting positions agree; returns the engine's State."""
    st, model = both(text)
    st.push(move)
    model.apply(move)
    assert st.position() == model.position()
    return st


OM = ORIENT_MARKET
L3_ORIENT = [card.id for card in ORIENT_CARDS if card.level == 3]
SH_OPEN = [4, 1, 2, 3, 40, 42, 43, 70, 71, 72, 73]   # card 0 bought; card 4 refills its slot at once
CONQ_OPEN = [0, 1, 3, 40, 41, 43, 70, 71, 72, 73]
# trading posts held must be met (the Python layer checks it both ways): 1 white + 3 red (power 0),
# 2 white (power 1), 3 blue + 1 black (power 2)
P0, P1, P2 = [4, 24, 25, 26], [4, 5], [8, 9, 10, 32]
SAC_PAIRS = [(32, 33), (32, 96), (32, 104), (33, 96), (33, 104), (96, 104)]

# (name, position, prefix of the main action or None for the whole set, expected moves)
CASES = [
    # -- the Orient --------------------------------------------------------------------------------
    ("gold card pays 2 after gold tokens",
     spn2("orient", [[24, 1, 2, 3, 95, 91], OM[1], OM[2]], [seat("100001", cards=[90, 92]), seat()]),
     "b24", {"b24"}),
    ("gold cards: 5 missing is 1 gold + 2 cards",
     spn2("orient", [[0, 1, 2, 3, 95, 91], [45, 44, 42, 43, 108, 105], OM[2]],
          [seat("000001", cards=[90, 92]), seat()]), "b44", {"b44"}),
    ("gold cards: 6 missing is too much",
     spn2("orient", [[0, 1, 2, 3, 95, 91], [45, 44, 42, 43, 108, 105], OM[2]],
          [seat("000001", cards=[90, 92]), seat()]), "b45", set()),
    ("a gold card is not a token: reserving at 10 tokens returns one",
     spn2("orient", OM, [seat("222220", cards=[93]), seat()]), "r0", {"r0/-" + c for c in "wbgrky"}),
    ("orient blind reserve at 10 tokens",
     spn2("orient", OM, [seat("222220", cards=[93]), seat()]), "rO1", {"rO1/-" + c for c in "wbgrky"}),
    ("no coloured card: no joker bought (a gold card is no colour)",
     spn2("orient", [[0, 1, 2, 3, 95, 96], OM[1], OM[2]], [seat("320301", cards=[93]), seat()]),
     "b95", set()),
    ("no coloured card: the joker can be reserved",
     spn2("orient", [[0, 1, 2, 3, 95, 96], OM[1], OM[2]], [seat("320301", cards=[93]), seat()]),
     "r95", {"r95"}),
    ("joker joins a colour the buyer has",
     spn2("orient", [[0, 1, 2, 3, 95, 96], OM[1], OM[2]], [seat("320300", cards=[8, 24]), seat()]),
     "b95", {"b95/jb", "b95/jr"}),
    ("double bonus counts 2 for a noble (every turn ends with it)",
     spn2("orient", OM, [seat("000000", cards=[8, 9, 16, 17, 101, 102]), seat()], nobles="0,1,3"),
     "b1", {"b1/n1"}),
    ("reserve a noble: any face-up one",
     spn2("orient", OM, [seat("022220"), seat()], nobles="0,1,3"), "b105", {"b105/h0", "b105/h1", "b105/h3"}),
    ("reserve a noble: none face up, no effect",
     spn2("orient", OM, [seat("022220", extra="-:0,1"), seat(nobles=[3])], nobles="-"), "b105", {"b105"}),
    ("a held noble visits only its holder",
     spn2("orient", OM, [seat("000100", cards=[24, 25, 26, 32, 33, 34, 35, 103], extra="-:3"),
                         seat("000000", cards=[27, 28, 29, 30, 36, 37, 38, 39])],
          nobles="0,1", status="1/0/21/0/0"), "+wbg", {"+wbg"}),
    ("take_l1 after the joker, a free joker chains",
     spn2("orient", OM, [seat("430010", cards=[8]), seat()]), "b108",
     {"b108/jb/f%d" % c for c in (0, 1, 2, 3, 90)} | {"b108/jb/f95/jb"}),
    ("take_l2 chains through reserve-noble and take_l1 cards",
     spn2("orient", OM, [seat("143002"), seat()]), "b110",
     {"b110/f%d" % c for c in (40, 41, 42, 43)} | {"b110/f105/h%d" % n for n in (0, 1, 3)}
     | {"b110/f108/jw/f%d" % c for c in (0, 1, 2, 3, 90)} | {"b110/f108/jw/f95/jw"}),
    ("sacrifice: pairs in increasing order, joker and double bonus count one each",
     spn2("orient", OM, [seat("000000", cards=[4, 32, 33, 96, 104], nobles=[4], extra="96k:-"), seat()],
          nobles="0,1"), "b115", {"b115/d%d/d%d" % p for p in SAC_PAIRS}),
    ("sacrifice: one card of the colour is not enough to buy",
     spn2("orient", OM, [seat(cards=[4, 32]), seat()]), "b115", set()),
    ("sacrifice: reserving needs no cards",
     spn2("orient", OM, [seat(cards=[4, 32]), seat()]), "r115", {"r115"}),
    ("sacrifice from the hand: wrong colour",
     spn2("orient", OM, [seat(cards=[32, 104], reserved=["*119", "116"]), seat()]), "b116", set()),
    ("sacrifice from the hand",
     spn2("orient", OM, [seat(cards=[4, 5, 32, 104], reserved=["116"]), seat()]), "b116", {"b116/d4/d5"}),
    ("an empty Orient deck: no blind reserve from it",
     spn2("orient", [OM[0], OM[1], [70, 71, 72, 73, 110, 111]], [seat(), seat()],
          board=ids(sorted(set(L3_ORIENT) - {110, 111}))), "rO3", set()),
    # -- the Cities --------------------------------------------------------------------------------
    ("one city met: claimed automatically, named",
     cities_position(MEETS6, "6,8,13"), "+wbg", {"+wbg/c6"}),
    ("one city short of a colour: nothing",
     cities_position([c for c in MEETS6 if c != 34], "6,8,13"), "+wbg", {"+wbg"}),
    ("two cities met: a choice",
     cities_position(MEETS6 + [73], "4,6,8"), "+wbg", {"+wbg/c4", "+wbg/c6"}),
    ("same_colour: 8 green is not 4 green + 4 of another colour",
     cities_position([79, 80, 83, 40, 52, 16, 17, 18, 19, 20], "2,8,13"), "+wbr", {"+wbr/c2"}),
    ("same_colour: 4 green + 4 red",
     cities_position([79, 80, 83, 40, 52, 16, 27, 28, 29], "2,8,13"), "+wbr", {"+wbr/c8"}),
    ("cities: prestige one short, reached by the purchase",
     cities_position([79, 80, 83, 52, 16, 27, 28, 29], "2,8,13"), None, None),
    ("cities: points alone do not end the game",
     cities_position([70, 71, 72, 73, 74], "0,6,12"), "+wbg", {"+wbg"}),
    # -- the Trading Posts -------------------------------------------------------------------------
    ("power 0: a gem after the purchase, only colours in the bank",
     spn2("posts", BASE_MARKET, [seat("030000", cards=P0, extra="0"), seat("004000")]), "b1",
     {"b1/+w", "b1/+b", "b1/+r", "b1/+k"}),
    ("power 0: no gem after taking",
     spn2("posts", BASE_MARKET, [seat("030000", cards=P0, extra="0"), seat("004000")]), "+wbr", {"+wbr"}),
    ("power 0: the returns follow the gem",
     spn2("posts", BASE_MARKET, [seat("222220", cards=P0 + [8, 9, 10], extra="0"), seat()]), "b1",
     {"b1/+%s/-%s" % (g, r) for g in "wbgrk" for r in "wbgrk"}),
    ("power 0 with an empty bank of gems: no gem decision",
     spn2("posts", BASE_MARKET, [seat("222220", cards=P0 + [8, 9, 10], extra="0"), seat("222220")]), "b1",
     {"b1"}),
    ("power 1: another colour after taking two",
     spn2("posts", BASE_MARKET, [seat(cards=P1, extra="1"), seat()]), "+rr", {"+rr/+w", "+rr/+b", "+rr/+g", "+rr/+k"}),
    ("power 1: nothing after taking three",
     spn2("posts", BASE_MARKET, [seat(cards=P1, extra="1"), seat()]), "+wbg", {"+wbg"}),
    ("power 1: no other colour in the bank, no extra gem",
     spn2("posts", BASE_MARKET, [seat(cards=P1, extra="1"), seat("550000"), seat("005050")],
          nobles="0,1,3,5", status="0/0/9/0/0"), "+rr", {"+rr"}),
    ("power 2: 3 gold pay 6 of one colour",
     spn2("posts", [BASE_MARKET[0], [45, 41, 42, 43], BASE_MARKET[2]], [seat("000003", cards=P2, extra="2"), seat()]),
     "b45", {"b45"}),
    ("power 2: 2 gold do not",
     spn2("posts", [BASE_MARKET[0], [45, 41, 42, 43], BASE_MARKET[2]], [seat("000002", cards=P2, extra="2"), seat()]),
     "b45", set()),
    ("power 2: one gold per colour missing",
     spn2("posts", BASE_MARKET, [seat("102201", cards=P2, extra="2"), seat()]), "b40", set()),
    ("power 4 claimed by the third black card",
     spn2("posts", [[36, 1, 2, 3], BASE_MARKET[1], BASE_MARKET[2]], [seat("003000", cards=[32, 33]), seat()]),
     "b36", {"b36"}),
    # -- the Strongholds ---------------------------------------------------------------------------
    ("stronghold action after a purchase: place, move, remove (the slot refilled at once)",
     spn2("strongholds", BASE_MARKET, [seat("310010", extra="2"), seat(extra="2")], board="1=0x1,41=1x1"),
     "b0", {"b0/t%d" % c for c in SH_OPEN} | {"b0/m1:%d" % c for c in SH_OPEN if c != 1} | {"b0/x41"}),
    ("another seat's stronghold card can't be bought",
     spn2("strongholds", BASE_MARKET, [seat("030000"), seat(extra="1")], board="1=1x2"), "b1", set()),
    ("another seat's stronghold card can't be reserved",
     spn2("strongholds", BASE_MARKET, [seat("030000"), seat(extra="1")], board="1=1x2"), "r1", set()),
    ("the owner reserves its stronghold card",
     spn2("strongholds", BASE_MARKET, [seat("030000", extra="1"), seat()], board="1=0x2"), "r1", {"r1"}),
    ("the owner buys its stronghold card: they come back, then the action",
     spn2("strongholds", BASE_MARKET, [seat("030000", extra="1"), seat()], board="1=0x2"), "b1",
     {"b1/t%d" % c for c in [0, 4, 2, 3, 40, 41, 42, 43, 70, 71, 72, 73]}),
    ("conquest after taking tokens (declining writes nothing)",
     spn2("strongholds", BASE_MARKET, [seat("022010", extra="0"), seat(extra="2")], board="2=0x3,42=1x1"),
     "+wrk", {"+wrk"} | {"+wrk/b2/t%d" % c for c in CONQ_OPEN} | {"+wrk/b2/x42"}),
    ("conquest not affordable",
     spn2("strongholds", BASE_MARKET, [seat("020010", extra="0"), seat(extra="2")], board="2=0x3,42=1x1"),
     "+wrk", {"+wrk"}),
    ("remove one of an opponent's three strongholds",
     spn2("strongholds", BASE_MARKET, [seat("030000", extra="3"), seat(extra="0")], board="41=1x3"),
     "b1", {"b1/x41"} | {"b1/t%d" % c for c in [0, 4, 2, 3, 40, 42, 43, 70, 71, 72, 73]}),
]


@pytest.mark.parametrize("name, text, prefix, expected", [c for c in CASES if c[3] is not None],
                         ids=[c[0] for c in CASES if c[3] is not None])
def test_exact_moves_on_engine_and_model(name, text, prefix, expected):
    st, model = both(text)
    engine, reference = legal(st), model.legal_moves()
    if prefix is not None:
        engine, reference = starting(engine, prefix), starting(reference, prefix)
    assert engine == expected
    assert reference == expected
    assert {str(m) for m in st.legal_moves} == model.legal_steps()


POSITIONS = {}
for _name, _text, *_ in CASES:
    POSITIONS.setdefault(_text, _name)


@pytest.mark.parametrize("text", list(POSITIONS), ids=list(POSITIONS.values()))
def test_same_turns_and_positions_after_the_moves(text):
    """Same whole-turn set; the same position after each move (at most 40 of them, spread)."""
    st, model = both(text)
    moves = sorted(legal(st))
    assert moves == sorted(model.legal_moves())
    for move in moves[::max(1, len(moves) // 40)]:
        other = model.copy()
        other.apply(move)
        st.push(move)
        assert st.position() == other.position(), move
        st.pop()


def test_orient_gold_card_spent_whole():
    st = play(spn2("orient", [[24, 1, 2, 3, 95, 91], OM[1], OM[2]], [seat("100001", cards=[90, 92]), seat()]),
              "b24")
    s = st.seats[0]
    assert s.cards == (24, 92) and s.tokens == (0,) * 6 and st.discard == (90,)
    assert st.bank[0] == 4 and st.bank[5] == 5 and s.gold_cards == (92,)


def test_orient_joker_and_double_bonus():
    st = play(spn2("orient", [[0, 1, 2, 3, 95, 96], OM[1], OM[2]], [seat("320300", cards=[8, 24]), seat()]),
              "b95/jr")
    assert st.seats[0].jokers == ((95, 3),) and st.seats[0].bonuses == (0, 1, 0, 2, 0)
    st = State(spn2("orient", OM, [seat("000000", cards=[8, 9, 16, 17, 101, 102]), seat()], nobles="0,1,3"))
    assert st.seats[0].bonuses == (0, 4, 4, 0, 0)
    assert all(m.endswith("/n1") for m in legal(st))
    st.push("b1/n1")
    assert st.seats[0].nobles == (1,) and len(st.seats[0].cards) == 7 and st.seats[0].points == 3


def test_orient_held_noble_and_sacrifice():
    text = spn2("orient", OM, [seat("000100", cards=[24, 25, 26, 32, 33, 34, 35, 103], extra="-:3"),
                               seat("000000", cards=[27, 28, 29, 30, 36, 37, 38, 39])],
                nobles="0,1", status="1/0/21/0/0")
    st = play(text, "+wbg")
    moves = legal(st)
    assert {m for m in moves if not m.endswith("/n3")} == {
        "b115/d%d/d%d" % p for p in [(32, 33), (32, 34), (32, 35), (33, 34), (33, 35), (34, 35)]}
    st.push("r0/n3")
    assert st.seats[0].nobles == (3,) and st.seats[0].held_nobles == () and st.seats[0].points == 3
    st = play(spn2("orient", OM, [seat("000000", cards=[4, 32, 33, 96, 104], nobles=[4], extra="96k:-"),
                                  seat()], nobles="0,1"), "b115/d33/d96")
    s = st.seats[0]
    assert s.cards == (4, 32, 104, 115) and s.jokers == () and st.discard == (33, 96)
    assert s.nobles == (4,) and s.points == 6 and s.bonuses == (2, 0, 0, 0, 3)


def test_orient_free_cards_refill_their_own_slots():
    text = spn2("orient", OM, [seat("143002"), seat()])
    model = Model.from_position(text)
    l2_top, l3_top = model.decks[4][0], model.decks[5][0]
    st = play(text, "b110/f108/jw/f95/jw")
    assert st.seats[0].cards == (95, 108, 110) and st.seats[0].bonuses == (3, 0, 0, 0, 0)
    assert st.market[1][4] == l2_top and st.market[2][4] == l3_top


def test_cities_end_and_winner():
    st = play(cities_position(MEETS6, "6,8,13"), "+wbg/c6")
    assert st.cities == (8, 13) and st.seats[0].cities == (6,) and st.final_round
    assert st.seats[0].points == 11 and not st.is_over()
    st.push("+wbg")
    assert st.is_over() and not st.legal_moves
    r = st.result()
    assert r.reason == "points" and r.winners == (0,) and r.ranks == (1, 2)
    # one prestige short: only the 1-point card 7 (4 green, free here) reaches city 8 this turn
    st = State(cities_position([79, 80, 83, 52, 16, 27, 28, 29], "2,8,13"))
    assert {m for m in legal(st) if "/c" in m} == {"b7/c8"}
    st = play(cities_position([70, 71, 72, 73, 74], "0,6,12"), "+wbg")
    st.push("+wbg")
    assert not st.final_round and not st.is_over()


def test_posts_claims_points_and_end():
    st = play(spn2("posts", [[36, 1, 2, 3], BASE_MARKET[1], BASE_MARKET[2]],
                   [seat("003000", cards=[32, 33]), seat()]), "b36")
    assert st.seats[0].posts == (4,) and st.seats[0].points == 1
    # power 0 claimed by a purchase gives no gem that same turn
    st, _ = both(spn2("posts", [[27, 1, 2, 3], BASE_MARKET[1], BASE_MARKET[2]],
                      [seat("100000", cards=[0, 24, 25]), seat()]))
    assert starting(legal(st), "b27") == {"b27"}
    st.push("b27")
    assert st.seats[0].posts == (0,)
    # power 3: 5 green and a noble, +5
    st = play(spn2("posts", [[22, 1, 2, 3], BASE_MARKET[1], BASE_MARKET[2]],
                   [seat(cards=[16, 17, 18, 19, 24, 25, 26, 27], nobles=[2]), seat()], nobles="0,1"), "b22")
    assert st.seats[0].posts == (3,) and st.seats[0].points == 8
    # post points push over 15: the final round starts
    st = play(spn2("posts", [[36, 1, 2, 3], [42, 43, 44, 45], [73, 74, 75, 76]],
                   [seat("003000", cards=[70, 71, 72, 40, 41, 46, 32, 33], extra="1"), seat()]), "b36")
    assert st.seats[0].posts == (1, 4) and st.seats[0].points == 16 and st.final_round
    # power 2: paying 6 white with 3 gold
    st = play(spn2("posts", [BASE_MARKET[0], [45, 41, 42, 43], BASE_MARKET[2]],
                   [seat("000003", cards=P2, extra="2"), seat()]), "b45")
    assert st.seats[0].tokens == (0,) * 6 and st.bank[5] == 5


def test_strongholds_follow_their_card():
    st = play(spn2("strongholds", BASE_MARKET, [seat("310010", extra="2"), seat(extra="2")],
                   board="1=0x1,41=1x1"), "b0/x41")
    assert st.strongholds == {1: (0, 1)} and st.seats[1].strongholds == 3
    st = play(spn2("strongholds", BASE_MARKET, [seat("030000"), seat(extra="1")], board="1=1x2"), "rL1")
    st.push("r1")
    assert st.strongholds == {} and st.seats[1].strongholds == 3
    st = play(spn2("strongholds", BASE_MARKET, [seat("030000", extra="1"), seat()], board="1=0x2"), "b1/t2")
    assert st.strongholds == {2: (0, 1)} and st.seats[0].strongholds == 2 and st.market[0][1] == 4
    st = play(spn2("strongholds", BASE_MARKET, [seat("030000", extra="3"), seat(extra="0")], board="41=1x3"),
              "b1/x41")
    assert st.strongholds == {41: (1, 2)} and st.seats[1].strongholds == 1


def test_strongholds_conquest():
    text = spn2("strongholds", BASE_MARKET, [seat("022010", extra="0"), seat(extra="2")], board="2=0x3,42=1x1")
    top = Model.from_position(text).decks[0][0]
    st = play(text, "+wrk/b2/t3")
    s = st.seats[0]
    assert s.cards == (2,) and s.tokens == (1, 0, 0, 1, 1, 0) and s.strongholds == 2
    # the conquered slot was refilled only after the stronghold action (t3, not t<top>)
    assert st.market[0] == (0, 1, top, 3) and st.strongholds == {3: (0, 1), 42: (1, 1)}
    # the third stronghold lands on a card, then the conquest of that card in the same turn
    text = spn2("strongholds", BASE_MARKET, [seat("032010", cards=[8], extra="1"), seat()], board="2=0x2")
    st, _ = both(text)
    moves = legal(st)
    assert {"b1/t2", "b1/t2/b2/t3", "b1/t2/b2/t0"} <= moves
    assert not any(m.startswith("b1/t0/b2") for m in moves)
    # card 4 refills card 1's slot at once; card 5 refills card 2's after the conquest's action
    assert "b1/t2/b2/t4" in moves and not any("t5" in m.split("/") for m in moves)
    first, second = Model.from_position(text).decks[0][:2]
    st = play(text, "b1/t2/b2/t0")
    assert st.seats[0].cards == (1, 2, 8) and st.strongholds == {0: (0, 1)} and st.seats[0].tokens == (0,) * 6
    assert st.market[0] == (0, first, second, 3)
