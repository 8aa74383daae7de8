"""The AI players: forced wins, reproducibility, hidden information, smoke games, a small strength check."""
import pytest

from handmade import seat, spn
from splendor_ai import State
from splendor_ai.errors import ConfigError
from splendor_ai.match import play_game
from splendor_ai.players import Limit, make_player

SEARCH_SPECS = ["mcts(iterations=300)", "mcts(iterations=300,mode='pimc',dets=4)",
                "mcts(iterations=300,puct=False,rollout='random')", "mcts(iterations=300,cutoff=4)",
                "mcts(iterations=300,workers=2)", "mcts(iterations=300,halving=4)"]

# Final round, seat 1 moves last. Seat 0 has 15 points from 3 cards; seat 1 has 13 and wins only
# by buying its reserved 3-point card #45 (6 white: 2 white bonuses + 4 white tokens) for 16.
BUY_TO_WIN = spn(2, seats=[seat(cards=[73, 77, 81]), seat("400000", cards=[71, 72, 85], reserved=[45])],
                 to_move=1, first=0, turn=41, final=1)
# The same, but the win comes from a noble: seat 1 has 13 points and 3 white 3 blue 2 green
# bonuses; any green card brings noble 5 (3w 3b 3g) and 16 points. #17 (green) is free for it; #7
# (1 point) would only reach 14.
NOBLE_TO_WIN = spn(2, seats=[seat(cards=[73, 77, 81]),
                             seat("002000", cards=[45, 0, 1, 51, 8, 9, 57, 16, 84])],
                   market=[[17, 7, 2, 3], None, None], nobles=[5, 0, 1], to_move=1, first=0, turn=41, final=1)
# Three players, seat 2 moves last: seat 0 has 15; seat 2 wins only with its reserved #45.
BUY_TO_WIN_3P = spn(3, seats=[seat(cards=[73, 77, 81]), seat(cards=[70]),
                              seat("400000", cards=[71, 72, 85], reserved=[45])],
                    to_move=2, first=0, turn=62, final=1)


def winning_moves(st: State) -> set[str]:
    out = set()
    for m in st.legal_moves:
        st.push(m)
        if st.is_over() and st.result().winners == (st.players - 1,):
            out.add(str(m))
        st.pop()
    return out


@pytest.mark.parametrize("position,expected", [(BUY_TO_WIN, "b45"), (NOBLE_TO_WIN, "b17/n5"),
                                               (BUY_TO_WIN_3P, "b45")])
@pytest.mark.parametrize("spec", SEARCH_SPECS + ["greedy"])
def test_forced_win_is_found(position, expected, spec):
    st = State(position)
    assert winning_moves(st) == {expected}
    player = make_player(spec, seed=11)
    decision = player.choose(st.view())
    assert str(decision.move) == expected
    if spec != "greedy":
        best = decision.info.moves[0]
        assert best.value == pytest.approx(1.0)
        assert all(m.value <= 0.5 for m in decision.info.moves[1:] if m.visits)
    player.close()


def info_json(decision):
    d = decision.info.to_json()
    d.pop("seconds")
    return d


@pytest.mark.parametrize("spec", SEARCH_SPECS)
def test_same_seed_same_search(spec):
    st = State.new(2, seed=5)
    for m in ["+wbg", "+grk", "rL2"]:
        st.push(m)
    a = make_player(spec, seed=3).choose(st.view())
    b = make_player(spec, seed=3).choose(st.view())
    assert a.move == b.move
    assert info_json(a) == info_json(b)
    assert a.info.iterations == 300 and sum(m.visits for m in a.info.moves) >= 299
    c = make_player(spec, seed=4).choose(st.view())
    assert info_json(c) != info_json(a)


def test_hidden_cards_do_not_change_the_move():
    # seat 1 reserved a level-3 card blind: #85 in one world, #86 in the other, and the decks
    # are in different orders; seat 0 sees the same thing in both
    a = State(spn(2, seats=[seat("110200", cards=[0, 8]), seat("021100", cards=[16], reserved=["*85"])],
                  decks=[[30, 31], [50], None], turn=6))
    b = State(spn(2, seats=[seat("110200", cards=[0, 8]), seat("021100", cards=[16], reserved=["*86"])],
                  decks=[[33, 35, 31], [61, 44], [80]], turn=6))
    assert a.position() != b.position()
    assert a.view(0) == b.view(0)
    for spec in SEARCH_SPECS[:3]:
        da = make_player(spec, seed=8).choose(a.view(0))
        db = make_player(spec, seed=8).choose(b.view(0))
        assert info_json(da) == info_json(db), spec


def test_players_see_views_and_perfect_information_is_labelled():
    st = State.new(2, seed=1)
    with pytest.raises(TypeError):
        make_player("mcts(iterations=10)").choose(st)
    perfect = make_player("mcts(iterations=50,mode='perfect')")
    assert perfect.perfect_information
    with pytest.raises(TypeError):
        perfect.choose(st.view())
    assert perfect.choose(st).move in st.legal_moves


@pytest.mark.parametrize("players", [2, 3, 4])
def test_smoke_games_between_all_players(players):
    specs = ["random", "greedy", "mcts(iterations=60)", "mcts(iterations=60,mode='pimc',dets=2)"][:players]
    first = play_game([make_player(s, seed=i) for i, s in enumerate(specs)], seed=players)
    assert first.termination == "normal" and first.result is not None
    again = play_game([make_player(s, seed=i) for i, s in enumerate(specs)], seed=players)
    assert again.moves == first.moves  # same seeds, same budgets: the same game (tree reuse included)


def test_time_limit_is_respected():
    st = State.new(2, seed=2)
    d = make_player("mcts(seconds=0.2)").choose(st.view())
    assert 0.15 < d.info.seconds < 0.5
    assert d.info.iterations > 100
    d = make_player("mcts").choose(st.view(), Limit(iterations=123))
    assert d.info.iterations == 123


def test_mcts_beats_random():
    wins = 0
    for deal in range(2):
        for mcts_seat in (0, 1):
            specs = ["random", "random"]
            specs[mcts_seat] = "mcts(iterations=200)"
            out = play_game([make_player(s, seed=deal) for s in specs], seed=100 + deal)
            wins += out.result.winners == (mcts_seat,)
    assert wins == 4


@pytest.mark.parametrize("spec,needle", [("mcts(c=)", "cannot parse"), ("alphazero", "unknown player"),
                                         ("mcts(foo=1)", "foo"), ("mcts(mode='x')", "mode"),
                                         ("mcts(iterations=-5)", "iterations"), ("mcts(1)", "key=value"),
                                         ("mcts(c_base=-1)", "c_base"), ("mcts(c='x')", "c: expected"),
                                         ("mcts(halving=1)", "halving"), ("mcts(halving_warm=1.5)", "halving_warm")])
def test_bad_specs(spec, needle):
    with pytest.raises(ConfigError, match=needle):
        make_player(spec)


def _mid_game_views(players: int, seed: int, count: int):
    """Views (seat to move) from greedy self-play, some with blind reserves."""
    out, game = [], 0
    while len(out) < count:
        bots = [make_player("greedy", seed=seed + game * 10 + i) for i in range(players)]
        st = State.new(players, seed=seed + game)
        ply = 0
        while not st.is_over():
            if ply % 7 == 3:
                out.append(st.view())
            st.push(bots[st.to_move].choose(st.view()).move)
            ply += 1
        game += 1
    return out[:count]


def test_exploration_grows_with_visits():
    """With c_base the root's exploration grows with its visits, so at a large budget the most
    visited move takes a smaller share than under a constant c (same seeds)."""
    views = _mid_game_views(2, 5, 4)

    def top_share(spec):
        shares = []
        for i, v in enumerate(views):
            d = make_player(spec, seed=i).choose(v)
            shares.append(max(m.visits for m in d.info.moves) / sum(m.visits for m in d.info.moves))
        return shares

    constant = top_share("mcts(iterations=6000,c_base=0)")
    growing = top_share("mcts(iterations=6000,c_base=500)")
    assert all(g < c for g, c in zip(growing, constant))


def test_forced_root_key_takes_every_visit():
    """A search told to take one root action gives it every root visit; -1 lifts the order."""
    from splendor_ai import _mcts
    view = _mid_game_views(2, 5, 1)[0]
    player = make_player("mcts")
    tree = _mcts.Search(view._core, player.search_params(view), 1)
    key = view._core.action_key(view._core.legal_actions()[-1])
    tree.force_key = key
    tree.run(500)
    assert [(k, v) for k, v, _, _ in tree.root_stats()] == [(key, 500)]
    tree.force_key = -1
    tree.run(500)
    assert len(tree.root_stats()) > 1
    with pytest.raises(ValueError, match="force_key"):
        tree.force_key = 1 << 20


def test_sequential_halving_checks_the_rivals():
    """With `halving` the root's candidates share the budget in rounds: the move kept is
    ranked first, the runner-up has at least a quarter of the visits (PUCT gives it far fewer
    on some of these positions) and exactly the whole budget is spent."""
    views = _mid_game_views(2, 5, 4)
    second_share = {}
    for spec in ("mcts(halving=0)", "mcts(halving=8)"):
        shares = []
        for i, v in enumerate(views):
            search = make_player(spec, seed=i).new_search(v, Limit(iterations=8000))
            search.run()
            infos = search.ranked()
            if spec != "mcts(halving=0)":
                assert search.halving.choice() == v._core.action_key(v.legal_moves._table[infos[0].move][0])
                assert search.done() and search.iterations_done == 8000
            visits = sorted((m.visits for m in infos), reverse=True)
            shares.append(visits[1] / visits[0])
        second_share[spec] = shares
    assert min(second_share["mcts(halving=8)"]) >= 0.25
    assert min(second_share["mcts(halving=0)"]) < 0.25


def test_sequential_halving_under_a_time_limit():
    """Under a clock the warm-up's speed sets the rounds' budget: the search keeps to its time,
    gets past the warm-up and ranks the move it kept first."""
    view = _mid_game_views(2, 5, 1)[0]
    search = make_player("mcts(halving=8)", seed=1).new_search(view, Limit(seconds=0.2))
    search.run()
    infos = search.ranked()
    assert search.halving.stage != "warm" and search.done()
    assert search.halving.choice() == view._core.action_key(view.legal_moves._table[infos[0].move][0])
    assert search.elapsed < 0.2 + 0.1


def test_sequential_halving_in_chunks_is_one_run():
    """Analysis runs a search in chunks to report progress: with `halving` the schedule goes on
    where it stopped, so the chunks end exactly where one run does."""
    from splendor_ai.analysis import analyse
    view = _mid_game_views(2, 7, 1)[0]
    spec = "mcts(halving=4,halving_warm=0.5)"
    whole = analyse(view, Limit(iterations=6000), spec=spec, seed=2)
    reports = []
    chunked = analyse(view, Limit(iterations=6000), spec=spec, seed=2, progress=reports.append, report_every=0.002)
    assert len(reports) >= 2
    assert chunked.moves == whole.moves and chunked.visits == whole.visits == 6000


@pytest.mark.parametrize("players", [2, 3, 4])
def test_speedups_change_nothing(players):
    """The search's prior cache, the playout policy's shortcuts and the engine's base-game move
    generation and apply are pure speed-ups: the same seeded searches give the same visits and
    values with them switched off."""
    from splendor_ai import _engine, _mcts, _policy
    views = _mid_game_views(players, 11 * players, 5)
    # a position where the mover (seat 1) must reckon with seat 0's blind reserve
    st = State.new(2, seed=5)
    for mv in ("rL1", "+wbg", "+wbr"):
        st.push(mv)
    views.append(st.view())
    specs = ["mcts(iterations=1500)", "mcts(iterations=800,cutoff=0)", "mcts(iterations=600,mode='pimc',dets=3)"]

    def run():
        out = []
        for spec in specs:
            for i, v in enumerate(views):
                d = make_player(spec, seed=i).choose(v)
                out.append([(str(m.move), m.visits, m.value) for m in d.info.moves])
        return out

    fast = run()
    try:
        _mcts.set_prior_cache(False)
        _policy.set_fast_paths(False)
        _engine.set_base_paths(False)
        slow = run()
    finally:
        _mcts.set_prior_cache(True)
        _policy.set_fast_paths(True)
        _engine.set_base_paths(True)
    assert fast == slow


def test_base_paths_change_nothing():
    """The engine's base-game main phase (move generation and apply), which the Cities share,
    gives the same moves and states as the general code: random games of the base game and of
    the Cities, every state compared byte for byte."""
    from splendor_ai import _engine
    from splendor_ai._engine import Core

    def games(on):
        _engine.set_base_paths(on)
        try:
            out = []
            for players, modules in ((2, 0), (3, 0), (4, 0), (2, 1), (3, 1)):   # 1: the Cities
                for seed in range(6):
                    c = Core.new(players, seed, modules=modules)
                    k = 0
                    while not c.over:
                        acts = c.legal_actions()
                        buys = [a for a in acts if 54 <= a < 75]   # buy when it can, half the time
                        pick = buys if buys and k % 2 else acts
                        c.apply(pick[(seed * 7919 + k * 104729) % len(pick)])
                        out.append((tuple(acts), c.key()))
                        k += 1
            return out
        finally:
            _engine.set_base_paths(True)

    assert games(True) == games(False)
