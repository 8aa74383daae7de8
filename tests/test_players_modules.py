"""The AI players in the Cities of Splendor modules (docs/MODULES.md): smoke games at 2-4 players,
reproducibility, hidden information (the Orient decks and blind reserves from them), and the module
terms of the evaluation and the action scores (the forced wins that need a module's rules are in
tests/test_players.py, with the base game's)."""
import pytest

from splendor_ai import State
from splendor_ai import _policy
from splendor_ai.match import play_game
from splendor_ai.players import make_player
from splendor_ai.players.evaluation import DEFAULT_WEIGHTS, MODULE_WEIGHTS, evaluate
from splendor_ai.state import Config
from test_players import CITIES_WIN, FORCED, ORIENT_WIN, SH_WIN, info_json

MODULES = ("cities", "orient", "posts", "strongholds")
SPECS = ["random", "greedy", "mcts(iterations=60)", "expectimax(depth=1)"]

def config(module, players=2):
    return Config(players=players, modules=(module,))


# -- smoke games and reproducibility ------------------------------------------------------------------

@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("module", MODULES)
def test_smoke_games_between_all_players(module, players):
    specs = [SPECS[(players + i) % 4] for i in range(players)]
    if players == 2:
        specs = ["mcts(iterations=60)", "expectimax(depth=1)"] if module in ("cities", "posts") else ["greedy", "random"]
    first = play_game([make_player(s, seed=i) for i, s in enumerate(specs)], seed=players, config=config(module, players))
    assert first.termination == "normal" and first.result is not None
    assert first.start.startswith("SPN2")
    again = play_game([make_player(s, seed=i) for i, s in enumerate(specs)], seed=players, config=config(module, players))
    assert again.moves == first.moves


def mid_game(module, players=2, turns=12, seed=3) -> State:
    """A module game a few turns in, played by the greedy player (seat 1 reserves blind from an
    Orient deck in the Orient)."""
    st = State.new(players, seed=seed, config=config(module, players))
    greedy = make_player("greedy", seed=1)
    while st.turn < turns and not st.is_over():
        if module == "orient" and st.to_move == 1 and st.turn < 4:
            st.push("rO1" if st.turn < 2 else "rO3")
        else:
            st.push(greedy.choose(st.view()).move)
    return st


@pytest.mark.parametrize("module", MODULES)
def test_same_seed_same_search(module):
    st = mid_game(module)
    for spec in ["mcts(iterations=200)", "expectimax(depth=2)", "greedy", "random"]:
        a = make_player(spec, seed=3).choose(st.view())
        b = make_player(spec, seed=3).choose(st.view())
        assert a.move == b.move and info_json(a) == info_json(b), spec
        assert a.move in st.legal_moves


@pytest.mark.parametrize("module", MODULES)
def test_hidden_cards_do_not_change_the_move(module):
    """Two true states that seat 0 cannot tell apart (other deck orders, including the Orient
    decks, and other cards behind seat 1's blind reserves from the Orient decks) give every
    seeded player the same decision."""
    st = mid_game(module, turns=10)
    view = st.view(0) if st.to_move == 0 else None
    if view is None:
        st.push(make_player("greedy").choose(st.view()).move)
        view = st.view(0)
    twins = [view.resample(k) for k in (1, 2)]
    assert twins[0].position() != twins[1].position()
    assert twins[0].view(0) == twins[1].view(0) == view
    if module == "orient":
        assert sum(st.seats[1].reserved_blind) == 2 and all(st.seats[1].reserved_orient)
        assert twins[0].seats[1].reserved != twins[1].seats[1].reserved or twins[0].position() != twins[1].position()
    for spec in SPECS + ["mcts(iterations=200,mode='pimc',dets=3)", "expectimax(depth=2,dets=2)"]:
        da = make_player(spec, seed=8).choose(twins[0].view(0))
        db = make_player(spec, seed=8).choose(twins[1].view(0))
        assert info_json(da) == info_json(db), spec


# -- what the evaluation and the action scores know -------------------------------------------------

def scores_by_action(st: State) -> dict[int, float]:
    acts, scores = _policy.action_scores(st._core)
    return dict(zip(acts, scores))


def test_base_game_evaluation_ignores_the_module_weights():
    st = State.new(2, seed=4)
    for m in ["+wbg", "+grk", "rL2"]:
        st.push(m)
    assert evaluate(st) == evaluate(st, module_weights=[9.0] * len(MODULE_WEIGHTS))


def test_a_claimed_city_is_nearly_a_win():
    st = State(CITIES_WIN)
    no_claim = list(MODULE_WEIGHTS)
    no_claim[1] = 0.0
    v, w = evaluate(st), evaluate(st, module_weights=no_claim)
    assert v[0] - w[0] == pytest.approx(MODULE_WEIGHTS[1]) and v[1] == w[1]   # seat 0 holds a city
    assert MODULE_WEIGHTS[1] >= 20
    st.push("b39/c6")
    assert st.is_over() and st.result().winners == (1,)


def test_opponent_strongholds_cost_and_own_ones_count():
    st = State(SH_WIN)
    base = evaluate(st)
    zero = evaluate(st, module_weights=[0.0] * len(MODULE_WEIGHTS))
    # seat 1's three strongholds on an affordable card (a conquest next turn) are worth something
    assert base[1] > zero[1]


def test_decision_scores():
    # Orient: after buying the take_l2 card, the free level-2 card worth 3 points scores best
    st = State(ORIENT_WIN)
    core = st._core.copy()
    buy = [a for a in core.legal_actions() if core.action_key(a) == 458 + 110]
    core.apply(buy[0])
    acts, scores = _policy.action_scores(core)
    best = acts[max(range(len(acts)), key=scores.__getitem__)]
    assert core.action_key(best) == 578 + 45     # KEY_FREE + #45
    # Strongholds: after the purchase, removing seat 0's stronghold (keeping the three for the
    # conquest) scores above moving one of the three away
    core = State(SH_WIN)._core.copy()
    core.apply([a for a in core.legal_actions() if core.action_key(a) == 458 + 44][0])
    acts, scores = _policy.action_scores(core)
    best = acts[max(range(len(acts)), key=scores.__getitem__)]
    assert core.action_key(best) == 1058 + 70   # KEY_SH_REMOVE + #70
    # then the conquest scores above declining it
    core.apply(best)
    acts, scores = _policy.action_scores(core)
    assert acts == [317, 318] and scores[0] > scores[1]


def test_module_weights_are_validated():
    from splendor_ai.errors import ConfigError
    with pytest.raises(ConfigError, match="module_weights"):
        make_player("mcts(module_weights=(1.0, 2.0))")
    with pytest.raises(ConfigError, match="module_weights"):
        make_player("expectimax(module_weights=(1.0,))")
    assert len(MODULE_WEIGHTS) == 12 and len(DEFAULT_WEIGHTS) == 10


@pytest.mark.parametrize("module,first,move,chance", [
    ("orient", None, "b110/f45", 5), ("strongholds", "b44", "b44/x70", 0),
    ("strongholds", "b44", "b44/x70/b72/t0", 1), ("strongholds", None, "b44", None)])
def test_module_refills_are_chance_nodes(module, first, move, chance):
    """Orient: the buy draws (1 chance node, 4 outcomes), then in each outcome the free card
    refills its slot: 1 + 4. Strongholds: a purchase's slot is refilled at once, before its
    stronghold action, so the turn is played in two steps (docs/RULES.md): in its second step
    (after b44, card 42 refilled the slot) a declined conquest draws nothing, and a conquest draws
    once, after its own stronghold action. Searched from before the purchase, the first step is
    a chance node (4 outcomes, the unseen level-2 cards) and each outcome's second step finds
    the conquest, with its own refill: more chance nodes, and a forced win."""
    from splendor_ai import _expectimax
    st = State(FORCED[module][0])
    if first is not None:
        st.push(first)
        assert st.market[1][3] == 42
    view = st.view(1)
    table = view.legal_moves._table
    m = next(m for m in table if str(m) == move)
    search = _expectimax.Search(view._core, [table[m]], dict(algo=0, chance_samples=4, eval_bound=30.0,
                                                           weights=list(DEFAULT_WEIGHTS)), 1, 1)
    search.run(1)
    if chance is not None:
        assert search.chance_nodes == chance
    else:
        assert view.is_partial(m) and search.chance_nodes > 1 + 4
        assert search.results()[0][0][1] > 30.0     # a win in every outcome


@pytest.mark.parametrize("module", ["cities", "orient", "posts", "strongholds"])
def test_search_lines_are_whole_turns(module):
    """Every line MCTS reports is whole turns in canonical notation: a line that reaches a leaf
    searched once ends with the turn before it, whose decisions (a sacrifice's two discards, an
    Orient joker, returns) the tree may not have reached yet."""
    from module_positions import decision_position
    from splendor_ai.move import Move
    st, _ = decision_position(module)
    view = st.view(st.to_move)
    for seed in range(1, 6):
        info = make_player("mcts(iterations=600)", seed=seed).choose(view).info
        for m in info.moves:
            for text in m.pv:
                assert str(Move.parse(text)) == text or "b?" in text, (seed, m.pv)
