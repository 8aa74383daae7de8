"""The AI players: forced wins, reproducibility, hidden information, smoke games, a small strength check."""
import pytest

from handmade import seat, seat2, spn, spn2
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


# Cities of Splendor modules: the last turn of the game, seat 1 to move; exactly one way (up to
# stronghold placements) to win, and it needs the module's rules --------------------------------------------

# Orient: buy #110 (take_l2, 0 points) and take #45 (3 points) free: 13 + 3 = 16 beats 15. No card
# worth 3 is affordable otherwise.
ORIENT_WIN = spn2("orient", seats=[seat2(cards=[73, 77, 81]), seat2("042001", cards=[72, 76, 80, 7])],
                  market=[None, [42, 45, 43, 44, 100, 105], [70, 74, 78, 82, 110, 115]],
                  to_move=1, first=0, turn=41, final=1)
# Cities: seat 0 holds city 4 (13 points, 7 cards), so this is the last turn. Seat 1 (13 points)
# meets city 6 (11 prestige, 3w 3b 3r 3k) with one more black card and must also out-score seat
# 0: only #39 (1 point) does; a 0-point black card ties on points and loses on cards.
CITIES_WIN = spn2("cities", seats=[seat2(cards=[72, 73, 0, 1, 84, 24, 25], cities=[4]),
                                   seat2("111110", cards=[71, 2, 3, 75, 8, 15, 26, 27, 28, 87, 36])],
                  market=[[37, 39, 4, 5], None, None], cities=(4, 6, 10), to_move=1, first=0, turn=41, final=1)
# Trading posts: seat 1 (13 points: cards and noble 2) has 4 green bonuses and a noble; a fifth
# green card (#19) brings power 3, worth 5: 18. Nothing else reaches 16.
POSTS_WIN = spn2("posts", seats=[seat2(cards=[73, 77, 81]),
                                 seat2("110010", cards=[57, 56, 16, 17, 63, 60, 24, 25], nobles=[2])],
                 market=[[18, 19, 0, 1], None, None], to_move=1, first=0, turn=41, final=1)
# Strongholds: seat 1 (10 points) has all 3 strongholds on #72 (4 points). It must buy a 2-point
# card, spend that purchase's stronghold action removing seat 0's stronghold from #70 (moving one
# of its own would break the three), then conquer #72: 16.
SH_WIN = spn2("strongholds", seats=[seat2(cards=[73, 77, 81]), seat2("000330", cards=[69, 67, 66, 32, 63, 24])],
              market=[None, [40, 41, 43, 44], [70, 72, 74, 75]], strongholds={72: (1, 3), 70: (0, 1)},
              to_move=1, first=0, turn=41, final=1)

MODULE_FORCED = {"orient": (ORIENT_WIN, {"b110/f45"}), "cities": (CITIES_WIN, {"b39/c6"}), "posts": (POSTS_WIN, {"b19"}),
          "strongholds": (SH_WIN, None)}


#: the forced wins: (position, the winning moves (None: see test_forced_win_positions), whether a
#: search is sure of it, value 1)
FORCED = {"buy": (BUY_TO_WIN, {"b45"}, True), "noble": (NOBLE_TO_WIN, {"b17/n5"}, True),
          "buy-3p": (BUY_TO_WIN_3P, {"b45"}, True),
          **{module: (text, wins, False) for module, (text, wins) in MODULE_FORCED.items()}}
MODULE_SEARCH_SPECS = ["mcts(iterations=300)", "mcts(iterations=300,mode='pimc',dets=4)",
                       "expectimax(depth=1)", "expectimax(depth=2)"]


def winning_moves(st: State) -> set[str]:
    """The legal moves that win for the last seat: whole turns that end the game with it as the
    winner, and first steps of two-step turns (docs/RULES.md) with a winning second step."""
    out = set()
    for m in st.legal_moves:
        st.push(m)
        if st.partial_move is not None and winning_moves(st):
            out.add(str(m))
        if st.is_over() and st.result().winners == (st.players - 1,):
            out.add(str(m))
        st.pop()
    return out


@pytest.mark.parametrize("case", list(FORCED))
def test_forced_win_positions(case):
    text, expected, _ = FORCED[case]
    st = State(text)
    if case in MODULE_FORCED:
        assert st.module == case
    wins = winning_moves(st)
    if expected is not None:
        assert wins == expected
    else:   # a two-step turn: b43 or b44, then every stronghold placement after the conquest wins
        assert wins == {"b43", "b44"}
        for first in wins:
            st.push(first)
            after = winning_moves(st)
            assert after and all(w.split("/")[:3] == [first, "x70", "b72"] for w in after)
            assert len(after) < len(st.legal_moves)
            st.pop()
    assert len(wins) < len(st.legal_moves)


@pytest.mark.parametrize("case, spec", [(case, spec) for case in ("buy", "noble", "buy-3p")
                                        for spec in SEARCH_SPECS + ["greedy"]]
                         + [(module, spec) for module in MODULE_FORCED for spec in ["greedy"] + MODULE_SEARCH_SPECS])
def test_forced_win_is_found(case, spec):
    text, _, sure = FORCED[case]
    st = State(text)
    player = make_player(spec, seed=11)
    while True:   # a two-step turn asks twice: its first step, then the rest
        wins = winning_moves(st)
        decision = player.choose(st.view())
        assert str(decision.move) in wins
        if spec != "greedy":
            best = decision.info.moves[0]
            if sure:
                assert best.value == pytest.approx(1.0)
            else:
                assert best.value > 0.9
            if len(wins) == 1:
                assert all(m.value <= 0.5 for m in decision.info.moves[1:] if m.visits)
        st.push(decision.move)
        if st.partial_move is None:
            break
    assert st.is_over() and st.result().winners == (st.players - 1,)
    player.close()


def info_json(decision):
    """A search's report without its timings."""
    d = decision.info.to_json()
    d.pop("seconds")
    d.pop("nodesPerS", None)
    d.pop("cpuSeconds", None)
    d.pop("depthSeconds", None)
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
    """A time limit is wall-clock time the search uses up and stops at: PUCT searches until its
    clock reaches the limit; sequential halving spends its warm-up's share by the clock, which
    sets the rounds' budget in iterations (so it may end before the limit when the machine gets
    faster, never before the warm-up's share). It stops near its clock: the bound above is 50
    times the limit, since a loaded machine stretches any wall-clock time. An iteration limit is
    exact."""
    st = State.new(2, seed=2)
    d = make_player("mcts(seconds=0.2, halving=0)").choose(st.view())
    assert 0.2 <= d.info.seconds < 10 and d.info.iterations > 0
    d = make_player("mcts(seconds=0.2)").choose(st.view())
    assert 0.1 <= d.info.seconds < 10 and d.info.iterations > 0
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

    constant = top_share("mcts(iterations=6000,c_base=0,eval='classic')")
    growing = top_share("mcts(iterations=6000,c_base=500,eval='classic')")
    assert all(g < c for g, c in zip(growing, constant))


def test_forced_root_key_takes_every_visit():
    """A search told to take one root action gives it every root visit; -1 lifts the order."""
    from splendor_ai import _mcts
    view = _mid_game_views(2, 5, 1)[0]
    player = make_player("mcts(eval='classic')")   # the C search built here without a network
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
    on some of these positions with the heuristic priors) and exactly the whole budget is spent."""
    views = _mid_game_views(2, 5, 4)
    second_share = {}
    for spec in ("mcts(halving=0,eval='classic')", "mcts(halving=8,eval='classic')"):
        shares = []
        for i, v in enumerate(views):
            search = make_player(spec, seed=i).new_search(v, Limit(iterations=8000))
            search.run()
            infos = search.ranked()
            if "halving=8" in spec:
                assert search.halving.choice() == v._core.action_key(v.legal_moves._table[infos[0].move][0])
                assert search.done() and search.iterations_done == 8000
            visits = sorted((m.visits for m in infos), reverse=True)
            shares.append(visits[1] / visits[0])
        second_share[spec] = shares
    assert min(second_share["mcts(halving=8,eval='classic')"]) >= 0.25
    assert min(second_share["mcts(halving=0,eval='classic')"]) < 0.25


def test_sequential_halving_under_a_time_limit():
    """Under a clock the warm-up's speed sets the rounds' budget: the search keeps to its time,
    gets past the warm-up and ranks the move it kept first."""
    view = _mid_game_views(2, 5, 1)[0]
    search = make_player("mcts(halving=8)", seed=1).new_search(view, Limit(seconds=0.2))
    search.run()
    infos = search.ranked()
    assert search.halving.stage != "warm" and search.done()
    assert search.halving.choice() == view._core.action_key(view.legal_moves._table[infos[0].move][0])
    assert 0.1 <= search.elapsed < 10     # at least the warm-up's share; the bound is loose: a busy machine


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
