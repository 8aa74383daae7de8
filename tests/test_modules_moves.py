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
    # buying card 0 refills its slot at once (card 4, the level-1 deck's top) and the stronghold
    # action may use the new card: the turn is played in two steps (docs/RULES.md)
    st = State(spn2("strongholds", seats=[seat2("310010")]))
    assert starting(st, "b0") == {"b0"} and st.is_partial("b0") and st.view().is_partial("b0")
    before = st.position()
    assert st.push("b0") == Move.parse("b0")
    assert st.to_move == 0 and st.turn == 0 and st.partial_move == Move.parse("b0") and not st.is_over()
    assert st.market[0][0] == 4 and st.move_stack == [Move.parse("b0")]
    market = [4, 1, 2, 3, 40, 41, 42, 43, 70, 71, 72, 73]
    assert legal(st) == {f"b0/t{c}" for c in market} == {str(m) for m in st.view().legal_moves}
    mid = st.position()
    assert mid.split()[6] == "0/0/0/0/0/b0" and State(mid).position() == mid
    assert State.from_json(st.to_json()).position() == mid and st.to_json()["step"] == "b0"
    assert str(st.push("t4")) == "b0/t4"    # the rest of the turn alone stands for the whole turn
    assert st.to_move == 1 and st.partial_move is None and st.strongholds == {4: (0, 1)}
    assert st.move_stack == [Move.parse("b0/t4")]
    assert st.pop() == Move.parse("b0/t4") and st.position() == mid and st.move_stack == [Move.parse("b0")]
    assert st.pop() == Move.parse("b0") and st.position() == before and st.move_stack == []
    # the whole turn in one push: a true state knows the card; a view cannot
    assert "b0/t4" not in st.legal_moves
    with pytest.raises(IllegalMoveError, match="two steps: first b0"):
        st.view().parse_move("b0/t4")
    st.push("b0/t4")
    assert st.move_stack == [Move.parse("b0/t4")] and st.strongholds == {4: (0, 1)}
    assert st.pop() == Move.parse("b0/t4") and st.position() == before


def test_move_remove_and_a_blocked_card():
    st = State(spn2("strongholds", seats=[seat2("310010")], strongholds={2: (0, 1), 41: (1, 2)}))
    assert starting(st, "b0") == {"b0"}
    assert not starting(st, "b41") and "r41" not in legal(st)
    st.push("b0")
    others = [4, 1, 2, 3, 40, 42, 43, 70, 71, 72, 73]
    expected = {f"b0/t{c}" for c in others} | {f"b0/m2:{c}" for c in others if c != 2} | {"b0/x41"}
    assert legal(st) == expected


def test_conquest():
    # the conquered card's slot is refilled only after the conquest's stronghold action (RULES.md)
    st = State(spn2("strongholds", seats=[seat2("030000")], strongholds={1: (0, 3)}))
    rest = [0, 2, 3, 40, 41, 42, 43, 70, 71, 72, 73]
    assert starting(st, "+wgk") == {"+wgk"} | {f"+wgk/b1/t{c}" for c in rest}
    assert not st.is_partial("+wgk/b1/t40")
    st.push("+wgk/b1/t40")
    assert 1 in st.seats[0].cards and st.strongholds == {40: (0, 1)} and st.seats[0].strongholds == 2
    assert st.market[0][1] == 4 and st.to_move == 1


# -- random games: the Python layer over the engine ------------------------------------------------

def _random_game(module, players, seed, turns):
    """A random game, and (the state before, the move pushed) for every push: a two-step turn is
    pushed in two steps."""
    st = State.new(players, seed=seed, config=Config(players, modules=(module,)))
    rng = random.Random(seed)
    pushes = []
    for _ in range(turns):
        if st.is_over():
            break
        before = st.copy(stack=False)
        pushes.append((before, st.push(rng.choice(list(st.legal_moves)))))
    return st, pushes


@pytest.mark.parametrize("module", MODULES)
def test_random_module_games(module):
    steps = 0
    for seed in range(3):
        st, pushes = _random_game(module, 2 + seed, seed, 60)
        assert st.config.module == module
        steps += sum(before.is_partial(m) for before, m in pushes)
        for before, move in pushes:
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
            if before.partial_move is not None:   # the second step: the keys of the first come before
                engine_keys = [keys.main_key(before.partial_move)] + engine_keys
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
    assert (steps >= 3) == (module == "strongholds")   # two-step turns were played in two steps


@pytest.mark.parametrize("module", MODULES)
def test_module_game_records(module):
    st, _ = _random_game(module, 2, 11, 400)
    rec = GameRecord.from_state(st, seed=11, players=["random", "random"])
    assert rec.config == Config(2, modules=(module,)) and rec.start.startswith("SPN2 ")
    again = GameRecord.from_line(rec.to_line())
    assert again == rec
    assert again.replay(check_seed=True).position() == st.position()


def test_two_step_moves_depend_on_the_view_only():
    """Twin Strongholds games that differ only in the order of the level-1 deck: the same moves
    before a purchase (nothing names the card it will reveal); after it each lists its own card."""
    text = spn2("strongholds", seats=[seat2("310010")])
    fields = text.split()
    deck = fields[4].split("/")
    l1 = deck[0].split(".")
    twin_text = " ".join(fields[:4] + ["/".join([".".join([l1[1], l1[0]] + l1[2:])] + deck[1:])] + fields[5:])
    st, twin = State(text), State(twin_text)
    assert st.view().position() == twin.view().position()
    assert legal(st) == legal(twin) and {st.describe(m) for m in st.legal_moves} == {
        twin.describe(m) for m in twin.legal_moves}
    st.push("b0")
    twin.push("b0")
    assert (st.market[0][0], twin.market[0][0]) == (int(l1[0]), int(l1[1]))
    assert f"b0/t{l1[0]}" in legal(st) and f"b0/t{l1[0]}" not in legal(twin)
    assert legal(st.view()) == legal(st) and legal(twin.view()) == legal(twin)


def test_players_play_two_step_turns():
    """Every kind of player plays Strongholds games through the match runner: a two-step turn is
    asked for twice and recorded as one whole turn."""
    from splendor_ai.match import play_game
    from splendor_ai.players import make_player
    for specs in (["random", "greedy"], ["mcts(iterations=60)", "expectimax(depth=1,dets=2)"]):
        players = [make_player(s, seed=i) for i, s in enumerate(specs)]
        out = play_game(players, seed=5, config=Config(2, cap=12, modules=("strongholds",)))
        assert out.termination == "normal" and len(out.seconds) == len(out.moves) == out.final.turn
        assert out.final.partial_move is None
        st, two_step = State(out.start), 0
        for m in out.moves:
            two_step += st.is_partial(Move.parse(m).action)
            st.push(m)                    # a whole turn in one push, as records replay
        assert two_step >= 2 and st.position() == out.final.position()
        rec = GameRecord.from_state(out.final, 5, specs, start=out.start)
        assert rec.moves == out.moves and rec.replay().position() == out.final.position()
        for p in players:
            p.close()
