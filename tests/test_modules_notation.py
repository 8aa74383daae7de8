"""Notation version 2 (docs/MODULES.md "Notation", "Positions, version 2"): module decision tokens,
SPN2 text <-> JSON v2, their validation, module configs and the tree keys of module decisions.
None of this needs the engine to play a module: it is the Python layer's own statement."""
import json
import random

import pytest

from handmade import seat2, spn, spn2
from splendor_ai import Config, ConfigError, Move, NotationError, PositionError, State
from splendor_ai import position as pos
from splendor_ai.cards import CARDS, CITIES, POSTS
from splendor_ai.move import BUY, CITY, CONQUER, GEM, JOKER, NOBLE, RESERVE_DECK, RETURN, SH_MOVE
from splendor_ai.players import keys

# -- moves ----------------------------------------------------------------------------------------

V2_MOVES = ["+wbg/-kk", "b45/n3", "b95/jg", "b105/h7", "b108/jr/f12", "b108/jr/f95/jw", "b115/d80/d84",
            "b12/t30", "b12/m30:31", "b12/x30", "+wbg/b30/t5", "b12/t30/b30/x31", "b12/+w", "+rr/+k", "b80/c4",
            "rO2", "rO1/-w", "rO3", "b115/d80/d84/-y/n2", "b12/+w/-r", "+rr/+k/-ww", "b80/-k/c4",
            "b12/m30:31/b31/t1/-kk", "pass/c13", "r119", "b110/f40", "b109/jk/f3"]
V1_MOVES = ["+wbg", "+wbg/-kk", "+rr/-y", "rL2", "r17/-g", "b45/n3", "pass", "+w", "+gk", "b14/-wy/n0"]


@pytest.mark.parametrize("text", V2_MOVES + V1_MOVES)
def test_move_round_trip(text):
    m = Move.parse(text)
    assert str(m) == text
    assert Move.parse(str(m)) == m and hash(Move.parse(text)) == hash(m)
    assert eval(repr(m)) == m
    with pytest.raises(AttributeError):
        m.card = 3


def test_v1_moves_keep_their_fields():
    m = Move.parse("b14/-wy/n0")
    assert (m.kind, m.card, m.returns, m.noble, m.module) == (BUY, 14, (0, 5), 0, None)
    assert m == Move(BUY, card=14, returns=(0, 5), noble=0)
    assert m.action == Move(BUY, card=14) and str(m.action) == "b14"
    assert Move(BUY, card=14, noble=0, returns=(0, 5)) == m   # keyword order does not matter


def test_v2_move_fields():
    m = Move.parse("b12/m30:31/b31/t1/-kk")
    assert m.decisions == ((SH_MOVE, (30, 31)), (CONQUER, 31), ("t", 1), (RETURN, (4, 4)))
    assert m.conquest == 31 and m.returns == (4, 4) and m.noble is None and m.module == "strongholds"
    assert Move.parse("rO2") == Move(RESERVE_DECK, level=2, orient=True) != Move.parse("rL2")
    assert Move.parse("b80/c4").city == 4 and Move.parse("b80/c4").module == "cities"
    assert Move.parse("+rr/+k").decisions == ((GEM, 4),)
    assert Move.parse("b95/jg").decisions == ((JOKER, 2),) and Move.parse("r95").module == "orient"
    # returns and a noble given to the constructor go to their place after the module decisions
    built = Move(BUY, card=115, returns=(5,), noble=2, decisions=(("d", 80), ("d", 84)))
    assert str(built) == "b115/d80/d84/-y/n2"
    assert Move.parse("b80/-k/c4").without(CITY) == Move.parse("b80/-k")
    assert Move.parse("b45/-k/n3").without(NOBLE, RETURN) == Move(BUY, card=45)


@pytest.mark.parametrize("text, message", [
    ("rO", "is none of"),
    ("rO0", "deck level must be 1, 2 or 3"),
    ("rO4", "deck level must be 1, 2 or 3"),
    ("rX1", "is none of"),
    ("r120", "card 120 does not exist (cards are 0-119)"),
    ("b95/j", "unexpected decision 'j'"),
    ("b95/jy", "'y' is not one of the letters 'wbgrk'"),
    ("b95/jgg", "'jgg' names one colour"),
    ("b105/h10", "there is no noble 10"),
    ("b105/h", "unexpected decision 'h'"),
    ("b108/f120", "card 120 does not exist"),
    ("b108/f80", "free cards are of level 1 or 2"),
    ("b115/d80", "a sacrifice discards two cards"),
    ("b115/d84/d80", "increasing id order"),
    ("b115/d80/d80", "increasing id order"),
    ("b115/d80/d84/d85", "come right after the purchase"),
    ("+wbg/d80/d84", "come right after the purchase"),
    ("+wbg/jg", "follows the purchase of an Orient card"),
    ("r95/f12", "follows the purchase of an Orient card"),
    ("b12/t30/t31", "one stronghold action per purchase"),
    ("+wbg/t30", "one stronghold action per purchase"),
    ("b12/m30", "unexpected decision 'm30'"),
    ("b12/m30:30", "onto the card it came from"),
    ("b12/m30:", "unexpected decision 'm30:'"),
    ("b12/x", "unexpected decision 'x'"),
    ("b12/b30/b31", "unexpected decision 'b31'"),
    ("pass/b30", "a conquest follows a main action"),
    ("b12/-k/b30", "unexpected decision 'b30'"),
    ("b12/-k/t30", "unexpected decision 't30'"),
    ("b12/+y", "'y' is not one of the letters 'wbgrk'"),
    ("b12/+wb", "'+wb' names one colour"),
    ("+wbg/+k", "an extra gem follows a purchase or a take of two"),
    ("r12/+k", "an extra gem follows a purchase or a take of two"),
    ("+rr/+r", "the extra gem after taking two r is another colour"),
    ("b12/+w/+b", "one extra gem a turn"),
    ("b80/c14", "there is no city 14"),
    ("b80/c", "unexpected decision 'c'"),
    ("b80/c4/-k", "unexpected decision '-k'"),
    ("b80/c4/c5", "unexpected decision 'c5'"),
    ("b80/c4/n3", "a Cities game has no nobles"),
    ("b80/n3/c4", "a Cities game has no nobles"),
    ("b95/jg/t30", "mixes decisions of orient and strongholds"),
    ("b12/+w/c4", "mixes decisions of cities and posts"),
    ("rO1/c4", "mixes decisions of cities and orient"),
    ("b100/t30", "mixes decisions of orient and strongholds"),
    ("b12/q3", "unexpected decision 'q3'"),
    ("b12/t1\u0663", "unexpected decision"),
    ("b12//t3", "unexpected decision ''"),
])
def test_malformed_v2_moves(text, message):
    with pytest.raises(NotationError) as err:
        Move.parse(text)
    assert message in str(err.value)


def test_random_move_strings_never_crash():
    rng = random.Random(6)
    alphabet = "+-/:rbLOjhfdtmxcnpasswgkyq0123456789"
    for _ in range(3000):
        base = rng.choice(V2_MOVES + V1_MOVES)
        chars = list(base)
        for _ in range(rng.randint(1, 3)):
            op = rng.randrange(3)
            i = rng.randrange(len(chars) + 1)
            if op == 0:
                chars.insert(i, rng.choice(alphabet))
            elif op == 1 and i < len(chars):
                del chars[i]
            elif i < len(chars):
                chars[i] = rng.choice(alphabet)
        text = "".join(chars)
        try:
            m = Move.parse(text)
        except NotationError:
            continue
        assert Move.parse(str(m)) == m


# -- positions ------------------------------------------------------------------------------------

def _cards_of(bonus, level=None, orient=False):
    return [c.id for c in CARDS if c.bonus == bonus and (level is None or c.level == level) and c.orient == orient]


FIVE_POINTERS = [c.id for c in CARDS if c.points == 5][:4]       # 20 points
CITIES_POS = spn2("cities", seats=[seat2("100000", cards=FIVE_POINTERS, cities=[13]), seat2("010000")],
                  cities=(0, 2), to_move=1, final=1)
ORIENT_POS = spn2("orient", seats=[seat2("101011", cards=[0, 95, 100, 108], reserved=[111, "*96"],
                                         jokers=["95w", "108k"], held=[5]),
                                   seat2("020100", cards=[4], reserved=["*105"])],
                  discard=[1, 90], nobles=[0, 2])
WHITE = _cards_of(0, 1)
POSTS_POS = spn2("posts", seats=[seat2(cards=WHITE[:2], posts=[1]), seat2("000010")])
STRONG_POS = spn2("strongholds", strongholds={2: (0, 2), 41: (1, 3), 72: (0, 1)})
MODULE_POSITIONS = {"cities": CITIES_POS, "orient": ORIENT_POS, "posts": POSTS_POS, "strongholds": STRONG_POS}


@pytest.mark.parametrize("module", list(MODULE_POSITIONS))
def test_spn2_round_trips(module):
    for text in (MODULE_POSITIONS[module], spn2(module, players=3, cap=40, to_move=2, first=1, turn=4)):
        d = pos.from_text(text)
        assert d["modules"] == pos.MODULE_FLAGS[module]
        assert pos.to_text(d) == text
        js = pos.to_json(d)
        assert js["format"] == "splendor-position/2" and js["options"]["module"] == module
        again = json.loads(json.dumps(js))
        assert pos.to_json(pos.from_json(again)) == js
        assert pos.to_text(pos.from_json(again)) == text


def test_spn2_fields():
    d = pos.from_text(ORIENT_POS)
    assert d["discard"] == [1, 90] and len(d["decks"]) == 6 and len(d["market"][0]) == 6
    s0 = d["seats"][0]
    assert s0["jokers"] == [[95, 0], [108, 4]] and s0["held"] == [5]
    assert s0["reserved"] == [(111, None), (96, 3)]
    js = pos.to_json(d)
    assert js["discard"] == [1, 90] and js["seats"][0]["jokers"] == [{"card": 95, "colour": 0},
                                                                    {"card": 108, "colour": 4}]
    assert js["seats"][0]["held_nobles"] == [5] and "cities" not in js and "posts" not in js["seats"][0]
    d = pos.from_text(STRONG_POS)
    assert d["strongholds"][0][2] == [0, 2] and d["strongholds"][1][1] == [1, 3]
    assert [s["sh_hand"] for s in d["seats"]] == [0, 0]
    assert "2=0x2,41=1x3,72=0x1" in STRONG_POS
    assert pos.to_json(d)["strongholds"] == [{"card": 2, "seat": 0, "count": 2}, {"card": 41, "seat": 1, "count": 3},
                                             {"card": 72, "seat": 0, "count": 1}]
    d = pos.from_text(CITIES_POS)
    assert d["cities"] == [0, 2] and d["seats"][0]["cities"] == [13] and d["nobles"] == []
    assert pos.to_json(d)["cities"] == [0, 2]
    assert pos.from_text(POSTS_POS)["seats"][0]["posts"] == [1]


def test_hidden_orient_cards_round_trip():
    """A public position of an Orient game: hidden decks and a hidden Orient blind reserve ?O<level>."""
    d = pos.from_text(ORIENT_POS)
    d["decks"] = [[None] * len(dk) for dk in d["decks"]]
    d["seats"][1]["reserved"] = [(None, 4)]
    text = pos.to_text(d)
    assert " ?33/?26/?16/?5/?5/?7 " in text and ":?O2:" in text
    assert pos.to_text(pos.from_text(text)) == text
    js = pos.to_json(pos.from_text(text))
    assert js["seats"][1]["reserved"] == [{"level": 2, "orient": True, "blind": True}]
    assert pos.to_text(pos.from_json(js)) == text


def test_base_positions_stay_version_1():
    text = spn()
    d = pos.from_text(text)
    assert pos.to_text(d) == text and text.startswith("SPN1 ")
    js = pos.to_json(d)
    assert js["format"] == "splendor-position/1" and js["options"] == {"cap": 100}
    assert set(js) == {"format", "players", "options", "bank", "market", "decks", "nobles", "to_move",
                       "first_player", "turn", "final_round", "passes", "seats"}
    assert set(js["seats"][0]) == {"tokens", "cards", "reserved", "nobles"}


def _sub(text, old, new, count=1):
    assert old in text, (old, text)
    return text.replace(old, new, count)


def _field(text, i, new):
    f = text.split()
    f[i] = new
    return " ".join(f)


def _seat(text, i, new):
    return _field(text, 8 + i, new)


BAD_POSITIONS = [
    # options and layout
    (_sub(STRONG_POS, "2:strongholds", "2:seafarers"), "unknown option 'seafarers'"),
    (_sub(STRONG_POS, "2:strongholds", "2:strongholds,orient"), "one module at most"),
    (_sub(STRONG_POS, "2:strongholds", "2:strongholds,cap=5,cap=6"), "cap is given twice"),
    (_sub(STRONG_POS, "2:strongholds", "2"), "an SPN2 position names its module"),
    (_sub(spn(), "SPN1 2", "SPN1 2:orient"), "a game with a module is written SPN2"),
    (_sub(ORIENT_POS, "SPN2", "SPN1"), "a game with a module is written SPN2"),
    (_sub(spn(), "SPN1 2", "SPN2 2:posts"), "has 10 fields, got 9"),
    (ORIENT_POS.rsplit(" ", 1)[0], "has 10 fields, got 9"),
    # the Orient
    (_field(ORIENT_POS, 3, "0,2,3,4/40,41,42,43/70,71,72,73"), "expected 6 slots"),
    (_field(ORIENT_POS, 4, "-/-/-"), "expected 6 decks"),
    (_sub(ORIENT_POS, "2,3,5,6,91,92/", "91,3,5,6,2,92/"), "card 91 is an Orient card, the slot holds regular cards"),
    (_sub(ORIENT_POS, ":95w,108k:", ":95w:"), "joker card 108 has no colour"),
    (_sub(ORIENT_POS, ":95w,108k:", ":95w,97g,108k:"), "card 97 is not one of the seat's cards"),
    (_sub(ORIENT_POS, ":95w,108k:", ":95w,100k,108k:"), "card 100 is not a joker card"),
    (_sub(ORIENT_POS, ":95w,108k:", ":95y,108k:"), "'95y' is not <card><colour letter wbgrk>"),
    (_sub(ORIENT_POS, ":95w,108k:", ":95w,95w,108k:"), "cards must be increasing and distinct"),
    (_sub(ORIENT_POS, ":95w,108k:", ":108k,95w:"), "cards must be increasing and distinct"),
    (_sub(ORIENT_POS, ":95w,108k:5 ", ":95w,108k:0 "), "noble 0 is in two places: board and seat 0 held nobles"),
    (_sub(ORIENT_POS, ":95w,108k:5 ", ":95w,108k:5,7 "), "nobles: 4 in play, a 2-player game has 3"),
    (_sub(ORIENT_POS, ":95w,108k:5 ", ":95w,108k:5,3 "), "ids must be increasing"),
    (_field(ORIENT_POS, 7, "1,90,91"), "card 91 is in two places"),
    (_field(ORIENT_POS, 7, "90,1"), "board (discard pile): ids must be increasing"),
    (_field(ORIENT_POS, 7, "1"), "Orient level 1: 1 cards are not visible anywhere"),
    (_sub(ORIENT_POS, "111,*96", "111,*96,*97,?O1"), "at most 3"),
    (_sub(STRONG_POS, ":-:-:-:", ":-:?O1:-:", 1), "is none of <id>, *<id>, ?<level>"),
    (_sub(spn(), "1,2,3/", "1,2,95/"), "Orient cards 90-119 need the Orient module"),
    # the Cities
    (_field(CITIES_POS, 5, "0,1,2"), "nobles: 3 in play, a 2-player game has 0 (a Cities game has no nobles)"),
    (_field(CITIES_POS, 7, "0,1"), "both sides of one tile"),
    (_field(CITIES_POS, 7, "0"), "cities: 2 in play"),
    (_field(CITIES_POS, 7, "0,2,4"), "cities: 4 in play"),
    (_field(CITIES_POS, 7, "2,0"), "ids must be increasing"),
    (_field(CITIES_POS, 7, "0,2,13"), "a city is in two places"),
    (_field(CITIES_POS, 7, "0,14"), "14 is not a city id"),
    (_sub(CITIES_POS, " 1/0/1/1/0 ", " 1/0/1/0/0 "), "the final round starts with the first city claimed, and city 13 is"),
    (_field(_sub(CITIES_POS, ":-:-:13 ", ":-:-:- "), 7, "0,2,13"), "the final round starts with the first city claimed, and none is"),
    (_seat(_sub(CITIES_POS, ":-:-:13 ", ":-:-:- "), 1, "010000:-:-:-:13"), "seat 1: has city 13 without meeting its requirement"),
    (_field(_seat(_sub(CITIES_POS, ":-:-:13 ", ":-:-:- "), 1, "010000:-:-:-:12"), 7, "0,2,13"), "both sides of one tile"),
    # the Trading Posts
    (_sub(POSTS_POS, ":-:1 ", ":-:1,3 "), "holds power 3 without meeting its requirement"),
    (_sub(POSTS_POS, ":-:1 ", ":-:- "), "meets power 1's requirement but does not hold it"),
    (_sub(POSTS_POS, ":-:1 ", ":-:7 "), "7 is not a power"),
    (_sub(POSTS_POS, ":-:1 ", ":-:1,1 "), "ids must be increasing and distinct"),
    (_field(POSTS_POS, 7, "1"), "a trading-posts game has nothing on the board"),
    # the Strongholds
    (_sub(STRONG_POS, "2=0x2", "2=0x3"), "seat 0 strongholds: 0 in hand and 4 on the board, a player has 3"),
    (_sub(STRONG_POS, "2=0x2", "2=0x0"), "card 2 holds 0 strongholds, expected 1-3"),
    (_sub(STRONG_POS, "2=0x2", "2=2x2"), "seat 2 on card 2 is not 0-1"),
    (_sub(STRONG_POS, "2=0x2", "5=0x2"), "card 5 is not face up in the market"),
    (_sub(STRONG_POS, "2=0x2,41=1x3", "41=1x3,2=0x2"), "market order"),
    (_sub(STRONG_POS, "2=0x2,41=1x3,72=0x1", "2=0x2,2=1x3,72=0x1"), "card 2 is listed twice"),
    (_sub(STRONG_POS, "2=0x2", "2=0"), "is not <card>=<seat>x<count>"),
    (STRONG_POS[:-1] + "4", "expected the strongholds in hand, 0-3"),
    (STRONG_POS[:-1] + "1", "seat 1 strongholds: 1 in hand and 3 on the board"),
    (STRONG_POS[:-2], "seat 1: expected tokens:cards:reserved:nobles:strongholds in hand"),
]


@pytest.mark.parametrize("text, message", BAD_POSITIONS)
def test_bad_spn2_positions(text, message):
    with pytest.raises(PositionError) as err:
        pos.from_text(text)
    assert message in str(err.value)


def _json(text):
    return pos.to_json(pos.from_text(text))


def _edited(text, edit):
    obj = json.loads(json.dumps(_json(text)))
    edit(obj)
    return obj


BAD_JSON = [
    (ORIENT_POS, lambda o: o["options"].pop("module"), "options.module: expected one of"),
    (ORIENT_POS, lambda o: o["options"].update(module="seafarers"), "got 'seafarers'"),
    (ORIENT_POS, lambda o: o["options"].update(module=["orient", "posts"]), "options.module: expected one of"),
    (ORIENT_POS, lambda o: o.update(format="splendor-position/1"), "only 'cap' is known"),
    (ORIENT_POS, lambda o: o.update(cities=[]), "unknown field(s) ['cities'] for module 'orient'"),
    (ORIENT_POS, lambda o: o.pop("discard"), "missing 'discard'"),
    (ORIENT_POS, lambda o: o["seats"][0].update(posts=[]), "unknown field(s) ['posts']"),
    (ORIENT_POS, lambda o: o["seats"][0]["jokers"].append({"card": 96}), "expected an object with card and colour"),
    (ORIENT_POS, lambda o: o["seats"][0]["jokers"][0].update(colour=5), "colour 5 of card 95 is not 0-4"),
    (ORIENT_POS, lambda o: o["seats"][0]["jokers"][0].update(colour=True), "expected int"),
    (ORIENT_POS, lambda o: o["seats"][0]["jokers"].append({"card": 95, "colour": 1}), "card 95 is listed twice"),
    (ORIENT_POS, lambda o: o["market"][0].pop(), "expected a list of 6"),
    (ORIENT_POS, lambda o: o["seats"][1]["reserved"][0].update(orient=True), "only a hidden blind reserve"),
    (STRONG_POS, lambda o: o["seats"][0]["reserved"].append({"level": 1, "orient": True, "blind": True}),
     "only a hidden blind reserve"),
    (STRONG_POS, lambda o: o["strongholds"].append({"card": 3, "seat": 0}), "expected an object with card, seat"),
    (STRONG_POS, lambda o: o["strongholds"].append({"card": 3, "seat": 0, "count": 1}),
     "0 in hand and 4 on the board"),
    (STRONG_POS, lambda o: o["seats"][0].update(strongholds="3"), "expected int"),
    (CITIES_POS, lambda o: o.update(cities=[0, 99]), "99 is not a city id"),
    (CITIES_POS, lambda o: o["seats"][0].pop("cities"), "missing 'cities'"),
    (POSTS_POS, lambda o: o["seats"][0].update(posts=[1, "2"]), "'2' is not an integer"),
    (spn(), lambda o: o["options"].update(module="orient"), "is format 'splendor-position/2'"),
]


@pytest.mark.parametrize("text, edit, message", BAD_JSON)
def test_bad_json_v2_positions(text, edit, message):
    with pytest.raises(PositionError) as err:
        pos.from_json(_edited(text, edit))
    assert message in str(err.value)


@pytest.mark.parametrize("module", list(MODULE_POSITIONS))
def test_random_spn2_edits_never_crash(module):
    rng = random.Random(module)
    text = MODULE_POSITIONS[module]
    alphabet = "0123456789,:/-?*.=xOwbgrky "
    for _ in range(400):
        chars = list(text)
        for _ in range(rng.randint(1, 2)):
            i = rng.randrange(len(chars))
            if rng.random() < 0.5:
                chars[i] = rng.choice(alphabet)
            else:
                del chars[i]
        bad = "".join(chars)
        try:
            d = pos.from_text(bad)
        except PositionError:
            continue
        assert pos.to_text(d) == " ".join(bad.split()) or pos.from_text(pos.to_text(d)) == d


@pytest.mark.parametrize("module", list(MODULE_POSITIONS))
def test_random_json_edits_never_crash(module):
    rng = random.Random(module)
    good = _json(MODULE_POSITIONS[module])
    values = [None, -1, 0, 1, 3, 200, True, "x", [], {}, [0], {"card": 1}]

    def paths(o, prefix=()):
        yield prefix
        if isinstance(o, dict):
            for k, v in o.items():
                yield from paths(v, prefix + (k,))
        elif isinstance(o, list):
            for i, v in enumerate(o):
                yield from paths(v, prefix + (i,))
    all_paths = [p for p in paths(good) if p]
    for _ in range(400):
        obj = json.loads(json.dumps(good))
        p = rng.choice(all_paths)
        target = obj
        for k in p[:-1]:
            target = target[k]
        if isinstance(target, dict) and rng.random() < 0.2:
            del target[p[-1]]
        else:
            target[p[-1]] = rng.choice(values)
        try:
            pos.from_json(obj)
        except PositionError:
            pass


# -- config ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("module", ["cities", "orient", "posts", "strongholds"])
def test_config_modules(module):
    cfg = Config(3, modules=(module,))
    assert cfg.module == module and cfg.flags == pos.MODULE_FLAGS[module]
    assert Config.from_json(cfg.to_json()) == cfg and cfg.to_json()["modules"] == [module]
    assert Config(3, modules=[module]) == cfg == Config(3, modules=module)
    assert Config().module is None and Config().flags == 0 and Config().modules == ()


@pytest.mark.parametrize("kwargs, message", [
    (dict(modules=("seafarers",)), "unknown module 'seafarers'; the modules are cities, orient, posts, strongholds"),
    (dict(modules=("trading_posts",)), "unknown module 'trading_posts'"),
    (dict(modules=("orient", "orient")), "one module at most"),
    (dict(modules=("cities", "posts")), "one module at most"),
    (dict(modules=3), "modules must be a tuple of module names"),
    (dict(modules=(None,)), "unknown module None"),
])
def test_bad_module_configs(kwargs, message):
    with pytest.raises(ConfigError) as err:
        Config(**kwargs)
    assert message in str(err.value)


@pytest.mark.parametrize("obj, message", [
    ({"modules": "orient"}, "config.modules: expected a list"),
    ({"modules": ["orient", "cities"]}, "one module at most"),
    ({"modules": [1]}, "unknown module 1"),
])
def test_bad_module_config_json(obj, message):
    with pytest.raises(ConfigError) as err:
        Config.from_json(obj)
    assert message in str(err.value)


# -- tree keys ------------------------------------------------------------------------------------

@pytest.mark.parametrize("line, moves", [
    ([keys.KEY_BUY + 95, keys.A_JOKER + 2], ["b95/jg"]),
    ([keys.KEY_BUY + 108, keys.A_JOKER + 3, keys.KEY_FREE + 12, 0], ["b108/jr/f12", "+wbg"]),
    ([keys.KEY_BUY + 105, keys.A_HOLD + 7, keys.A_RETURN + 4, keys.A_NOBLE + 3], ["b105/h7/-k/n3"]),
    ([keys.KEY_BUY + 115, keys.A_SACRIFICE + 80, keys.A_SACRIFICE + 84], ["b115/d80/d84"]),
    ([keys.KEY_BUY + 12, keys.KEY_SH_PLACE + 30], ["b12/t30"]),
    ([keys.KEY_BUY + 12, keys.KEY_SH_FROM + 30, keys.KEY_SH_TO + 31], ["b12/m30:31"]),
    ([keys.KEY_BUY + 12, keys.KEY_SH_REMOVE + 30, keys.A_DECLINE], ["b12/x30"]),
    ([0, keys.A_CONQUER, keys.KEY_SH_PLACE + 5], ["+wbg/b?/t5"]),
    ([keys.KEY_BUY + 12, keys.A_GEM + 0], ["b12/+w"]),
    ([keys.A_TAKE2S + 3, keys.A_GEM + 4, keys.A_RETURN + 0], ["+rr/+k/-w"]),
    ([keys.KEY_BUY + 80, keys.A_CITY + 4], ["b80/c4"]),
    ([keys.A_RES_DECK + 4, keys.A_RES_DECK + 0], ["rO2", "rL1"]),
    ([keys.KEY_RESERVE + 119], ["r119"]),
])
def test_line_to_moves(line, moves):
    assert keys.line_to_moves(line) == moves
    for k in line[1:]:
        assert keys.is_decision(k) == (k not in (0, keys.A_RES_DECK)), k


@pytest.mark.parametrize("text, expected", [
    ("b108/jr/f12/-k/n3", ([keys.KEY_BUY + 108, keys.A_JOKER + 3, keys.KEY_FREE + 12, keys.A_RETURN + 4],
                           keys.A_NOBLE + 3)),
    ("b12/m30:31/b31/t1", ([keys.KEY_BUY + 12, keys.KEY_SH_FROM + 30, keys.KEY_SH_TO + 31, keys.A_CONQUER,
                            keys.KEY_SH_PLACE + 1], None)),
    ("b115/d80/d84", ([keys.KEY_BUY + 115, keys.A_SACRIFICE + 80, keys.A_SACRIFICE + 84], None)),
    ("+rr/+k/-ww", ([keys.A_TAKE2S + 3, keys.A_GEM + 4, keys.A_RETURN, keys.A_RETURN], None)),
    ("b80/c4", ([keys.KEY_BUY + 80], None)),
    ("rO3", ([keys.A_RES_DECK + 5], None)),
    ("b12/x30", ([keys.KEY_BUY + 12, keys.KEY_SH_REMOVE + 30], None)),
    ("b105/h7", ([keys.KEY_BUY + 105, keys.A_HOLD + 7], None)),
])
def test_move_keys(text, expected):
    assert keys.move_keys(Move.parse(text)) == expected
    ks, noble = expected
    if "b?" not in keys.line_to_moves(ks)[0] and "/c" not in text:
        assert keys.line_to_moves(ks + ([noble] if noble else [])) == [text]


def test_action_ids_and_keys_are_the_engines_blocks():
    """The engine numbers actions and tree keys once (the enum of _engine.pxd, exported by the
    compiled module): consecutive blocks of the sizes the decoders of state.py and
    players/keys.py assume, and a fresh game's actions decode to its legal moves both ways."""
    from splendor_ai import _engine as E
    from splendor_ai import state
    market = E.NLEV * E.NSLOT
    blocks = [("A_TAKE3", 10), ("A_TAKE2D", 10), ("A_TAKE1", E.NCOL), ("A_TAKE2S", E.NCOL),
              ("A_RES_SLOT", market), ("A_RES_DECK", E.NDECK), ("A_BUY_SLOT", market), ("A_BUY_HAND", E.MAXRES),
              ("A_PASS", 1), ("A_RETURN", E.NTOK), ("A_NOBLE", E.NNOBLES), ("A_JOKER", E.NCOL),
              ("A_HOLD", E.NNOBLES), ("A_FREE", market), ("A_SACRIFICE", E.NCARDS), ("A_SH_PLACE", market),
              ("A_SH_FROM", market), ("A_SH_TO", market), ("A_SH_REMOVE", market), ("A_CONQUER", 1),
              ("A_DECLINE", 1), ("A_GEM", E.NCOL), ("A_CITY", E.NCITIES)]
    blocks += [(k, E.NCARDS) for k in ("KEY_RESERVE", "KEY_BUY", "KEY_FREE", "KEY_SH_PLACE", "KEY_SH_FROM",
                                       "KEY_SH_TO", "KEY_SH_REMOVE")]
    start = 0
    for name, size in blocks:
        assert getattr(E, name) == start, name
        start += size
    assert start == E.NKEYS and E.KEY_RESERVE == E.NUM_ACTIONS and E.A_BASE_END == E.A_JOKER
    assert (len(state.TAKE3), len(state.TAKE2)) == (10, 10)
    for seed in range(3):
        st = State.new(2, seed=seed)
        core = st._core
        acts = core.legal_actions()
        assert len(acts) == len(st.legal_moves) == 10 + 5 + 12 + 3   # takes, reserves (face up, decks)
        assert {keys.fragment(core.action_key(a)) for a in acts} == {str(m) for m in st.legal_moves}
        assert {state._main_move(core.to_dict(), a) for a in acts} == set(st.legal_moves)


def test_data_used_by_the_positions():
    assert POSTS[1].requirement == (2, 0, 0, 0, 0) and CITIES[13].prestige == 17
    assert sum(CARDS[c].points for c in FIVE_POINTERS) == 20


# -- the middle of a two-step turn (docs/NOTATION.md, "Two-step turns") ----------------------------

def _mid_turn():
    """Seat 0 bought card 0 from the market; card 4 refilled its slot; the stronghold action is next."""
    from splendor_ai import State
    st = State(spn2("strongholds", seats=[seat2("310010")]))
    st.push("b0")
    return st


def test_mid_turn_positions_round_trip():
    from splendor_ai import State, View
    st = _mid_turn()
    text = st.position()
    assert text.split()[6] == "0/0/0/0/0/b0"
    js = st.to_json()
    assert js["step"] == "b0" and pos.from_json(js)["step"] == 0
    for other in (State(text), State.from_json(js), State.from_json(json.dumps(js))):
        assert other.position() == text and other.partial_move == st.partial_move
        assert set(other.legal_moves) == set(st.legal_moves)
    view = st.view(1)
    assert View.from_position(view.position(), 1).position() == view.position()
    assert View.from_position(view.position(), 1).partial_move == st.partial_move
    # at a turn boundary nothing is written
    st.push("t4")
    assert len(st.position().split()[6].split("/")) == 5 and "step" not in st.to_json()


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.replace("/b0 ", "/b5 "), "card 5 is not one of seat 0's cards"),
    (lambda t: t.replace("/b0 ", "/b "), "then /b<card>"),
    (lambda t: t.replace("/b0 ", "/b1234 "), "then /b<card>"),
    (lambda t: t.replace("/b0 ", "/r0 "), "then /b<card>"),
    (lambda t: t.replace("0/0/0/0/0/b0", "0/0/2/0/1/b0").replace(" 310010:0:", " 310010:0:"),
     "follows no pass in a row"),
])
def test_bad_mid_turn_positions(edit, message):
    from splendor_ai import State
    text = edit(_mid_turn().position())
    with pytest.raises(PositionError, match=message):
        State(text)


def test_mid_turn_only_with_the_strongholds():
    st = _mid_turn()
    for module in ("orient", "cities", "posts"):
        text = spn2(module, seats=[seat2("000000", cards=[0])]).replace(" 0/0/0/0/0 ", " 0/0/0/0/0/b0 ")
        with pytest.raises(PositionError, match="only in a Strongholds game"):
            pos.from_text(text)
    with pytest.raises(PositionError, match="only in a Strongholds game"):
        pos.from_text(spn().replace(" 0/0/0/0/0 ", " 0/0/0/0/0/b0 "))
    js = st.to_json()
    for bad in ("b", 10, "t4", "b0/t4", None):
        with pytest.raises(PositionError, match="position.step"):
            pos.from_json({**js, "step": bad})
    from splendor_ai import State
    orient = State(spn2("orient", seats=[seat2("000000")])).to_json()
    with pytest.raises(PositionError, match="unknown field"):
        pos.from_json({**orient, "step": "b0"})


def test_a_mid_turn_position_of_a_finished_game_is_refused():
    with pytest.raises(PositionError, match="the game is over"):
        pos.from_text(_mid_turn().position().replace("0/0/0/0/0/b0", "0/0/2/0/0/b0")
                      .replace("SPN2 2:strongholds", "SPN2 2:strongholds,cap=1"))


def test_a_mid_turn_position_needs_a_stronghold_action():
    # every card bought, the market and the decks empty, no stronghold on the board: after a
    # refill this cannot be (the new card can always take a stronghold), so it is refused
    from splendor_ai import State
    empty = [[None] * 4] * 3
    text = spn2("strongholds", seats=[seat2(cards=range(45)), seat2(cards=range(45, 90))], market=empty)
    assert State(text).position() == text
    with pytest.raises(PositionError, match="leaves no stronghold action"):
        State(text.replace(" 0/0/0/0/0 ", " 0/0/0/0/0/b0 "))
