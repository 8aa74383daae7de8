"""Experiments: statistics against hand-computed values, outcomes of records, schedules, and the
runner (resume after an interruption or a torn records file, Ray against local processes)."""
import json
import math
import os
import warnings
from pathlib import Path

import pytest

from splendor_ai import Result, State
from splendor_ai.players.mcts import MCTSPlayer
from splendor_ai.records import GameRecord
from splendor_ai.tournament import (ExperimentError, Settings, deals, outcome, record_key, round_robin, run,
                                    schedule, versus)
from splendor_ai.tournament.games import Game, offender, play
from splendor_ai.tournament.outcomes import mean_ranks
from splendor_ai.tournament.specs import split_list, with_param
from splendor_ai.tournament.stats import elo, elo_from_score, los, mean_interval, score_from_elo, sprt, wilson
from splendor_ai.tournament.summary import pair, players_table, plackett_luce, sprt_sequence, wdl

TIMING = ("date", "seconds", "max_move_seconds")
SPECS = ["random", "greedy", "mcts(iterations=20)"]


def strip_timing(line_or_rec):
    obj = line_or_rec.to_json() if isinstance(line_or_rec, GameRecord) else json.loads(line_or_rec)
    for k in TIMING:
        obj["meta"].pop(k, None)
    return json.dumps(obj, sort_keys=True)


# -- statistics, hand-computed ---------------------------------------------------------------------

def test_elo_from_score():
    assert elo_from_score(0.5) == 0
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))       # 190.85
    assert elo_from_score(0.25) == pytest.approx(-400 * math.log10(3))
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert score_from_elo(400 * math.log10(3)) == pytest.approx(0.75)


def test_elo_interval_hand_computed():
    # 60 wins, 40 losses: s = 0.6, per-game variance 0.6 * 0.4 = 0.24, se = sqrt(0.24 / 100)
    e = elo(60, 0, 40)
    half = 1.959964 * math.sqrt(0.24 / 100)
    assert e.score == pytest.approx(0.6)
    assert e.elo == pytest.approx(70.437, abs=1e-3)                          # -400 log10(1/0.6 - 1)
    assert e.lower == pytest.approx(-400 * math.log10(1 / (0.6 - half) - 1), abs=1e-3)
    assert e.upper == pytest.approx(-400 * math.log10(1 / (0.6 + half) - 1), abs=1e-3)
    assert e.lower == pytest.approx(2.77, abs=0.01) and e.upper == pytest.approx(143.9, abs=0.1)
    # a draw counts half: 1 win, 2 draws, 1 loss is a 0.5 score with variance (0.25+0+0+0.25)/4
    d = elo(1, 2, 1)
    assert d.elo == 0 and d.upper == pytest.approx(-d.lower)
    assert d.upper == pytest.approx(-400 * math.log10(1 / (0.5 + 1.959964 * math.sqrt(0.125 / 4)) - 1), abs=1e-3)
    # all wins: +inf, with a finite lower bound (one win and one loss added for the variance)
    a = elo(6, 0, 0)
    assert a.elo == math.inf and a.upper == math.inf and 0 < a.lower < 800
    assert a.to_json()["elo"] == "+inf"


def test_los_hand_computed():
    assert los(10, 10) == 0.5
    assert los(0, 0) == 0.5
    # Phi(5 / sqrt(15)) = Phi(1.2910) = 0.90165
    assert los(10, 5) == pytest.approx(0.90165, abs=1e-5)
    assert los(5, 10) == pytest.approx(1 - 0.90165, abs=1e-5)


def test_wilson_known_values():
    lo, hi = wilson(8, 10)
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    lo, hi = wilson(0, 10)                 # upper = z^2 / (n + z^2) = 3.8415 / 13.8415
    assert lo == 0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)


def test_mean_interval_known_values():
    # 1..5: mean 3, sd sqrt(2.5); t(0.975, 4) = 2.776445 (tables): half-width 2.776445 * sqrt(2.5 / 5)
    est = mean_interval([5, 1, 4, 2, 3])
    assert (est.n, est.mean) == (5, 3.0)
    assert (est.lower, est.upper) == pytest.approx((3 - 1.963243, 3 + 1.963243), abs=1e-6)
    # two measurements: t(0.975, 1) = 12.7062; equal ones: a zero-width interval
    est = mean_interval([10, 12])
    assert (est.lower, est.upper) == pytest.approx((11 - 12.706205, 11 + 12.706205), abs=1e-5)
    same = mean_interval([7.5, 7.5, 7.5])
    assert (same.n, same.mean, same.lower, same.upper) == (3, 7.5, 7.5, 7.5)
    # 90%: t(0.95, 4) = 2.131847
    assert mean_interval([5, 1, 4, 2, 3], 0.90).upper == pytest.approx(3 + 2.131847 * math.sqrt(0.5), abs=1e-6)
    one = mean_interval([4.0])
    assert (one.mean, one.lower, one.upper) == (4.0, None, None)
    with pytest.raises(ValueError, match="at least one"):
        mean_interval([])


def test_sprt_decisions_on_constructed_data():
    lower, upper = math.log(0.05 / 0.95), math.log(0.95 / 0.05)      # -2.944, +2.944
    t = sprt(60, 0, 40, elo0=0, elo1=10)
    assert (t.lower, t.upper) == pytest.approx((lower, upper))
    # LLR = N (s1 - s0) (2 s - s0 - s1) / (2 var), s0 = 0.5, s1 = 1 / (1 + 10^(-10/400))
    s1 = 1 / (1 + 10 ** (-10 / 400))
    assert t.llr == pytest.approx(100 * (s1 - 0.5) * (1.2 - 0.5 - s1) / (2 * 0.24))
    assert t.llr == pytest.approx(0.5563, abs=1e-4)
    assert t.decision is None
    assert sprt(600, 0, 400, elo0=0, elo1=10).decision == "H1"            # LLR +5.56
    assert sprt(400, 0, 600, elo0=0, elo1=10).decision == "H0"            # LLR -6.43
    assert sprt(500, 0, 500, elo0=0, elo1=10).llr < 0                     # exactly equal: leans H0
    assert sprt(4, 0, 0, elo0=0, elo1=400).decision == "H1"               # one-sided data still decides
    assert sprt(0, 0, 0).llr == 0
    with pytest.raises(ExperimentError, match="elo1 > elo0"):
        sprt(1, 0, 1, elo0=5, elo1=5)
    with pytest.raises(ExperimentError, match="alpha"):
        sprt(1, 0, 1, alpha=0.7)


# -- outcomes of records ---------------------------------------------------------------------------

def _record(n, result, meta=None, players=None):
    start = State.new(n, seed=5).position()
    return GameRecord(State(start).config, 5, 0, players or [f"p{i}" for i in range(n)], start,
                      result=result, meta=meta or {})


def test_outcome_win_shared_draw_forfeit_void():
    win = outcome(_record(2, Result("points", (15, 9), (10, 8), (1, 2), (0,))))
    assert win.scores == (1, 0) and win.kind == "win" and win.ranks == (1, 2)
    shared = outcome(_record(2, Result("points", (15, 15), (10, 10), (1, 1), (0, 1))))
    assert shared.scores == (0.5, 0.5) and shared.kind == "shared"
    draw = outcome(_record(3, Result("cap", (12, 9, 3), (10, 8, 2), (1, 2, 3), ())))
    assert draw.scores == pytest.approx((1 / 3,) * 3) and draw.kind == "draw" and draw.ranks == (2, 2, 2)
    three = outcome(_record(3, Result("points", (16, 16, 3), (9, 9, 2), (1, 1, 3), (0, 1))))
    assert three.scores == (0.5, 0.5, 0) and three.ranks == (1.5, 1.5, 3)
    bad = outcome(_record(3, None, {"termination": "illegal move by seat 2: b45"}))
    assert bad.kind == "forfeit" and bad.forfeit == 2 and bad.scores == (0.5, 0.5, 0) and bad.ranks == (1.5, 1.5, 3)
    crash = outcome(_record(2, None, {"termination": "crash by seat 0: ValueError: x"}))
    assert crash.scores == (0, 1)
    assert outcome(_record(2, None, {"termination": "aborted"})) is None
    assert mean_ranks((1, 2, 2, 4)) == (1, 2.5, 2.5, 4)
    assert offender("time-out by seat 3 (1.20s)") == 3 and offender("normal") is None


def test_tables_count_shares():
    outs = [outcome(_record(2, Result("points", (15, 9), (10, 8), (1, 2), (0,)), players=["a", "b"])),
            outcome(_record(2, Result("points", (15, 15), (10, 10), (1, 1), (0, 1)), players=["a", "b"])),
            outcome(_record(2, Result("stalemate", (3, 3), (1, 1), (1, 1), ()), players=["b", "a"])),
            outcome(_record(2, Result("points", (15, 9), (10, 8), (1, 2), (0,)), players=["b", "a"]))]
    # the records name no lineup: it is the specs sorted, a = index 0
    assert wdl(outs, 0, 1) == (1, 2, 1)
    p = pair(outs)
    assert p["score"] == 0.5 and p["elo"] == 0 and p["endings"] == {"draw": 1, "shared": 1, "win": 2}
    t = players_table(outs)
    assert t["a"]["games"] == 4 and t["a"]["wins"] == 2.0 and t["a"]["seat_win_rates"] == {"0": 0.75, "1": 0.25}
    r = plackett_luce(outs)
    assert set(r) == {"a", "b"} and r["a"]["mu"] == pytest.approx(r["b"]["mu"], abs=3.0)
    seq = sprt_sequence(outs, dict(elo0=0, elo1=10, alpha=0.05, beta=0.05))
    assert seq["decision"] is None and seq["final"]["llr"] == pytest.approx(sprt(1, 2, 1).llr, abs=1e-6)


# -- schedules and specs ---------------------------------------------------------------------------

def test_schedule_duplicate_rotations():
    st2 = Settings(players=2)
    games = schedule([("a", "b")], deals(3, seed=7), st2)
    assert [(g.deal, g.seats) for g in games] == [(7, ("a", "b")), (7, ("b", "a")), (8, ("a", "b")),
                                                  (8, ("b", "a")), (9, ("a", "b")), (9, ("b", "a"))]
    g3 = schedule([versus("a", "b", 3)], [1], Settings(players=3))
    assert [g.seats for g in g3] == [("a", "b", "b"), ("b", "b", "a"), ("b", "a", "b")]
    assert [g.order for g in g3] == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    assert len({g.key() for g in schedule(round_robin("abcd", 4), deals(2), Settings(players=4))}) == 8
    assert round_robin(["a", "b", "c"], 2) == [("a", "b"), ("a", "c"), ("b", "c")]
    with pytest.raises(ExperimentError, match="at least 3"):
        round_robin(["a", "b"], 3)
    with pytest.raises(ExperimentError, match="players must be"):
        Settings(players=5)


def test_spec_helpers():
    assert with_param("mcts(iterations=300)", "c", 0.5) == "mcts(iterations=300,c=0.5)"
    assert with_param("mcts(iterations=300,c=1)", "c", 2) == "mcts(iterations=300,c=2)"
    assert with_param("mcts(iterations=300)", "seconds", 0.1, drop=("iterations",)) == "mcts(seconds=0.1)"
    assert with_param("mcts", "mode", "perfect") == "mcts(mode='perfect')"
    assert split_list("mcts(c=1,iterations=9), greedy,[1, 2]") == ["mcts(c=1,iterations=9)", "greedy", "[1, 2]"]
    with pytest.raises(ExperimentError, match="unbalanced"):
        split_list("mcts(c=1")


def test_play_records_seats_and_termination():
    g = Game(("greedy", "random"), 3, 1, Settings(players=2))
    rec = GameRecord.from_line(play(g))
    assert rec.players == ["random", "greedy"] and rec.seed == 3
    assert rec.meta["termination"] == "normal" and rec.meta["rotation"] == 1 and rec.meta["seats"] == [1, 0]
    assert record_key(rec) == g.key()
    rec.replay(check_seed=True)
    assert strip_timing(play(g)) == strip_timing(rec)            # reproducible


# -- the runner ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """A tiny uninterrupted round robin: 3 specs, 2 deals, 2 players = 12 games."""
    games = schedule(round_robin(SPECS, 2), deals(2), Settings(players=2), event="t")
    path = tmp_path_factory.mktemp("ref") / "games.jsonl"
    res = run(games, path, jobs=1, progress=False)
    assert res.played == 12 and len(res.records) == 12
    return games, sorted(strip_timing(r) for r in res.records)


def test_resume_after_interruption_and_torn_line(reference, tmp_path):
    games, expected = reference
    path = tmp_path / "games.jsonl"
    res = run(games, path, jobs=2, progress=False, stop=lambda recs: len(recs) >= 5)
    assert res.stopped and 5 <= len(res.records) < 12
    # a crash in the middle of writing the last record: cut it in half
    data = path.read_bytes()
    last = data.rstrip(b"\n").rfind(b"\n") + 1
    path.write_bytes(data[:last + (len(data) - last) // 2])
    kept = len(res.records) - 1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res2 = run(games, path, jobs=2, progress=False)
    said = " ".join(str(w.message) for w in caught)
    assert "skipping the corrupt last line" in said and "cutting a torn last line" in said
    assert res2.resumed == kept and res2.played == 12 - kept and not res2.remaining
    lines = [ln for ln in path.read_text().splitlines() if ln]
    assert len(lines) == 12                                       # no game lost or duplicated
    assert len({record_key(GameRecord.from_line(ln)) for ln in lines}) == 12
    assert sorted(strip_timing(ln) for ln in lines) == expected
    # a third run has nothing to do
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res3 = run(games, path, jobs=1, progress=False)
    assert res3.played == 0 and res3.resumed == 12


def test_resume_keeps_foreign_records_and_rejects_corrupt_file(reference, tmp_path):
    games, _ = reference
    path = tmp_path / "games.jsonl"
    other = schedule([("random", "greedy")], [99], Settings(players=2))
    run(games[:2] + other, path, progress=False)
    with pytest.warns(UserWarning, match="2 record.s. are not games of this run"):
        res = run(games[:4], path, progress=False, execute=False)
    assert res.resumed == 2 and res.remaining == 2 and res.played == 0
    assert len(path.read_text().splitlines()) == 4           # the other run's games are kept
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n{broken\n" + lines[1] + "\n")
    with pytest.raises(ExperimentError, match="line 2: broken JSON"):
        run(games, path, progress=False)


def test_four_players_with_a_per_move_limit(tmp_path):
    # plain "mcts" would search 2000 iterations a move: the run's limit of 5 overrides it
    games = schedule([versus("mcts", "random", 4)], [2], Settings(players=4, iterations=5))
    res = run(games, tmp_path / "g.jsonl", progress=False)
    assert [r.players for r in res.records] == [["mcts", "random", "random", "random"],
                                                ["random", "random", "random", "mcts"],
                                                ["random", "random", "mcts", "random"],
                                                ["random", "mcts", "random", "random"]]
    assert all(r.meta["settings"]["iterations"] == 5 and r.result is not None for r in res.records)
    # the limit is what the players searched: every mcts move of 5 iterations, and the same games
    searched = []
    real = MCTSPlayer.choose

    def spy(self, view, limit=None):
        d = real(self, view, limit)
        searched.append(d.info.iterations)
        return d
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(MCTSPlayer, "choose", spy)
        again = [GameRecord.from_line(play(g)) for g in games]
    assert [r.moves for r in again] == [r.moves for r in res.records]
    assert searched and set(searched) == {5}
    t = players_table([outcome(r) for r in res.records])
    assert t["mcts"]["games"] == 4 and t["random"]["games"] == 12
    assert sorted(t["mcts"]["seat_win_rates"]) == ["0", "1", "2", "3"]


def test_forfeits_are_recorded(tmp_path):
    # a per-move time forfeit no move can meet: the first mover loses at once
    games = schedule([("greedy", "random")], [4], Settings(players=2, time_forfeit=1e-9))
    res = run(games, tmp_path / "g.jsonl", progress=False)
    for rec in res.records:
        assert rec.result is None and rec.meta["termination"].startswith("time-out by seat 0")
        assert rec.meta["forfeit"] == 0
        o = outcome(rec)
        assert o.kind == "forfeit" and o.scores == (0, 1)


@pytest.mark.ray
def test_ray_and_processes_give_the_same_records(tmp_path):
    import ray   # the `ray` marker's run installs it: pip install -e '.[ray]'
    games = schedule(round_robin(SPECS, 2), deals(1, seed=11), Settings(players=2)) + \
        schedule([versus("mcts(iterations=10)", "greedy", 3)], [11], Settings(players=3))
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, logging_level="WARNING")
    try:
        via_ray = run(games, tmp_path / "ray.jsonl", ray="local", progress=False)
        assert ray.is_initialized()                 # the runner leaves a Ray it did not start
    finally:
        ray.shutdown()
    via_processes = run(games, tmp_path / "proc.jsonl", jobs=2, progress=False)
    assert via_ray.played == via_processes.played == len(games) == 9
    assert [strip_timing(r) for r in via_ray.records] == [strip_timing(r) for r in via_processes.records]
    assert os.path.getsize(tmp_path / "ray.jsonl") > 0


# -- Cities of Splendor modules --------------------------------------------------------------------

OLD_RECORD = Path(__file__).resolve().parent.parent / "experiments" / "results" / "h2h_mcts_random_2p" / "games.jsonl"


def test_module_settings_and_keys():
    from splendor_ai.tournament.games import game_key
    assert Settings().module is None and Settings(module="base").module is None
    assert Settings(module="base") == Settings()
    assert Settings(players=3, module="orient").config().modules == ("orient",)
    assert Settings(module="cities", cap=50).config().cap == 50
    assert Settings().config().modules == ()
    assert Settings(module="posts").to_json()["module"] == "posts" and Settings().to_json()["module"] == "base"
    with pytest.raises(ExperimentError, match="unknown module 'expansion'"):
        Settings(module="expansion")
    # a base game's key is the key of old (pre-module) records: no module in it
    old = {"players": 2, "cap": None, "iterations": None, "seconds": None, "time_forfeit": None}
    assert Game(("a", "b"), 1, 0).key() == game_key(["a", "b"], 1, 0, old)
    keys = {Game(("a", "b"), 1, 0, Settings(module=m)).key() for m in ("base", "cities", "orient", "posts", "strongholds")}
    assert len(keys) == 5                                     # the module is part of the resume key
    games = schedule([("a", "b")], deals(2), Settings(), modules=["base", "strongholds"])
    assert [(g.deal, g.module, g.seats) for g in games] == [
        (1, "base", ("a", "b")), (1, "base", ("b", "a")), (1, "strongholds", ("a", "b")), (1, "strongholds", ("b", "a")),
        (2, "base", ("a", "b")), (2, "base", ("b", "a")), (2, "strongholds", ("a", "b")), (2, "strongholds", ("b", "a"))]
    with pytest.raises(ExperimentError, match="twice"):
        schedule([("a", "b")], [1], Settings(), modules=["orient", "orient"])


@pytest.mark.parametrize("module", ["cities", "orient", "posts", "strongholds"])
def test_play_a_module_game(module):
    g = Game(("greedy", "mcts(iterations=20)"), 5, 1, Settings(players=2, module=module))
    rec = GameRecord.from_line(play(g))
    assert rec.config.modules == (module,) and rec.meta["module"] == module
    assert rec.meta["settings"]["module"] == module and rec.meta["termination"] == "normal"
    assert record_key(rec) == g.key() and outcome(rec).module == module
    rec.replay(check_seed=True)
    assert strip_timing(play(g)) == strip_timing(rec)            # reproducible


def test_old_records_load_as_base_game(tmp_path):
    line = OLD_RECORD.read_text().splitlines()[0]
    obj = json.loads(line)
    assert "module" not in obj["meta"] and "module" not in obj["meta"]["settings"]   # written before modules
    rec = GameRecord.from_line(line)
    o = outcome(rec)
    assert o.module == "base"
    g = Game(tuple(obj["meta"]["lineup"]), rec.seed, obj["meta"]["rotation"], Settings(players=2))
    assert record_key(rec) == g.key()
    # the runner resumes such a file: its games count as played base games
    path = tmp_path / "games.jsonl"
    path.write_text(OLD_RECORD.read_text())
    games = schedule([tuple(obj["meta"]["lineup"])], deals(5), Settings(players=2))
    res = run(games, path, progress=False, execute=False)
    assert res.resumed == 10 and res.remaining == 0 and res.ignored == 0
    # but not as games of a module
    with pytest.warns(UserWarning, match="10 record.s. are not games of this run"):
        res = run(schedule([tuple(obj["meta"]["lineup"])], deals(5), Settings(players=2, module="orient")),
                  path, progress=False, execute=False)
    assert res.resumed == 0 and res.remaining == 10


def test_module_runs_resume_per_module(tmp_path):
    path = tmp_path / "games.jsonl"
    games = schedule([("random", "greedy")], [3], Settings(), modules=["base", "cities", "posts"])
    res = run(games, path, progress=False, stop=lambda recs: len(recs) >= 3)
    assert res.stopped and 3 <= len(res.records) < 6
    res2 = run(games, path, progress=False)
    assert res2.played == 6 - len(res.records) and len(res2.records) == 6
    recs = [GameRecord.from_line(ln) for ln in path.read_text().splitlines()]
    assert sorted(r.meta["module"] for r in recs) == ["base", "base", "cities", "cities", "posts", "posts"]
    assert len({record_key(r) for r in recs}) == 6
    assert all(r.config.module == (None if r.meta["module"] == "base" else r.meta["module"]) for r in recs)
    # one module of the same file: its games only
    with pytest.warns(UserWarning, match="4 record"):
        one = run(schedule([("random", "greedy")], [3], Settings(module="cities")), path, progress=False)
    assert one.played == 0 and one.resumed == 2


def test_per_module_tables():
    from splendor_ai.tournament import report
    from splendor_ai.tournament.outcomes import Outcome
    from splendor_ai.tournament.summary import by_module, module_matrix, module_rows, modules_of

    def game(module, a_wins, a_seat=0):
        seats = ("A", "B") if a_seat == 0 else ("B", "A")
        order = (0, 1) if a_seat == 0 else (1, 0)
        sc = (1.0, 0.0) if a_wins == (a_seat == 0) else (0.0, 1.0)
        return Outcome(seats, order, ("A", "B"), sc, (1.0, 2.0) if sc[0] else (2.0, 1.0), "win", "points", 1, None,
                       module=module)
    outs = [game("orient", True), game("orient", True, 1), game("orient", False),
            game("base", True), game("base", True, 1), game("cities", False, 1)]
    assert modules_of(outs) == ["base", "cities", "orient"]
    assert {m: len(v) for m, v in by_module(outs).items()} == {"base": 2, "cities": 1, "orient": 3}
    rows = module_rows(outs, ("A", "B"), ["base", "orient", "posts", "cities"])
    assert [r["module"] for r in rows] == ["base", "orient", "posts", "cities", "all"]
    byname = {r["module"]: r for r in rows}
    assert byname["orient"]["pair"]["wins"] == 2 and byname["orient"]["pair"]["losses"] == 1
    assert byname["orient"]["win_rate_95"] == [round(x, 4) for x in wilson(2, 3)]
    assert byname["posts"]["games"] == 0 and "pair" not in byname["posts"]
    assert byname["all"]["games"] == 6 and byname["all"]["pair"]["wins"] == 4
    assert byname["base"]["pair"]["elo"] == "+inf"
    text = report.modules_text(rows, 2)
    assert "orient" in text and "2-0-1" in text and "Elo of A (95%)" in text and "4-0-2" in text
    m = module_matrix(outs)
    assert m["A"]["orient"]["games"] == 3 and m["A"]["all"]["games"] == 6 and m["B"]["cities"]["win_rate"] == 1.0
    assert "cities" in report.matrix_text(m, modules_of(outs))


def test_a_corrupt_last_line_with_its_newline_does_not_break_the_next_resume(reference, tmp_path):
    """A last line of games.jsonl that is not JSON but ends in a newline: the resume skips it, plays
    the missing games and cuts it before appending (keeping a copy), so the run after that does not
    fail on a corrupt line in the middle."""
    games, expected = reference
    path = tmp_path / "games.jsonl"
    run(games, path, jobs=1, progress=False, stop=lambda recs: len(recs) >= 3)
    garbage = path.read_text().splitlines()[0][:60] + "\n"
    with open(path, "a") as f:
        f.write(garbage)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = run(games, path, jobs=1, progress=False)
    said = " ".join(str(w.message) for w in caught)
    assert "skipping the corrupt last line" in said and "cutting a corrupt last line" in said
    assert res.played == 9 and not res.remaining
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = run(games, path, jobs=1, progress=False)
    assert again.played == 0 and again.resumed == 12
    assert sorted(strip_timing(r) for r in again.records) == expected
    assert (tmp_path / "games.jsonl.corrupt").read_text() == garbage


def _children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return out


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_kill_9_of_a_run_leaves_no_worker_behind(tmp_path):
    """The main process of a run killed with SIGKILL (nothing of it runs after): its worker
    processes exit too, instead of waiting forever on the queue of a dead parent."""
    import signal
    import subprocess
    import sys
    import time
    root = Path(__file__).resolve().parent.parent
    args = [sys.executable, str(root / "experiments" / "tournament.py"), "mcts(iterations=20000)", "greedy",
            "--deals", "20", "-j", "2", "--out", str(tmp_path / "run"), "--no-progress"]
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    workers: list[int] = []
    try:
        deadline = time.time() + 60
        while time.time() < deadline and len(workers) < 2:
            time.sleep(0.2)
            workers = [c for c in _children(p.pid) if "python" in Path(f"/proc/{c}/cmdline").read_bytes().decode(
                errors="replace")]
        assert len(workers) >= 2, "the run did not start its workers"
        time.sleep(1.0)                                  # each worker is in the middle of a game
        os.kill(p.pid, signal.SIGKILL)
        p.wait(10)
        deadline = time.time() + 60      # a condition awaited, generously (they exit within a second or two)
        while time.time() < deadline and any(_alive(w) for w in workers):
            time.sleep(0.1)
        assert not [w for w in workers if _alive(w)]
    finally:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_second_run_into_the_same_file_stops_with_an_error(reference, tmp_path):
    """While a run plays into a records file (it holds a lock on it) another run into that file
    stops before playing anything, naming the file; the file is unchanged, and once the first run
    ends the second resumes from it."""
    import fcntl
    games, _ = reference
    path = tmp_path / "games.jsonl"
    run(games[:1], path, progress=False)
    before = path.read_bytes()
    with open(path, "ab") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(ExperimentError, match="another run is playing games into this file"):
            run(games[:2], path, progress=False)
        assert path.read_bytes() == before
    res = run(games[:2], path, progress=False)
    assert res.resumed == 1 and res.played == 1
