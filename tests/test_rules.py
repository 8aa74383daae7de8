"""Rule edge cases of docs/RULES.md (base game) on hand-made positions.

Each test states the exact set of legal whole-turn moves, written out here by hand from the rules
(not computed by the engine), and where it matters the exact position after a move. Positions are
composed with tests/handmade.py, which keeps every card in exactly one place.
"""
import pytest

from handmade import TAKE3, legal, seat, spn
from splendor_ai import CARDS, Config, IllegalMoveError, Move, State, View

L1, L2, L3 = list(range(40)), list(range(40, 70)), list(range(70, 90))


def reserves(*cards, decks=(1, 2, 3)):
    return {f"r{c}" for c in cards} | {f"rL{lv}" for lv in decks}


#: the reserve moves of the default market when the seats hold no card
RES_DEFAULT = reserves(0, 1, 2, 3, 40, 41, 42, 43, 70, 71, 72, 73)


def test_helper_writes_a_canonical_true_position():
    text = spn()
    deck1 = ".".join(map(str, range(4, 40)))
    deck2 = ".".join(map(str, range(44, 70)))
    deck3 = ".".join(map(str, range(74, 90)))
    assert text == (f"SPN1 2 444445 0,1,2,3/40,41,42,43/70,71,72,73 {deck1}/{deck2}/{deck3} 0,1,2 "
                    "0/0/0/0/0 000000:-:-:- 000000:-:-:-")
    assert State(text).position() == text
    assert legal(State(text)) == set(TAKE3) | {"+ww", "+bb", "+gg", "+rr", "+kk"} | RES_DEFAULT


# -- taking gems ---------------------------------------------------------------------------------

def test_take_two_needs_four_in_the_bank():
    st = State(spn(seats=[seat("100000")]))          # the bank holds 3 white, 4 of the others
    assert st.bank == (3, 4, 4, 4, 4, 5)
    assert legal(st) == set(TAKE3) | {"+bb", "+gg", "+rr", "+kk"} | RES_DEFAULT
    with pytest.raises(IllegalMoveError):
        st.push("+ww")
    st.push("+bb")
    assert st.position() == spn(seats=[seat("120000")], to_move=1)


@pytest.mark.parametrize("held, allowed", [("100000", True), ("200000", False)])
def test_take_two_at_three_players(held, allowed):
    st = State(spn(3, seats=[seat(held)]))           # 5 per colour: 4 or 3 white left
    assert ("+ww" in st.legal_moves) is allowed
    assert "+bb" in st.legal_moves


def test_two_colours_available():
    # bank: 3 white, 2 blue, no green/red/black: only +wb, +w, +b (no take-2: fewer than 4 each)
    st = State(spn(seats=[seat("000140"), seat("124300")]))
    assert st.bank == (3, 2, 0, 0, 0, 5)
    assert legal(st) == {"+wb", "+w", "+b"} | RES_DEFAULT
    st.push("+wb")
    assert st.position() == spn(seats=[seat("110140"), seat("124300")], to_move=1)


def test_two_colours_available_one_of_them_with_four():
    st = State(spn(seats=[seat("002440"), seat("022000")], to_move=1))
    assert st.bank == (4, 2, 0, 0, 0, 5)
    assert legal(st) == {"+wb", "+w", "+b", "+ww"} | RES_DEFAULT


def test_one_colour_available():
    st = State(spn(seats=[seat("044100"), seat("300340")]))
    assert st.bank == (1, 0, 0, 0, 0, 5)
    # card 1 costs 3 blue: affordable with the 4 blue held
    assert legal(st) == {"+w", "b1"} | RES_DEFAULT
    st.push("+w")
    assert st.position() == spn(seats=[seat("144100"), seat("300340")], to_move=1)


def test_no_colour_available():
    st = State(spn(3, seats=[seat("333000"), seat("222400"), seat("000150")]))
    assert st.bank == (0, 0, 0, 0, 0, 5)
    assert legal(st) == {"b1"} | RES_DEFAULT


# -- reserving ------------------------------------------------------------------------------------

def test_three_reserved_cards_block_reserving():
    st = State(spn(seats=[seat(reserved=[40, 70, 74])]))
    assert st.market == ((0, 1, 2, 3), (41, 42, 43, 44), (71, 72, 73, 75))
    assert legal(st) == set(TAKE3) | {"+ww", "+bb", "+gg", "+rr", "+kk"}


def test_reserve_with_gold_exhausted_gives_no_gold():
    text = spn(seats=[seat(), seat("000005")])
    st = State(text)
    assert st.bank == (4, 4, 4, 4, 4, 0)
    assert legal(st) == set(TAKE3) | {"+ww", "+bb", "+gg", "+rr", "+kk"} | RES_DEFAULT
    st.push("r1")   # the slot is refilled from the top of the level-1 deck (card 4)
    assert st.position() == spn(seats=[seat(reserved=[1]), seat("000005")], market=[[0, 4, 2, 3], None, None],
                                to_move=1)
    st = State(text)
    st.push("rL2")  # the top of the level-2 deck is card 44, reserved blind
    assert st.position() == spn(seats=[seat(reserved=["*44"]), seat("000005")], to_move=1)


def test_reserve_takes_gold_and_refills_the_slot():
    st = State(spn())
    st.push("r41")
    assert st.position() == spn(seats=[seat("000001", reserved=[41])], market=[None, [40, 44, 42, 43], None],
                                to_move=1)
    st.push("rL3")
    assert st.position() == spn(seats=[seat("000001", reserved=[41]), seat("000001", reserved=["*74"])],
                                market=[None, [40, 44, 42, 43], None], turn=2)


def empty_level3_deck(tokens="000403", **kw):
    """Every level-3 card is bought or face up: seat 0 owns the white and blue ones (bonuses 4w 4b),
    seat 1 the green and red ones; the four black ones are the level-3 market. The points are far
    past 15 (irrelevant here: the position is read as given)."""
    return spn(seats=[seat(tokens, cards=range(70, 78)), seat(cards=range(78, 86))],
               market=[None, None, [86, 87, 88, 89]], nobles=[1, 3, 4], **kw)


def test_reserve_from_an_empty_deck_is_impossible():
    st = State(empty_level3_deck())
    assert st.position().split()[4].endswith("/-")
    assert st.bank == (4, 4, 4, 0, 4, 2)
    assert legal(st) == ({"+wbg", "+wbk", "+wgk", "+bgk", "+ww", "+bb", "+gg", "+kk"}
                         | reserves(0, 1, 2, 3, 40, 41, 42, 43, 86, 87, 88, 89, decks=(1, 2))
                         # bonuses 4w 4b, tokens 4 red + 3 gold
                         | {"b0", "b1", "b2", "b3", "b40", "b42", "b88"})


def test_market_slot_stays_empty_when_the_deck_is_empty():
    st = State(empty_level3_deck())
    st.push("b88")  # 7 red: 4 red and 3 gold
    after = spn(seats=[seat("000000", cards=[*range(70, 78), 88]), seat(cards=range(78, 86))],
                market=[None, None, [86, 87, None, 89]], nobles=[1, 3, 4], to_move=1, final=1)
    assert st.position() == after
    assert st.market[2] == (86, 87, None, 89)
    st = State(empty_level3_deck())
    st.push("r86")
    assert st.market[2] == (None, 87, 88, 89)
    assert {m for m in legal(st) if m.startswith("r")} == reserves(0, 1, 2, 3, 40, 41, 42, 43, 87, 88, 89,
                                                                  decks=(1, 2))


# -- buying ---------------------------------------------------------------------------------------

def test_buy_with_gold_pays_the_shortfall_exactly():
    # card 0 costs 3w 1b 1k; the white bonus of card 1 leaves 2w 1b 1k: 1w + 1b + 2 gold
    st = State(spn(seats=[seat("110202", cards=[1])]))
    assert st.market[0] == (0, 2, 3, 4)
    assert st.bank == (3, 3, 4, 2, 4, 3)
    assert legal(st) == set(TAKE3) | {"+gg", "+kk"} | reserves(0, 2, 3, 4, 40, 41, 42, 43, 70, 71, 72, 73) | {"b0"}
    st.push("b0")
    assert st.position() == spn(seats=[seat("000200", cards=[0, 1])], market=[[5, 2, 3, 4], None, None],
                                to_move=1)
    assert st.bank == (4, 4, 4, 2, 4, 5)


def test_buy_spends_coloured_gems_before_gold():
    st = State(spn(seats=[seat("210011", cards=[1])]))
    st.push("b0")
    assert st.position() == spn(seats=[seat("000001", cards=[0, 1])], market=[[5, 2, 3, 4], None, None],
                                to_move=1)


def test_buy_reserved_cards_face_up_and_blind():
    text = spn(seats=[seat("030030", reserved=[1, "*14"])])
    st = State(text)
    assert legal(st) == (set(TAKE3) | {"+ww", "+gg", "+rr"} | reserves(0, 2, 3, 4, 40, 41, 42, 43, 70, 71, 72, 73)
                         | {"b1", "b14", "b3"})
    # the opponent sees the face-up reserve, not the blind one
    assert st.view(1).position().split()[7] == "030030:-:1,?1:-"
    assert st.view(0).position().split()[7] == "030030:-:1,*14:-"
    st.push("b1")
    assert st.position() == spn(seats=[seat("000030", cards=[1], reserved=["*14"])],
                                market=[[0, 2, 3, 4], None, None], to_move=1)
    st = State(text)
    st.push("b14")
    assert st.position() == spn(seats=[seat("030000", cards=[14], reserved=[1])],
                                market=[[0, 2, 3, 4], None, None], to_move=1)


# -- the token limit ------------------------------------------------------------------------------

HOLD3 = dict(market=[[0, 1, 2, 4], [41, 42, 43, 44], [71, 72, 73, 75]])


def test_eleven_tokens_after_a_take_return_one():
    st = State(spn(seats=[seat("220220", reserved=[40, 70, 74])], **HOLD3))
    assert st.bank == (2, 2, 4, 2, 2, 5)
    returns = {"+wbg": "wbgrk", "+wbr": "wbrk", "+wbk": "wbrk", "+wgr": "wbgrk", "+wgk": "wbgrk",
               "+wrk": "wbrk", "+bgr": "wbgrk", "+bgk": "wbgrk", "+brk": "wbrk", "+grk": "wbgrk"}
    assert legal(st) == {"+gg"} | {f"{t}/-{c}" for t, cs in returns.items() for c in cs}
    st.push("+wbg/-g")  # returning a gem just taken is allowed
    assert st.position() == spn(seats=[seat("330220", reserved=[40, 70, 74])], to_move=1, **HOLD3)


RET13 = ("www wwb wwg wwr wwk wbb wbg wbr wbk wgr wgk wrr wrk wkk bbb bbg bbr bbk bgr bgk brr brk bkk "
         "grr grk gkk rrr rrk rkk kkk").split()


def test_thirteen_tokens_after_a_take_return_three():
    # 10 held (2w 2b 3r 3k), the bank has one each of white, blue, green: +wbg makes 13 (one green)
    st = State(spn(seats=[seat("220330", reserved=[40, 70, 74]), seat("113110")], **HOLD3))
    assert st.bank == (1, 1, 1, 0, 0, 5)
    assert len(RET13) == 30
    assert legal(st) == {f"+wbg/-{r}" for r in RET13}
    assert "+wbg/-ggw" not in st.legal_moves
    st.push("+wbg/-rrk")
    assert st.position() == spn(seats=[seat("331120", reserved=[40, 70, 74]), seat("113110")], to_move=1,
                                **HOLD3)


def test_reserving_at_ten_tokens_returns_one_gold_included():
    market = [[0, 2, 4, 5], [40, 41, 43, 46], None]
    text = spn(seats=[seat("442000"), seat("002440")], market=market)
    st = State(text)
    assert st.bank == (0, 0, 0, 0, 0, 5)
    actions = reserves(0, 2, 4, 5, 40, 41, 43, 46, 70, 71, 72, 73)
    assert legal(st) == {f"{a}/-{c}" for a in actions for c in "wbgy"}
    st.push("r0/-y")
    assert st.position() == spn(seats=[seat("442000", reserved=[0]), seat("002440")],
                                market=[[1, 2, 4, 5], market[1], None], to_move=1)
    st = State(text)
    st.push("rL2/-w")   # the top of the level-2 deck is 42 (lowest free id)
    assert st.position() == spn(seats=[seat("342001", reserved=["*42"]), seat("002440")], market=market,
                                to_move=1)


# -- nobles ---------------------------------------------------------------------------------------

def two_nobles(nobles=(0, 1, 3)):
    """Seat 0 has bonuses 4w 3b 4g and 3 black tokens; buying card 14 (blue, 3 black) meets noble 0
    (4w 4b) and noble 1 (4b 4g) at once."""
    return spn(seats=[seat("000030", cards=[0, 1, 2, 3, 8, 9, 10, 16, 17, 18, 19])], nobles=list(nobles),
               market=[[14, 22, 29, 38], [43, 44, 58, 62], [72, 84, 88, 89]])


TWO_NOBLES_RES = reserves(14, 22, 29, 38, 43, 44, 58, 62, 72, 84, 88, 89)


def test_two_nobles_met_at_once_one_per_turn_the_other_next_turn():
    st = State(two_nobles())
    assert st.bank == (4, 4, 4, 4, 1, 5)
    assert legal(st) == set(TAKE3) | {"+ww", "+bb", "+gg", "+rr"} | TWO_NOBLES_RES | {"b14/n0", "b14/n1"}
    with pytest.raises(IllegalMoveError, match="n0, n1"):
        st.push("b14")
    st.push("b14/n0")
    assert st.position() == spn(seats=[seat("000000", cards=[0, 1, 2, 3, 8, 9, 10, 14, 16, 17, 18, 19],
                                            nobles=[0])],
                                nobles=[1, 3], market=[[4, 22, 29, 38], [43, 44, 58, 62], [72, 84, 88, 89]],
                                to_move=1)
    st.push("+wbg")
    # the other noble visits at the end of seat 0's next turn, whatever it does
    assert legal(st) == {f"{m}/n1" for m in set(TAKE3) | {"+rr", "+kk"}
                         | reserves(4, 22, 29, 38, 43, 44, 58, 62, 72, 84, 88, 89)}
    st.push("+rr/n1")
    assert st.seats[0].nobles == (0, 1)
    assert st.nobles == (3,)
    assert st.seats[0].points == 6


def test_a_single_noble_is_filled_in_when_omitted():
    st = State(two_nobles(nobles=(0, 3, 4)))
    assert "b14/n0" in st.legal_moves and "b14" not in st.legal_moves
    assert str(st.push("b14")) == "b14/n0"
    assert st.seats[0].nobles == (0,)


def test_pending_noble_visits_on_a_pass():
    market = [[14, 22, 29, 38], [43, 44, 58, 62], [72, 84, 88, 89]]
    cards = [8, 9, 10, 11, 16, 17, 18, 19]   # bonuses 4 blue 4 green: noble 1 is met
    st = State(spn(seats=[seat("442000", cards=cards, reserved=[6, 15, 23]), seat("002440")],
                   market=market, nobles=[1, 3, 4]))
    assert legal(st) == {"pass/n1"}
    st.push("pass/n1")
    # the visit changed the game: not a dead pass, so the count of passes in a row starts again
    assert st.position() == spn(seats=[seat("442000", cards=cards, reserved=[6, 15, 23], nobles=[1]),
                                       seat("002440")], market=market, nobles=[3, 4], to_move=1, passes=0)


def test_tokens_do_not_count_for_nobles():
    # bonuses 3w 3b and tokens 2w 2b: noble 0 (4w 4b) is not met, even after taking more w/b
    market = [[3, 22, 29, 38], [43, 44, 58, 62], [72, 84, 88, 89]]
    st = State(spn(seats=[seat("220020", cards=[0, 1, 2, 8, 9, 10])], market=market, nobles=[0, 3, 4]))
    assert legal(st) == (set(TAKE3) | {"+gg", "+rr"} | reserves(3, 22, 29, 38, 43, 44, 58, 62, 72, 84, 88, 89)
                         | {"b3"})
    st.push("b3")   # 2b 2k, the blue covered by the bonus: 2 black paid; bonuses now 4w 3b
    assert st.position() == spn(seats=[seat("220000", cards=[0, 1, 2, 3, 8, 9, 10])], nobles=[0, 3, 4],
                                market=[[4, 22, 29, 38], market[1], market[2]], to_move=1)


# -- the end of the game --------------------------------------------------------------------------

@pytest.mark.parametrize("players, first, mover, more_turns", [
    (2, 0, 0, 1), (2, 0, 1, 0), (2, 1, 1, 1), (2, 1, 0, 0),
    (3, 0, 1, 1), (3, 1, 1, 2), (3, 1, 2, 1), (3, 1, 0, 0), (4, 2, 3, 2), (4, 2, 1, 0)])
def test_fifteen_points_end_the_game_after_the_round(players, first, mover, more_turns):
    # the mover has 13 points (cards 71-73, 3 white bonuses) and buys card 45 (6 white, 3 points)
    seats = [seat() for _ in range(players)]
    seats[mover] = seat("300000", cards=[71, 72, 73])
    st = State(spn(players, seats=seats, market=[None, [45, 40, 41, 42], None], to_move=mover, first=first,
                   turn=players + (mover - first) % players))
    assert not st.final_round
    st.push("b45")
    assert st.seats[mover].points == 16
    assert st.final_round and st.position().split()[6].split("/")[3] == "1"
    for _ in range(more_turns):
        assert not st.is_over() and st.result() is None
        st.push(min(m for m in legal(st) if m.startswith("+")))
    assert st.is_over()
    assert st.to_move == first
    assert legal(st) == set()
    res = st.result()
    assert (res.reason, res.winners) == ("points", (mover,))
    assert res.points == tuple(16 if i == mover else 0 for i in range(players))
    with pytest.raises(IllegalMoveError, match="the game is over"):
        st.push("+wbg")


def final_turn(seat1_cards):
    """Seat 0 ended the game's trigger turn with 15 points and 4 cards; seat 1 (last in the round)
    buys card 7 (white, 1 point, 4 green: 1 green bonus + 3 green tokens)."""
    return spn(seats=[seat(cards=[31, 72, 73, 77]), seat("003000", cards=seat1_cards)],
               market=[[7, 0, 1, 2], None, None], to_move=1, turn=9, final=1)


@pytest.mark.parametrize("seat1_cards, points, cards, ranks, winners", [
    ([71, 81, 85], (15, 15), (4, 4), (1, 1), (0, 1)),          # equal points and cards: shared win
    ([32, 71, 81, 85], (15, 15), (4, 5), (1, 2), (0,)),       # equal points: fewest cards wins
    ([32, 71, 76, 81, 85], (15, 19), (4, 6), (2, 1), (1,)),   # points first
])
def test_tie_break_by_fewest_cards_and_shared_win(seat1_cards, points, cards, ranks, winners):
    st = State(final_turn(seat1_cards))
    assert not st.is_over()
    st.push("b7")
    assert st.is_over()
    res = st.result()
    assert (res.reason, res.points, res.cards, res.ranks, res.winners) == ("points", points, cards, ranks, winners)
    assert res.to_json() == {"reason": "points", "points": list(points), "cards": list(cards),
                             "ranks": list(ranks), "winners": list(winners)}


def nothing_legal(l2=(40, 41, 43, 46)):
    """No gem in the bank, 3 reserved each, nothing affordable (seat 0 lacks red and black, seat 1
    white and blue)."""
    return spn(seats=[seat("442000", reserved=[74, 75, 76]), seat("002440", reserved=[77, 78, 79])],
               market=[[0, 2, 4, 5], list(l2), None])


def test_pass_when_nothing_is_legal_and_stalemate():
    st = State(nothing_legal())
    assert legal(st) == {"pass"}
    with pytest.raises(IllegalMoveError):
        st.push("+w")
    st.push("pass")
    assert st.position() == nothing_legal().replace("0/0/0/0/0", "1/0/1/0/1")
    assert not st.is_over()
    assert legal(st) == {"pass"}
    st.push("pass")
    assert st.is_over() and legal(st) == set()
    assert st.position().split()[6] == "0/0/2/0/2"
    res = st.result()
    assert (res.reason, res.points, res.cards, res.ranks, res.winners) == ("stalemate", (0, 0), (0, 0), (1, 1), ())


# seat 0 can only pass, and noble 1 visits on that pass, bringing it to 15 points; seat 1 passed
# the turn before (version 0.5.0 ended this game as a stalemate with no winner)
FIFTEEN_ON_A_PASS = (
    "SPN1 2 000005 11,12,27,20/58,63,69,60/74,86,83,85 39.38.37.36.35.34.33.32.31.30.29.28.26.25.24.23.22.17."
    "15.13.9.8.7.6.5.3.2.1/68.67.66.65.64.62.59.57.56.55.54.53.51.50.46.45.42.40/89.88.87.82.81.80.79.78.77.76."
    "75.73.72.71 1,2 0/0/10/0/1 442000:4,10,14,16,18,19,41,43,44,47,48,52:0,49,70:0 002440:-:84,21,61:-")


def test_a_noble_visit_on_a_pass_is_not_a_dead_pass_and_the_round_is_played_out():
    st = State(FIFTEEN_ON_A_PASS)
    assert legal(st) == {"pass/n1"}
    st.push("pass/n1")
    assert not st.is_over() and st.final_round and st.seats[0].points == 15
    assert st.position().split()[6] == "1/0/11/1/0"
    assert legal(st) == {"pass"}
    st.push("pass")
    res = st.result()
    assert (res.reason, res.points, res.winners) == ("points", (15, 0), (0,))


def test_a_stalemate_never_cuts_short_a_final_round():
    # seat 0 triggered the end earlier (16 points); now seat 1 and seat 2 can only pass, and a
    # third pass in a row would be a stalemate, but the round ends first at seat 0
    text = State(FIFTEEN_ON_A_PASS).position()
    st = State(text.replace(" 0/0/10/0/1 ", " 1/0/11/1/0 ").replace(":0,49,70:0 ", ":0,49,70:0,1 ")
               .replace(" 1,2 ", " 2 "))
    st.push("pass")
    assert st.is_over() and st.result().reason == "points" and st.result().winners == (0,)
    # a position with the end triggered and every player having passed is the final round's,
    # not a stalemate
    st = State(text.replace(" 0/0/10/0/1 ", " 1/0/11/1/2 ").replace(":0,49,70:0 ", ":0,49,70:0,1 ")
               .replace(" 1,2 ", " 2 "))
    assert not st.is_over() and legal(st) == {"pass"}
    st.push("pass")
    assert st.result().reason == "points"


def test_a_move_resets_the_pass_count():
    st = State(nothing_legal(l2=(40, 41, 42, 46)))   # seat 1 can buy 42 (1g 4r 2k)
    st.push("pass")
    assert legal(st) == {"b42"}
    st.push("b42")
    assert st.position().split()[6] == "0/0/2/0/0"
    assert not st.is_over()


@pytest.mark.parametrize("players, first", [(2, 0), (2, 1), (3, 1), (4, 3)])
def test_cap_ends_the_game_as_a_draw(players, first):
    cap = 3
    last = (first - 1) % players                       # the last seat of a round
    seats = [seat() for _ in range(players)]
    seats[first] = seat(cards=[31])                     # leads by 1 point: still no winner
    text = spn(players, seats=seats, to_move=last, first=first, turn=cap * players - 1, cap=cap)
    assert text.split()[1] == f"{players}:cap=3"
    st = State(text)
    assert st.position() == text
    assert not st.is_over()
    st.push("+wbg")
    assert st.is_over() and legal(st) == set()
    res = st.result()
    assert res.reason == "cap" and res.winners == ()
    assert res.points == tuple(1 if i == first else 0 for i in range(players))
    assert res.ranks == tuple(1 if i == first else 2 for i in range(players))


def test_cap_from_a_new_game():
    st = State.new(2, seed=3, config=Config(2, cap=1))
    st.push(min(legal(st)))
    assert not st.is_over()
    st.push(min(legal(st)))
    assert st.is_over() and st.result().reason == "cap" and st.turn == 2


@pytest.mark.parametrize("players", [2, 3, 4])
def test_configurable_first_player(players):
    first = players - 1
    st = State.new(players, seed=11, first_player=first)
    assert st.to_move == first
    assert st.position().split()[6] == f"{first}/{first}/0/0/0"
    zero = State.new(players, seed=11)
    assert zero.position().split()[:6] == st.position().split()[:6]   # the deal does not depend on it
    st.push(min(legal(st)))
    assert (st.to_move, st.turn) == (0, 1)


def test_push_returns_the_move_and_pop_undoes_it():
    st = State(spn())
    before = st.position()
    move = st.push("+wbg")
    assert move == Move.parse("+wbg") and st.move_stack == [move]
    assert st.pop() == move and st.position() == before and st.move_stack == []
    with pytest.raises(IndexError):
        st.pop()


def test_copies_keep_their_own_undo_stack():
    # a copy shares the move stack's saved states: popping and playing on the copy must not change
    # what the original restores on pop (the engine mutates its state in place)
    st = State(spn())
    start = st.position()
    st.push("+wbg")
    after = st.position()
    other = st.copy()
    other.pop()
    other.push("r40")
    other.push("+rr")
    assert st.position() == after
    st.pop()
    assert st.position() == start
    assert other.pop() == Move.parse("+rr") and other.pop() == Move.parse("r40")
    assert other.position() == start


# -- setup and hidden information -----------------------------------------------------------------

@pytest.mark.parametrize("players, gems, nobles", [(2, 4, 3), (3, 5, 4), (4, 7, 5)])
def test_setup_by_player_count(players, gems, nobles):
    st = State.new(players, seed=42)
    assert st.bank == (gems,) * 5 + (5,)
    assert len(st.nobles) == nobles
    assert st.deck_sizes == (36, 26, 16)
    assert [sorted(CARDS[c].level for c in row) for row in st.market] == [[1] * 4, [2] * 4, [3] * 4]
    assert all(s.tokens == (0,) * 6 and not s.cards and not s.reserved and not s.nobles for s in st.seats)
    assert (st.to_move, st.turn, st.is_over()) == (0, 0, False)
    assert State.new(players, seed=42) == st and State.new(players, seed=43) != st


def test_view_of_a_true_position_hides_the_opponents_blind_reserves_even_with_empty_decks():
    market = {0, 1, 2, 3, 40, 41, 42, 43, 70, 71, 72, 73}
    text = spn(seats=[seat(cards=[c for c in range(90) if c not in market | {44}]), seat(reserved=["*44"])])
    assert text.split()[4] == "-/-/-"
    st = State(text)
    for s in (0, 1):
        assert View.from_position(text, s) == st.view(s)
    assert View.from_position(text, 0).position().split()[-1] == "000000:-:?2:-"
    assert View.from_position(text, 1).position().split()[-1] == "000000:-:*44:-"
    # a public position is taken as written: what it shows, the viewer knows
    assert View.from_position(text.replace("*44", "?2"), 1).position().split()[-1] == "000000:-:?2:-"
