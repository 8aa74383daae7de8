"""The compiled engine against the plain-Python rules model (tests/rules_model.py), move for move,
in the base game and each Cities of Splendor module: at every turn the engine's legal moves
(State.legal_moves as strings) equal the model's on the same position (whole turns, a two-step turn
standing as its first step: docs/RULES.md "Two-step turns"), a random whole turn of the model is
played on both (a two-step one in two steps, or in one push from the turn's start, when the engine's
moves in the middle of the turn must be the model's whole turns that begin with that step), and the
positions after it and the final results agree.

Module games start from the engine's own setup (State.new, the model reading its position) and from
the model's setup (Model.new, the engine reading its position). The default run plays a few games
per module and player count; `pytest -m slow` plays many more."""
import random
from collections import Counter

import pytest

from rules_model import Model
from splendor_ai import Config, State

MODULES = ("cities", "orient", "posts", "strongholds")


def decision_tags(move: str) -> set[str]:
    """The decision tokens of a whole-turn move: '-', 'n', 'j', 'h', 'f', 'd', 't', 'm', 'x', 'b',
    '+' and 'c' (docs/MODULES.md, Notation)."""
    return {tok[0] for tok in move.split("/")[1:]}


def play_both(module: str | None, players: int, seed: int, *, first: int | None = None, cap: int = 100,
              engine_setup: bool = True, buy_bias: float | None = 0.6, stats: Counter | None = None):
    """One game played on both implementations; returns (turns, result reason). The first player
    is seed % players unless given; `buy_bias` None picks uniformly among the legal moves."""
    rng = random.Random(seed)
    first = seed % players if first is None else first
    if engine_setup:
        st = State.new(players, seed=seed, first_player=first,
                       config=Config(players, cap=cap, modules=(module,) if module else ()))
        model = Model.from_position(st.position())
    else:
        model = Model.new(players, seed, first_player=first, cap=cap, module=module)
        st = State(model.position())
    assert st.position() == model.position()
    assert st.module == module
    stats = stats if stats is not None else Counter()
    turns = 0
    while True:
        engine_moves = {str(m) for m in st.legal_moves}
        model_moves = model.legal_steps()
        assert engine_moves == model_moves, (
            f"{module} {players}p seed {seed} turn {turns}: {st.position()}\n"
            f"engine only: {sorted(engine_moves - model_moves)[:12]}\n"
            f"model only: {sorted(model_moves - engine_moves)[:12]}")
        assert st.is_over() == model.is_over()
        if st.is_over():
            break
        moves = sorted(model.legal_moves())
        buys = [m for m in moves if m.startswith("b")]
        if buy_bias is None:
            move = rng.choice(moves)
        else:
            move = rng.choice(buys if buys and rng.random() < buy_bias else moves)
        before = st.position()
        first = model.two_step_first(move)
        if first is not None and rng.random() < 0.8:
            assert st.is_partial(first) and str(st.push(first)) == first and str(st.partial_move) == first
            assert st.to_move == model.to_move and not st.is_over()
            rest = {str(m) for m in st.legal_moves}
            assert rest == {m for m in model.legal_moves() if m.split("/")[0] == first}, (
                f"{module} {players}p seed {seed} turn {turns} after {first}: {st.position()}")
            assert {str(m) for m in st.view().legal_moves} == rest
            stats["two steps"] += 1
        st.push(move)
        model.apply(move)
        assert st.position() == model.position(), f"{module} after {move} at turn {turns} from {before}"
        turns += 1
        stats["turns"] += 1
        stats["moves listed"] += len(moves)
        for tag in decision_tags(move):
            stats[tag] += 1
        stats["blind reserve"] += move.startswith(("rL", "rO"))
        stats["pass"] += move.startswith("pass")
    result = st.result().to_json()
    assert result == model.result(), f"{module} result at {st.position()}"
    stats["reason " + result["reason"]] += 1
    return turns, result["reason"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_engine_matches_model_in_the_base_game(players):
    reasons = set()
    total = 0
    for seed in range(6):
        turns, reason = play_both(None, players, seed * 7919 + players, first=seed % players, buy_bias=None)
        total += turns
        reasons.add(reason)
    assert total > 300
    assert "points" in reasons


# The decisions each module's games must have played, so that the comparison went through them.
PLAYED = {
    "cities": {"c"},
    "orient": {"j", "h", "f"},
    "posts": {"+"},
    "strongholds": {"t", "x", "m", "b"},
}


def run(module: str, games: int, base_seed: int) -> Counter:
    stats = Counter()
    for players in (2, 3, 4):
        for g in range(games):
            seed = base_seed + 97 * g + players
            play_both(module, players, seed, engine_setup=g % 2 == 0,
                      cap=6 if g % 5 == 4 else 100, buy_bias=(0.6, 0.9, 0.3)[g % 3], stats=stats)
    return stats


@pytest.mark.parametrize("module", MODULES)
def test_engine_matches_model(module):
    stats = run(module, 3, 100)
    assert stats["turns"] > 150
    assert stats["reason points"] >= 2
    assert (stats["two steps"] > 20) == (module == "strongholds")


@pytest.mark.slow
@pytest.mark.parametrize("module", MODULES)
def test_engine_matches_model_many_games(module):
    stats = run(module, 40, 5000)
    print(f"\n{module}: {dict(sorted(stats.items()))}")
    assert stats["reason points"] >= 60 and stats["reason cap"] >= 10
    assert PLAYED[module] <= set(stats), PLAYED[module] - set(stats)
    assert (stats["two steps"] > 500) == (module == "strongholds")


@pytest.mark.parametrize("module", [None, *MODULES])
def test_games_at_cap_agree(module):
    if module is None:
        assert play_both(None, 3, 5, first=0, cap=4, buy_bias=None) == (12, "cap")
    else:
        assert play_both(module, 3, 5, cap=3) == (9, "cap")
