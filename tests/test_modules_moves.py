"""Whole-turn legal moves of the Cities of Splendor modules on hand-made SPN2 positions (the
expected move sets are this file's own reading of docs/MODULES.md), and the Python layer over the
engine in random module games: notation, positions, views, tree keys, records, describe."""
import random

import pytest

from handmade import seat2, spn2
from splendor_ai import Config, IllegalMoveError, Move, State, View
from splendor_ai.cards import CARDS
from splendor_ai.players import keys
from splendor_ai.records import GameRecord

MODULES = ("cities", "orient", "posts", "strongholds")


def legal(st) -> set[str]:
    return {str(m) for m in st.legal_moves}


def starting(st, prefix: str) -> set[str]:
    return {m for m in legal(st) if m == prefix or m.startswith(prefix + "/")}


# -- the Orient -------------------------------------------------------------------------------------

def test_joker_joins_a_colour_the_player_has():
    st = State(spn2("orient", seats=[seat2("200200", cards=[0, 8])], market=[[1, 2, 3, 4, 95, 90], None, None]))
    assert starting(st, "b95") == {"b95/jw", "b95/jb"}
    assert {"b90", "r95", "rO1", "rO2", "rO3", "rL1"} <= legal(st)
    assert st.describe("b95/jb") == ("Player 1 buys card #95 (level 1 Orient, joker), paying 2 white and 2 red, "
                                     "attaching the joker to their blue cards.")
    with pytest.raises(IllegalMoveError, match="the decisions after b95 must be one of: jb, jw"):
        st.push("b95/jr")
    st.push("b95/jb")
    assert st.seats[0].jokers == ((95, 1),) and st.seats[0].bonuses == (1, 2, 0, 0, 0)
    assert State(st.position()).position() == st.position()


def test_a_joker_needs_a_coloured_card():
    st = State(spn2("orient", seats=[seat2("300200")], market=[[1, 2, 3, 4, 95, 90], None, None]))
    assert not starting(st, "b95") and "r95" in legal(st)


def test_sacrifice_pairs_in_increasing_order():
    market = [None, None, [70, 71, 72, 73, 115, 110]]
    st = State(spn2("orient", seats=[seat2(cards=[32, 33, 34])], market=market))
    assert starting(st, "b115") == {"b115/d32/d33", "b115/d32/d34", "b115/d33/d34"}
    st = State(spn2("orient", seats=[seat2(cards=[0, 32, 33, 95], jokers=["95k"])], market=market))
    assert starting(st, "b115") == {"b115/d32/d33", "b115/d32/d95", "b115/d33/d95"}
    st.push("b115/d32/d95")
    assert set(st.discard) == {32, 95} and st.seats[0].jokers == () and 115 in st.seats[0].cards
    assert State(st.position()).position() == st.position()


def test_reserve_a_noble():
    st = State(spn2("orient", seats=[seat2("022220")], market=[None, [40, 41, 42, 43, 105, 100], None]))
    assert starting(st, "b105") == {"b105/h0", "b105/h1", "b105/h2"}
    st.push("b105/h1")
    assert st.seats[0].held_nobles == (1,) and st.nobles == (0, 2)


def test_free_card_then_its_own_ability():
    st = State(spn2("orient", seats=[seat2("030010", cards=[0, 1, 2, 3])],
                    market=[[4, 5, 6, 7, 95, 90], [40, 41, 42, 43, 108, 100], None]))
    frees = starting(st, "b108")
    assert frees == {"b108/jw/f4", "b108/jw/f5", "b108/jw/f6", "b108/jw/f7", "b108/jw/f90", "b108/jw/f95/jw"}
    st.push("b108/jw/f95/jw")
    assert st.seats[0].jokers == ((95, 0), (108, 0)) and st.seats[0].bonuses[0] == 6


def test_gold_card_pays_and_is_discarded():
    st = State(spn2("orient", seats=[seat2("010000", cards=[90])], market=[[1, 2, 3, 4, 95, 91], None, None]))
    assert "b1" in legal(st)
    st.push("b1")
    assert 90 in st.discard and st.seats[0].cards == (1,)


# -- the Cities -------------------------------------------------------------------------------------

FIVE = [c.id for c in CARDS if c.points == 5][:4]   # 20 prestige


def test_one_city_met_is_claimed_and_named():
    st = State(spn2("cities", seats=[seat2("000000", cards=FIVE)], cities=(13, 2, 4)))
    moves = legal(st)
    assert moves and all(m.endswith("/c13") for m in moves)
    assert st.push("+wbg") == Move.parse("+wbg/c13")   # the only city met is filled in
    assert str(st.pop()) == "+wbg/c13"
    st.push("+wbg/c13")
    assert st.seats[0].cities == (13,) and st.cities == (2, 4) and st.final_round
    st.push("+wbg")
    assert st.is_over() and st.result().winners == (0,) and st.result().ranks == (1, 2)


def test_a_choice_of_cities():
    cards = FIVE + [0, 1, 2, 3, 24, 25, 26]
    st = State(spn2("cities", seats=[seat2("000000", cards=cards)], cities=(13, 2, 4)))
    assert {"+wbg/c4", "+wbg/c13"} <= legal(st) and "+wbg" not in legal(st)
    with pytest.raises(IllegalMoveError, match="the city must be one of c4, c13"):
        st.push("+wbg")


# -- the Trading Posts ------------------------------------------------------------------------------

def test_extra_gem_after_a_purchase():
    st = State(spn2("posts", seats=[seat2("100000", cards=[0, 24, 25, 26], posts=[0])],
                    market=[[1, 2, 3, 27], None, None]))
    assert starting(st, "b27") == {"b27/+w", "b27/+b", "b27/+g", "b27/+r", "b27/+k"}


def test_extra_gem_after_taking_two():
    st = State(spn2("posts", seats=[seat2(cards=[0, 1], posts=[1])]))
    assert starting(st, "+rr") == {"+rr/+w", "+rr/+b", "+rr/+g", "+rr/+k"}


def test_a_post_is_claimed_at_the_end_of_the_turn():
    st = State(spn2("posts", seats=[seat2("101020", cards=[0, 24, 25])], market=[[1, 2, 3, 26], None, None]))
    assert "b26" in legal(st)
    st.push("b26")
    assert st.seats[0].posts == (0,)


# -- the Strongholds --------------------------------------------------------------------------------

def test_place_after_a_purchase():
    st = State(spn2("strongholds", seats=[seat2("310010")]))
    market = [1, 2, 3, 40, 41, 42, 43, 70, 71, 72, 73]   # slot 1 is refilled (card 4) after the action
    assert starting(st, "b0") == {f"b0/t{c}" for c in market}
    st.push("b0/t1")
    assert st.market[0][0] == 4 and st.strongholds == {1: (0, 1)}


def test_move_remove_and_a_blocked_card():
    st = State(spn2("strongholds", seats=[seat2("310010")], strongholds={2: (0, 1), 41: (1, 2)}))
    others = [1, 2, 3, 40, 42, 43, 70, 71, 72, 73]
    expected = {f"b0/t{c}" for c in others} | {f"b0/m2:{c}" for c in others if c != 2} | {"b0/x41"}
    assert starting(st, "b0") == expected
    assert not starting(st, "b41") and "r41" not in legal(st)


def test_conquest():
    st = State(spn2("strongholds", seats=[seat2("030000")], strongholds={1: (0, 3)}))
    rest = [0, 2, 3, 40, 41, 42, 43, 70, 71, 72, 73]
    assert starting(st, "+wgk") == {"+wgk"} | {f"+wgk/b1/t{c}" for c in rest}
    st.push("+wgk/b1/t40")
    assert 1 in st.seats[0].cards and st.strongholds == {40: (0, 1)} and st.seats[0].strongholds == 2


# -- random games: the Python layer over the engine ------------------------------------------------

def _random_game(module, players, seed, turns):
    st = State.new(players, seed=seed, config=Config(players, modules=(module,)))
    rng = random.Random(seed)
    positions = []
    for _ in range(turns):
        if st.is_over():
            break
        positions.append(st.copy(stack=False))
        st.push(rng.choice(list(st.legal_moves)))
    return st, positions


@pytest.mark.parametrize("module", MODULES)
def test_random_module_games(module):
    for seed in range(3):
        st, positions = _random_game(module, 2 + seed, seed, 60)
        assert st.config.module == module
        for before, move in zip(positions, st.move_stack):
            assert before.module == module
            text = before.position()
            assert text.startswith(f"SPN2 {before.players}:{module}")
            assert State(text).position() == text and State.from_json(before.to_json()).position() == text
            table = before.legal_moves._table
            assert move in table and Move.parse(str(move)) == move
            assert before.describe(move).endswith(".")
            assert [s.points for s in before.seats] == before._core.points()
            # tree keys: the move's keys are the engine's keys of its actions, less the
            # automatic or chosen visits (noble, city) and a declined conquest
            core = before._core.copy()
            engine_keys = []
            for a in table[move]:
                engine_keys.append(core.action_key(a))
                core.apply(a)
            ks, noble = keys.move_keys(move)
            visits = [k for k in engine_keys if keys.A_NOBLE <= k < keys.A_BASE_END
                      or keys.A_CITY <= k < keys.KEY_RESERVE or k == keys.A_DECLINE]
            assert [k for k in engine_keys if k not in visits] == ks
            line = keys.line_to_moves(engine_keys)
            assert len(line) == 1
            if "b?" not in line[0]:
                assert Move.parse(line[0]).without("n", "c") == move.without("n", "c")
            view = before.view()
            assert View.from_position(view.position()).position() == view.position()
            assert view.resample(seed).position().startswith("SPN2 ")


@pytest.mark.parametrize("module", MODULES)
def test_module_game_records(module):
    st, _ = _random_game(module, 2, 11, 400)
    rec = GameRecord.from_state(st, seed=11, players=["random", "random"])
    assert rec.config == Config(2, modules=(module,)) and rec.start.startswith("SPN2 ")
    again = GameRecord.from_line(rec.to_line())
    assert again == rec
    assert again.replay(check_seed=True).position() == st.position()
