"""The expectimax player (splendor_ai/players/expectimax.py, ext/splendor_ai/_expectimax.pyx):
forced wins, reproducibility, hidden information, exactness of the pruning, smoke games."""
import pytest

from handmade import seat, spn
from splendor_ai import _expectimax
from splendor_ai.errors import ConfigError
from splendor_ai.match import play_game
from splendor_ai.players import Limit, make_player
from splendor_ai.players.evaluation import DEFAULT_WEIGHTS
from splendor_ai.state import State, View

# Final round, seat 1 to move (seat 0 has 15 points from 3 cards, seat 1 has 14 from 7 cards).
# Only b37 wins: its black bonus completes noble 3 (4 red, 4 black) for 14 + 3 = 17. b41 and b7
# reach 15, which loses the tie-break on cards; everything else leaves seat 1 at 14.
NOBLE_WIN = spn(2, seats=[seat("000000", cards=[73, 77, 81]),
                          seat("004000", cards=[58, 60, 62, 63, 64, 66, 69])],
                market=[[7, 37, 0, 1], [40, 41, 43, 44], None], nobles=[0, 1, 3],
                to_move=1, first=0, final=1)

# Seat 0 (first player, 12 points, 3 cards) to move. b45 and b57 both reach 15, but after b45
# seat 1 (13 points, six green bonuses, no tokens) answers b57 for 16 and wins; after b57 its best
# is b56 for 15, which loses the tie-break on cards (7 against 4). Whatever card refills the
# market, seat 1 can afford no other card worth 2+ points. A two-turn search sees it.
DEPTH2_WIN = spn(2, seats=[seat("404002", cards=[70, 73, 76]),
                           seat("000000", cards=[16, 17, 23, 78, 80, 81])],
                 market=[None, [40, 45, 56, 57], [71, 72, 74, 77]], nobles=[0, 1, 4],
                 to_move=0, first=0)


def mid_game(players=2, seed=3, turns=14):
    """A position from greedy self-play (deterministic)."""
    g = make_player("greedy", seed=1)
    st = State.new(players, seed=seed)
    for _ in range(turns):
        st.push(g.choose(st.view()).move)
    return st


def info_summary(decision):
    return ([(str(m.move), m.value, m.values, m.visits, m.pv) for m in decision.info.moves],
            decision.info.extra["scores"], decision.info.nodes, decision.info.extra["depth"])


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_noble_decides_the_final_turn(depth):
    st = State(NOBLE_WIN)
    d = make_player(f"expectimax(depth={depth})").choose(st.view())
    assert str(d.move) == "b37/n3"
    by_move = {str(m.move): m for m in d.info.moves}
    assert by_move["b37/n3"].value == 1.0 and d.info.extra["scores"][0] > 30
    assert d.info.moves[0].pv == ("b37/n3",)
    for m in ("b41", "b7", "+wbr", "r37"):
        assert by_move[m].value == 0.0, m          # decided losses, not evaluations
    assert d.info.extra["depth"] == depth


@pytest.mark.parametrize("spec", ["expectimax(depth=2)", "expectimax(depth=3,exact_root=True)",
                                  "expectimax(depth=2,exact_root=False)",
                                  "expectimax(depth=2,algo='maxn')", "expectimax(depth=2,dets=3,chance_samples=2)",
                                  "expectimax(seconds=0.3)"])
def test_two_turn_forced_win(spec):
    st = State(DEPTH2_WIN)
    d = make_player(spec, seed=5).choose(st.view())
    assert str(d.move) == "b57"
    assert d.info.moves[0].value == 1.0
    assert d.info.moves[0].pv[:2] == ("b57", "b56")
    by_move = {str(m.move): m for m in d.info.moves}
    if "exact_root=True" in spec or "maxn" in spec:   # every root move has its exact value
        assert d.info.extra["exact_values"] and by_move["b45"].value == 0.0
    else:   # only the best moves: the others have upper bounds, no better than those
        assert not d.info.extra["exact_values"] and by_move["b45"].value <= d.info.moves[0].value
    assert d.info.extra["depth"] >= 2


def test_reproducible():
    view = mid_game().view()
    for spec in ("expectimax(depth=3)", "expectimax(depth=2,dets=3,exact_root=True)",
                 "expectimax(depth=3,exact_root=False)", "expectimax(seconds=0.1,depth=2)"):
        a = make_player(spec, seed=11).choose(view)
        b = make_player(spec, seed=11).choose(view)
        assert a.move == b.move
        assert info_summary(a) == info_summary(b)
        assert a.info.seed == b.info.seed


def test_hidden_information_does_not_change_the_search():
    # two true states that seat 0 cannot tell apart: the deck order and seat 1's blind reserve differ
    common = dict(market=[None, None, None], nobles=[0, 5, 8], to_move=0, first=0, turn=6)
    one = State(spn(2, seats=[seat("210100", cards=[8, 30]), seat("011201", cards=[16], reserved=["*50"])],
                    decks=[[12, 5], [47], None], **common))
    two = State(spn(2, seats=[seat("210100", cards=[8, 30]), seat("011201", cards=[16], reserved=["*61"])],
                    decks=[[39, 22], [50, 66], [89]], **common))
    assert one != two and one.view(0) == two.view(0)
    for spec in ("expectimax(depth=2,dets=4)", "expectimax(depth=3,algo='maxn')"):
        a = make_player(spec, seed=2).choose(one.view(0))
        b = make_player(spec, seed=2).choose(two.view(0))
        assert a.move == b.move and info_summary(a) == info_summary(b)


def test_pruning_gives_the_exact_values():
    """Alpha-beta with Star1/Star2 and the transposition table returns the same root values as
    max^n, which searches the whole (sampled) tree: for two players max^n is plain
    expectiminimax. The chance samples depend on the state, not on the path or the search order."""
    view = mid_game(seed=6, turns=8).view()
    seqs = list(view.legal_moves._table.values())
    for depth, dets in ((3, 1), (2, 3)):   # with several worlds the root is a chance node too
        results = {}
        # root_exact: 0 = every root move exact, k = the k best (multi-PV alpha-beta at the root)
        for algo, star2, exact, tt in ((1, 0, 0, 0), (0, 0, 0, 0), (0, 1, 0, 0), (0, 1, 0, 16), (0, 1, 1, 16),
                                       (0, 1, 3, 12)):
            s = _expectimax.Search(view._core, seqs, {"algo": algo, "chance_samples": 2, "eval_bound": 30.0,
                                                      "root_exact": exact, "star2": star2, "tt_bits": tt,
                                                      "weights": list(DEFAULT_WEIGHTS)}, 9, dets)
            assert s.run(depth, 0.0) == depth
            results[algo, star2, exact, tt] = ([r[0][view.to_move] for r in s.results()],
                                               [r[3] for r in s.results()], s.nodes)
        ref, _, full_nodes = results[1, 0, 0, 0]
        top = sorted(ref, reverse=True)
        for (algo, star2, exact, tt), (vals, is_exact, nodes) in results.items():
            for r, v, e in zip(ref, vals, is_exact):
                if e:
                    assert v == pytest.approx(r, abs=1e-5)
                else:   # root alpha-beta: an upper bound, no better than the k-th best move
                    assert v >= r - 1e-5 and v <= top[exact - 1] + 1e-5
            assert sum(is_exact) >= (exact or len(vals))
            assert sorted(vals, reverse=True)[:exact or 1] == pytest.approx(top[:exact or 1], abs=1e-5)
            assert nodes <= full_nodes
        assert results[0, 1, 1, 16][2] < full_nodes
        assert results[0, 1, 0, 16][2] <= results[0, 1, 0, 0][2]
    assert results[0, 1, 0, 0][2] <= results[0, 0, 0, 0][2]


def test_time_limit_and_search_info():
    view = mid_game(turns=10).view()
    d = make_player("expectimax(seconds=0.2)", seed=4).choose(view)
    info = d.info
    assert info.seconds < 10          # stops by its clock (0.2 s; loose: a busy machine stretches it)
    assert info.extra["depth"] >= 1 and len(info.extra["depth_seconds"]) == info.extra["depth"]
    assert info.nodes > 0 and info.extra["nodes_per_s"] > 0
    assert len(info.moves) == len(view.legal_moves) and d.move == info.moves[0].move
    assert info.extra["scores"] == sorted(info.extra["scores"], reverse=True)
    assert all(m.visits > 0 for m in info.moves)
    assert info.to_json()["moveInfos"][0]["move"] == str(d.move)
    # a Limit overrides the player's own budget
    d2 = make_player("expectimax(seconds=5)", seed=4).choose(view, Limit(depth=1))
    assert d2.info.extra["depth"] == 1


def test_only_views_and_bad_specs():
    st = mid_game(turns=4)
    with pytest.raises(TypeError):
        make_player("expectimax(depth=1)").choose(st)
    for spec in ("expectimax(depth=0)", "expectimax(algo='minimax')", "expectimax(chance_samples=0)",
                 "expectimax(seconds=-1)", "expectimax(dets=100)", "expectimax(exact_root=0)",
                 "expectimax(tt_bits=40)"):
        with pytest.raises(ConfigError):
            make_player(spec)


@pytest.mark.parametrize("players,specs", [
    (2, ["expectimax(depth=2)", "greedy"]),
    (2, ["random", "expectimax(depth=2,exact_root=False,dets=2)"]),
    (3, ["expectimax(depth=2)", "random", "greedy"]),
    (4, ["greedy", "expectimax(depth=1,algo='maxn')", "random", "expectimax(depth=2)"]),
])
def test_smoke_games(players, specs):
    out = play_game([make_player(s, seed=i) for i, s in enumerate(specs)], seed=players)
    assert out.termination == "normal", out.termination
    assert out.result is not None


def test_beats_random():
    wins = 0
    for g in range(6):
        seat_x = g % 2
        specs = ["random", "random"]
        specs[seat_x] = "expectimax(depth=1)"
        out = play_game([make_player(s, seed=g) for s in specs], seed=100 + g)
        assert out.termination == "normal"
        wins += out.result.winners == (seat_x,)
    assert wins >= 5


def test_bench_search_quick(tmp_path):
    """Smoke run of experiments/bench_search.py (no timing assertions)."""
    import json
    import subprocess
    import sys
    from pathlib import Path
    script = Path(__file__).resolve().parent.parent / "experiments" / "bench_search.py"
    out = tmp_path / "search.json"
    proc = subprocess.run([sys.executable, str(script), "--quick", "--positions", "1", "--seconds", "0.05",
                           "--depths", "1", "--json", str(out)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for label in ("mcts", "expectimax d=1", "expectimax t=0.05", "nodes/s", "it/s"):
        assert label in proc.stdout, label
    res = json.loads(out.read_text())["results"]
    assert res["mcts"]["median"] > 0 and res["expectimax d=1"]["median"] > 0
    # one position: its rate is the mean, and no interval can be given
    assert res["mcts"]["mean"] == res["mcts"]["median"] and res["mcts"]["ci95"] is None
