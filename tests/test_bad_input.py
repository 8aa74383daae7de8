"""Bad input: every malformed or inconsistent input raises its own error, with a message naming the
problem, and leaves the game unchanged."""
import json

import pytest

from handmade import seat, spn
from splendor_ai import (CARDS, Config, ConfigError, IllegalMoveError, Move, NotationError, PositionError,
                         SplendorError, State, View)


# -- move notation --------------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("", "is none of"),
    ("x", "is none of"),
    ("PASS", "is none of"),
    ("+", "is none of"),
    ("rL", "is none of"),
    ("b", "is none of"),
    ("b-1", "is none of"),
    ("b1\u0663", "is none of"),               # a non-ASCII digit
    ("r 4", "is none of"),
    ("+wbgr", "a take is 1-3 gems, got 4"),
    ("+wy", "'y' is not one of the letters 'wbgrk'"),
    ("+yy", "'y' is not one of the letters 'wbgrk'"),
    ("+bw", "colours must be in the order 'wbgrk'"),
    ("+kkb", "colours must be in the order"),
    ("+www", "take 1-3 different colours or two of one colour"),
    ("+wwb", "take 1-3 different colours or two of one colour"),
    ("r120", "card 120 does not exist"),
    ("b123", "card 123 does not exist"),
    ("rL0", "deck level must be 1, 2 or 3"),
    ("rL4", "deck level must be 1, 2 or 3"),
    ("pass/", "unexpected decision ''"),
    ("+wbg/-", "unexpected decision '-'"),
    ("+wbg/-x", "'x' is not one of the letters 'wbgrky'"),
    ("+wbg/-kw", "colours must be in the order 'wbgrky'"),
    ("+wbg/-w/-b", "unexpected decision '-b'"),
    ("b14/n10", "there is no noble 10"),
    ("b14/n0/n1", "unexpected decision 'n1'"),
    ("b14/n0/-w", "unexpected decision '-w'"),
    ("b14/x", "unexpected decision 'x'"),
])
def test_malformed_move_strings(text, message):
    with pytest.raises(NotationError, match=message.replace("(", r"\(").replace("+", r"\+")):
        Move.parse(text)
    st = State(spn())
    before = st.position()
    with pytest.raises(NotationError):
        st.push(text)
    assert st.position() == before and st.move_stack == []
    assert text not in st.legal_moves


@pytest.mark.parametrize("value", [None, 17, 1.5, b"+wbg", ["+wbg"]])
def test_moves_that_are_not_strings(value):
    with pytest.raises(NotationError, match="a move must be a string"):
        Move.parse(value)
    st = State(spn())
    with pytest.raises(NotationError, match="a move must be a string"):
        st.push(value)
    assert st.move_stack == []


def test_errors_are_value_errors():
    for cls in (NotationError, IllegalMoveError, PositionError, ConfigError):
        assert issubclass(cls, SplendorError) and issubclass(cls, ValueError)


# -- illegal moves --------------------------------------------------------------------------------

ELEVEN = spn(seats=[seat("220220", reserved=[40, 70, 74])],
             market=[[0, 1, 2, 4], [41, 42, 43, 44], [71, 72, 73, 75]])   # +wbg makes 11 tokens
TWO_NOBLES = spn(seats=[seat("000030", cards=[0, 1, 2, 3, 8, 9, 10, 16, 17, 18, 19])], nobles=[0, 1, 3],
                 market=[[14, 22, 29, 38], [43, 44, 58, 62], [72, 84, 88, 89]])


@pytest.mark.parametrize("text, move, message", [
    (spn(seats=[seat("100000")]), "+ww", "+ww: the action +ww is not legal for seat 0 here"),
    (spn(), "+wb", "the action +wb is not legal"),           # 3 colours available: take 3
    (spn(), "b0", "the action b0 is not legal"),              # not affordable
    (spn(), "b44", "the action b44 is not legal"),            # in the deck, not the market
    (spn(), "r44", "the action r44 is not legal"),
    (spn(), "pass", "the action pass is not legal"),
    (spn(seats=[seat(reserved=[40, 70, 74])]), "r0", "the action r0 is not legal"),
    (spn(seats=[seat(reserved=[40, 70, 74])]), "b40", "the action b40 is not legal"),
    (ELEVEN, "+wbg", "+wbg leaves 11 tokens, so exactly 1 must be returned"),
    (ELEVEN, "+wbg/-ww", "+wbg leaves 11 tokens, so exactly 1 must be returned"),
    (ELEVEN, "+wbg/-y", "exactly 1 must be returned from what the player holds"),   # holds no gold
    (ELEVEN, "+gg/-w", "no tokens need returning after +gg"),
    (ELEVEN, "+gg/n0", "no noble visits after this turn"),
    (TWO_NOBLES, "b14", "the noble must be one of n0, n1"),
    (TWO_NOBLES, "b14/n3", "the noble must be one of n0, n1"),
    (TWO_NOBLES, "+wbg/n0", "no noble visits after this turn"),
])
def test_illegal_moves_leave_the_position_unchanged(text, move, message):
    st = State(text)
    before = st.position()
    with pytest.raises(IllegalMoveError) as err:
        st.push(move)
    assert message in str(err.value)
    assert st.position() == before and st.move_stack == []
    with pytest.raises(IllegalMoveError):
        st.push(Move.parse(move))
    with pytest.raises(IllegalMoveError):
        st.describe(move)
    assert st.position() == before and st.move_stack == []
    assert move not in st.legal_moves


def test_moves_after_the_game_is_over():
    st = State(spn(cap=1, to_move=1, turn=1))
    st.push("+wbg")
    assert st.is_over()
    before = st.position()
    with pytest.raises(IllegalMoveError, match="the game is over"):
        st.push("+wbg")
    with pytest.raises(IllegalMoveError, match="the game is over"):
        st.push("pass")
    assert st.position() == before


# -- positions ------------------------------------------------------------------------------------

GOOD = spn(seats=[seat("100000", cards=[1], reserved=[40, "*70"]), seat("020001", nobles=[])])


def field(text, i, value):
    f = text.split()
    f[i] = value
    return " ".join(f)


def test_the_base_position_is_valid():
    assert State(GOOD).position() == GOOD


@pytest.mark.parametrize("text, message", [
    ("", "it must start with 'SPN1'"),
    (GOOD.replace("SPN1", "SPN2"), "an SPN2 position names its module"),
    (GOOD.replace("SPN1", "SPN3"), "it must start with 'SPN1'"),
    ("SPN1 2 444445", "at least 9 fields"),
    (" ".join(GOOD.split()[:-1]), "a 2-player position has 9 fields, got 8"),
    (GOOD + " 000000:-:-:-", "a 2-player position has 9 fields, got 10"),
    (field(GOOD, 1, "5"), "players field: expected 2, 3 or 4"),
    (field(GOOD, 1, "2:foo=1"), "unknown option 'foo=1'"),
    (field(GOOD, 1, "2:cap=0"), "cap: 0 is not between 1 and 8000 rounds"),
    (field(GOOD, 1, "2:cap=8001"), "cap: 8001 is not between 1 and 8000 rounds"),
    # tokens
    (field(GOOD, 2, "34444"), "bank: expected six digits"),
    (field(GOOD, 2, "-34444"), "bank: expected six digits"),
    (field(GOOD, 2, "3a4445"), "bank: expected six digits"),
    (field(GOOD, 2, "3\u06614445"), "bank: expected six digits"),   # an Arabic-Indic digit
    (field(GOOD, 2, "444444"), "tokens: 5 w in bank and hands, a 2-player game has 4"),
    (field(GOOD, 2, "324443"), "tokens: 4 y in bank and hands, a 2-player game has 5"),
    (field(GOOD, 8, "-20001:-:-:-"), "seat 1 tokens: expected six digits"),
    (spn(3, seats=[seat("554000"), seat("000111")]), "seat 0: holds 14 tokens, more than 10"),
    # cards
    (GOOD.replace(":40,*70:", ":41,*70:", 1), "card 41 is in two places: market level 2 and seat 0 reserved"),
    (GOOD.replace(".39/", "/", 1), "level 1: 1 cards are not visible anywhere"),
    (GOOD.replace(":1:", ":1,90:", 1), "seat 0 cards: 90 is not a card id"),
    (GOOD.replace(":1:", ":1,1:", 1), "card 1 is in two places"),
    (GOOD.replace("0,2,3,4/", "0,2,3,\u00b2/", 1), "market level 1: '\u00b2' is not a card id"),
    (GOOD.replace("0,2,3,4/", "0,2,3/", 1), "market level 1: expected 4 slots"),
    (GOOD.replace("0,2,3,4/", "0,2,3,-/", 1), "market level 1 slot 4: empty while its deck has cards"),
    (GOOD.replace("0,2,3,4/", "0,2,3,45/", 1).replace("/45.", "/4.", 1), "market level 1: card 45 is a level-2"),
    (GOOD.replace(" 5.6.", " 5.45.6.", 1).replace("/45.", "/", 1), "deck 1: card 45 is a level-2 card"),
    (GOOD.replace(":40,*70:", ":40,*71:", 1), "card 71 is in two places"),
    (GOOD.replace(":40,*70:", ":40,*70,2,3:", 1), "seat 0: 4 reserved cards, at most 3"),
    (GOOD.replace(":40,*70:", ":40,+70:", 1), "seat 0 reserved: '+70' is none of"),
    (field(GOOD, 4, "?35/?25/?15").replace(":40,*70:", ":40,?3:"), None),   # hidden: not a State
    # nobles
    (field(GOOD, 5, "0,1,2,3"), "nobles: 4 in play, a 2-player game has 3"),
    (field(GOOD, 5, "0,1"), "nobles: 2 in play"),
    (field(GOOD, 5, "0,1,10"), "nobles (board): 10 is not a noble id"),
    (field(GOOD, 5, "0,1,1"), "noble 1 is in two places"),
    (field(GOOD, 5, "0,1").replace("020001:-:-:-", "020001:-:-:2"), "seat 1: has noble 2 without meeting"),
    # status
    (field(GOOD, 6, "0/0/0/2/0"), "status: expected to_move/first/turn/final/passes"),
    (field(GOOD, 6, "0/0/0/0"), "status: expected"),
    (field(GOOD, 6, "0/0/-2/0/0"), "status: expected"),
    (field(GOOD, 6, "1/0/0/0/0"), "status: turn 0 from first player 0 puts seat 0 to move, not 1"),
    (field(GOOD, 6, "2/0/2/0/0"), "status: seats are 0-1"),
    (field(GOOD, 6, "0/0/2/0/3"), "status: 3 consecutive passes is impossible here"),
    (field(GOOD, 6, "1/0/1/0/2"), "status: 2 consecutive passes is impossible here"),
    (field(GOOD, 6, "0/0/202/0/0"), "status: turn 202 is past the cap (100 rounds of 2 turns)"),
    (field(GOOD, 6, "0/0/40000/0/0"), "status: turn 40000 is past the cap"),
    (field(GOOD, 7, "100000:1:40,*70"), "seat 0: expected tokens:cards:reserved:nobles"),
])
def test_corrupt_positions(text, message):
    with pytest.raises(PositionError) as err:
        State(text)
    if message:
        assert message in str(err.value)
    else:
        assert "it is a seat's view, use View.from_position" in str(err.value)


def test_position_must_be_a_string():
    with pytest.raises(PositionError, match="a position must be a string"):
        State(["SPN1"])
    with pytest.raises(PositionError, match="a position must be a string"):
        View.from_position(None)


def test_turn_at_the_cap_is_accepted_as_over():
    st = State(field(GOOD, 6, "0/0/200/0/0"))
    assert st.is_over() and st.result().reason == "cap"


def test_largest_cap_does_not_overflow_the_turn_counter():
    # the engine's turn counter is 16 bits: the cap keeps every reachable turn below 2**15
    st = State(spn(4, cap=8000, to_move=3, turn=31999))
    st.push("+wbg")
    assert st.turn == 32000 and st.is_over() and st.result().reason == "cap"
    assert State(st.position()).position() == st.position()


def good_json():
    return State(GOOD).to_json()


def edit(path, value):
    obj = good_json()
    target = obj
    for key in path[:-1]:
        target = target[key]
    if value is DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return obj


DELETE = object()


@pytest.mark.parametrize("path, value, message", [
    (("format",), "splendor-position/2", "expected one of cities, orient, posts, strongholds"),
    (("format",), "splendor-position/3", "format must be 'splendor-position/1'"),
    (("format",), DELETE, "position: missing 'format'"),
    (("foo",), 1, "unknown field(s) ['foo']"),
    (("options", "foo"), 1, "only 'cap' is known"),
    (("options", "cap"), "100", "options.cap: expected an integer"),
    (("options", "cap"), True, "options.cap: expected an integer"),
    (("options", "cap"), 0, "cap: 0 is not between 1 and 8000"),
    (("players",), True, "position.players: expected int"),
    (("players",), "2", "position.players: expected int"),
    (("players",), 5, "players: 5 is not 2, 3 or 4"),
    (("bank",), "444445", "position.bank: expected a list of 6"),
    (("bank",), [3, 4, 4, 4, 4], "position.bank: expected a list of 6"),
    (("bank",), [3, 4, 4, 4, 4, 4.0], "position.bank: 4.0 is not an integer"),
    (("bank",), [3, 4, 4, 4, True, 4], "position.bank: True is not an integer"),
    (("bank",), [5, 4, 4, 4, 4, 4], "tokens: 6 w in bank and hands"),
    (("bank",), DELETE, "position.bank: expected a list"),
    (("seats", 0, "tokens"), [-1, 0, 0, 0, 0, 0], "tokens: negative w count"),
    (("seats", 1, "tokens"), [4, 2, 0, 0, 0, 1], "tokens: 8 w in bank and hands"),
    (("seats", 0, "foo"), 1, "position.seats[0]: unknown field(s) ['foo']"),
    (("seats", 0, "cards"), [1, 1], "card 1 is in two places"),
    (("seats", 0, "cards"), "1", "position.seats[0].cards: expected list, got '1'"),
    (("seats", 0, "reserved", 0), {"card": 40, "level": 2}, "card or level (not both)"),
    (("seats", 0, "reserved", 0), {"card": 40, "extra": 1}, "card or level (not both)"),
    (("seats", 0, "reserved", 0), {"card": "40"}, "reserved[0].card: expected int"),
    (("seats", 0, "reserved", 0), {"card": 40, "blind": 1}, "reserved[0].blind: expected true or false"),
    (("seats", 0, "reserved", 0), {"level": 2}, "a hidden card needs 'level' 1-3 and 'blind': true"),
    (("seats", 0, "reserved", 1), {"card": 71, "blind": True}, "card 71 is in two places"),
    (("seats",), DELETE, "position: missing 'seats'"),
    (("seats",), [], "seats: 2 players but 0 seats"),
    (("market",), [[0, 2, 3, 4], [41, 42, 43, 44]], "position.market: expected 3 lists of 4 slots"),
    (("market", 0), [0, 2, 3, "4"], "position.market[0]: '4' is not an integer"),
    (("market", 0), [0, 2, 3, -1], "market level 1: -1 is not a card id"),
    (("decks", 0), {"count": True}, "position.decks[0]: expected"),
    (("decks", 0), {"count": -1}, "position.decks[0]: expected"),
    (("decks", 0), {"count": 35, "cards": []}, "position.decks[0]: expected"),
    (("decks", 0), {"cards": [5]}, "level 1: 34 cards are not visible anywhere"),
    (("decks",), [], "position.decks: expected 3 decks"),
    (("nobles",), [0, 1, 2, 3], "nobles: 4 in play"),
    (("nobles",), "0,1,2", "position.nobles: expected list"),
    (("turn",), "0", "position.turn: expected int"),
    (("turn",), 40000, "status: turn 40000 is past the cap"),
    (("to_move",), 1, "puts seat 0 to move, not 1"),
    (("first_player",), None, "position.first_player: expected int"),
    (("final_round",), 0, "position.final_round: expected bool"),
    (("passes",), 1.0, "position.passes: expected int"),
])
def test_corrupt_json_positions(path, value, message):
    obj = edit(path, value)
    with pytest.raises(PositionError) as err:
        State.from_json(obj)
    assert message in str(err.value)
    with pytest.raises(PositionError):
        State.from_json(json.dumps(obj))


def test_json_round_trip_of_the_base_position():
    obj = good_json()
    assert obj["seats"][0]["reserved"] == [{"card": 40}, {"card": 70, "blind": True}]
    assert State.from_json(obj).position() == GOOD
    assert State.from_json(json.dumps(obj)).position() == GOOD


@pytest.mark.parametrize("text", ["", "{", json.dumps(State(GOOD).to_json())[:-1], "[1, 2", "nul"])
def test_truncated_json_strings(text):
    with pytest.raises(PositionError, match="position JSON does not parse"):
        State.from_json(text)
    with pytest.raises(PositionError, match="position JSON does not parse"):
        View.from_json(text)


@pytest.mark.parametrize("obj", [None, [], 3, "null", "[]", '"SPN1"'])
def test_json_that_is_not_an_object(obj):
    with pytest.raises(PositionError, match="position: expected an object"):
        State.from_json(obj)


def test_hidden_json_is_a_view_not_a_state():
    view = State(GOOD).view(1)
    obj = view.to_json()
    assert obj["decks"][0] == {"count": 35}
    with pytest.raises(PositionError, match="it is a seat's view, use View.from_json"):
        State.from_json(obj)
    assert View.from_json(obj, 1).position() == view.position()
    with pytest.raises(PositionError, match="seat must be 0-1, got 2"):
        View.from_json(obj, 2)


# -- configuration --------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, message", [
    (dict(players=1), "players must be 2, 3 or 4, got 1"),
    (dict(players=5), "players must be 2, 3 or 4, got 5"),
    (dict(players="2"), "players must be 2, 3 or 4, got '2'"),
    (dict(cap=0), "cap must be an integer number of rounds in 1-8000, got 0"),
    (dict(cap=8001), "in 1-8000, got 8001"),
    (dict(cap=10.0), "got 10.0"),
    (dict(cap=True), "got True"),
    (dict(modules=("seafarers",)), "unknown module 'seafarers'; the modules are cities, orient, "
                                   "posts, strongholds"),
    (dict(modules=("cities", "orient")), "one module at most"),
])
def test_bad_config(kwargs, message):
    with pytest.raises(ConfigError) as err:
        Config(**kwargs)
    assert message in str(err.value)


@pytest.mark.parametrize("args, kwargs, message", [
    ((5,), {}, "players must be 2, 3 or 4, got 5"),
    ((1,), {}, "players must be 2, 3 or 4, got 1"),
    ((2,), dict(seed=-1), "seed must be an integer in [0, 2**64), got -1"),
    ((2,), dict(seed=2 ** 64), "seed must be an integer in [0, 2**64)"),
    ((2,), dict(seed=1.5), "got 1.5"),
    ((2,), dict(seed="7"), "got '7'"),
    ((2,), dict(first_player=2), "first_player must be a seat 0-1, got 2"),
    ((3,), dict(first_player=-1), "first_player must be a seat 0-2, got -1"),
    ((3,), dict(config=Config(4)), "players=3 disagrees with config.players=4"),
])
def test_bad_new_game(args, kwargs, message):
    with pytest.raises(ConfigError) as err:
        State.new(*args, **kwargs)
    assert message in str(err.value)


def test_largest_seed_is_accepted():
    assert State.new(2, seed=2 ** 64 - 1).turn == 0


@pytest.mark.parametrize("obj, message", [
    ({"players": 2, "colour": "red"}, "expected an object with players, cap, modules"),
    ([2], "expected an object"),
    ({"players": 7}, "players must be 2, 3 or 4, got 7"),
    ({"modules": ["orient", "posts"]}, "one module at most"),
])
def test_bad_config_json(obj, message):
    with pytest.raises(ConfigError) as err:
        Config.from_json(obj)
    assert message in str(err.value)


def test_config_json_round_trip():
    cfg = Config(3, cap=40)
    assert Config.from_json(cfg.to_json()) == cfg
    assert State.new(3, seed=1, config=cfg).config == cfg
