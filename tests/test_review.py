"""Game review (splendor_ai/review.py, docs/REVIEW.md): classes and accuracy, the report's round
trip, reproducibility, hidden information (twin records), the played move's rating, parallel runs
and resume, the stream, the plot, the sparkline and the command."""
import json
import subprocess
import sys

import pytest

from handmade import seat, spn
from splendor_ai import State
from splendor_ai.errors import ConfigError
from splendor_ai.players import make_player
from splendor_ai.players.bounds import BoundsError
from splendor_ai.records import GameRecord, append_record
from splendor_ai import review as rv
from splendor_ai.review import (PLAYED_SHARE, Review, ReviewError, TurnReview, classify, move_accuracy, plot,
                                review, review_position, review_records, review_stream, sparkline, summary_text)

LIMIT = {"iterations": 150}
SPEC = "mcts(iterations=150)"


def greedy_record(seed: int, moves: int = 12, script: dict | None = None) -> GameRecord:
    """A record of `moves` greedy moves from deal `seed` (`script`: turn -> move played instead)."""
    st = State.new(2, seed=seed)
    bots = [make_player("greedy", seed=seed + s) for s in range(2)]
    while len(st.move_stack) < moves and not st.is_over():
        turn = len(st.move_stack)
        st.push((script or {}).get(turn) or bots[st.to_move].choose(st.view()).move)
    return GameRecord.from_state(st, seed, ["greedy", "greedy"])


def strip(obj: dict) -> dict:
    return json.loads(json.dumps(obj))


# -- classes and accuracy -----------------------------------------------------------------------------

def test_classes_and_accuracy_follow_the_documented_thresholds():
    assert [classify(x) for x in (0, 0.0001, 0.0499, 0.05, 0.0999, 0.10, 0.1499, 0.15, 0.9)] == \
        ["best", "good", "good", "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder", "blunder"]
    assert classify(0.3, best=True) == "best"
    assert [move_accuracy(x) for x in (0, 0.05, 0.10, 0.15, 0.30, 1.0)] == [100.0, 80.82, 64.58, 51.52, 25.77, 0.0]
    assert move_accuracy(-0.2) == 100.0


def turn(**kw) -> TurnReview:
    base = dict(turn=3, seat=1, position="SPN1 ...", played="+wbg", best="b45", best_winrate=0.7,
                played_winrate=0.58, best_visits=100, played_visits=20, legal_moves=20, iterations=300,
                seat_winrates=(0.3, 0.7), pv=("b45", "+wbr"), alternatives=({"move": "b45"},))
    base.update(kw)
    return TurnReview(**base)


def test_turn_review_derives_loss_class_and_accuracy_from_its_rounded_figures():
    t = turn()
    assert (t.loss, t.klass, t.mark, t.accuracy, t.forced) == (0.12, "mistake", "?", 59.01, False)
    assert t.alternatives == ({"move": "b45"},)
    assert TurnReview.from_json(strip(t.to_json())) == t
    assert turn(played_winrate=0.8).klass == "best" and turn(played_winrate=0.8).loss == 0.0
    assert turn(played="b45/n3").klass == "best"          # the search's own action
    good = turn(played_winrate=0.69)
    assert good.klass == "good" and good.alternatives == ()
    forced = turn(legal_moves=1, played_winrate=0.1)
    assert forced.forced and forced.accuracy is None
    assert turn(best_winrate=0.123456789).best_winrate == 0.1235


# -- one record -----------------------------------------------------------------------------------------

def test_review_report_round_trips_and_summaries_agree():
    rec = greedy_record(5)
    r = review(rec, LIMIT, spec=SPEC, seed=3)
    obj = r.to_json()
    assert obj["format"] == "splendor-review/1"
    assert obj["game"] == {"config": rec.config.to_json(), "players": ["greedy", "greedy"], "moves": rec.moves,
                           "result": None}
    assert obj["settings"] == {"spec": SPEC, "limit": LIMIT, "seed": 3, "topK": 3, "playedShare": PLAYED_SHARE,
                               "seats": [0, 1]}
    assert [t["turn"] for t in obj["turns"]] == list(range(len(rec.moves)))
    assert [t["played"] for t in obj["turns"]] == rec.moves
    for t in obj["turns"]:
        assert t["seat"] == t["turn"] % 2
        assert t["class"] == classify(t["loss"]) or (t["class"] == "best" and t["playedWinrate"] < t["bestWinrate"]
                                                     and rv._action(t["played"]) == rv._action(t["best"]))
        assert "?" in t["position"] and "seed" not in t
        assert (t["alternatives"] != []) == (t["class"] in ("inaccuracy", "mistake", "blunder"))
    for s in obj["seats"]:
        mine = [t for t in obj["turns"] if t["seat"] == s["seat"]]
        assert s["moves"] == len(mine) and sum(s["classes"].values()) == len(mine)
        assert s["accuracy"] == round(sum(t["accuracy"] for t in mine) / len(mine), 2)
        assert s["winrates"] == [{"turn": t["turn"], "winrate": t["bestWinrate"]} for t in mine]
    text = json.dumps(obj, allow_nan=False)
    assert Review.from_json(json.loads(text)).to_json() == obj
    tampered = json.loads(text)
    tampered["seats"][0]["accuracy"] = 1.0
    with pytest.raises(ReviewError, match="summaries"):
        Review.from_json(tampered)
    with pytest.raises(ReviewError, match="format"):
        Review.from_json({**obj, "format": "splendor-review/9"})
    # one seat
    only = review(rec, LIMIT, spec=SPEC, seed=3, seats=1)
    assert only.seats == (1,) and [t.turn for t in only.turns] == list(range(1, len(rec.moves), 2))
    assert [t.to_json() for t in only.turns] == [t for t in obj["turns"] if t["seat"] == 1]


def test_same_seed_same_review_other_seed_other_review():
    rec = greedy_record(6, moves=6)
    a = review(rec, LIMIT, spec=SPEC, seed=1).to_json()
    assert review(rec, LIMIT, spec=SPEC, seed=1).to_json() == a
    assert review(rec, LIMIT, spec=SPEC, seed=2).to_json() != a


def test_a_thrown_away_win_is_a_blunder_and_the_win_is_best():
    """Final round, seat 1 moves last and wins only by buying its reserved #45."""
    start = spn(2, seats=[seat(cards=[73, 77, 81]), seat("400000", cards=[71, 72, 85], reserved=[45])],
                to_move=1, first=0, turn=41, final=1)
    view = State(start).view(1)
    bad = review_position(view, "+bgr", LIMIT, spec=SPEC)
    assert (bad.best, bad.klass, bad.mark) == ("b45", "blunder", "??")
    assert bad.best_winrate > 0.95 and bad.played_winrate < 0.05 and bad.accuracy < 5
    # the played move was searched on purpose: it holds its share of the search
    assert bad.played_visits >= PLAYED_SHARE * 150
    assert [a["move"] for a in bad.alternatives][0] == "b45" and bad.alternatives[0]["pv"][0] == "b45"
    good = review_position(view, "b45", LIMIT, spec=SPEC)
    assert (good.klass, good.loss, good.accuracy) == ("best", 0.0, 100.0)
    # and as a one-move record of that position
    st = State(start)
    st.push("+bgr")
    rec = GameRecord.from_state(st, None, ["human", "human"], start=start)
    r = review(rec, LIMIT, spec=SPEC)
    assert [t.klass for t in r.turns] == ["blunder"] and [s.moves for s in r.summaries] == [0, 1]
    assert r.summaries[1].accuracy == bad.accuracy and r.result.winners == (0,)


def test_review_refuses_bad_input():
    rec = greedy_record(5, moves=4)
    with pytest.raises(ReviewError, match="seat"):
        review(rec, LIMIT, spec=SPEC, seats=2)
    with pytest.raises(ConfigError, match="mcts"):
        review(rec, LIMIT, spec="greedy")
    with pytest.raises(BoundsError) as err:
        review(rec, {"seconds": 1e9}, spec=SPEC)
    assert err.value.field == "limit.seconds"
    with pytest.raises(BoundsError):
        review(rec, LIMIT, spec="mcts(workers=100000)")
    st = State.new(2, seed=1)
    with pytest.raises(TypeError):
        review_position(st, "+wbg", LIMIT)       # the true state: never
    with pytest.raises(ReviewError, match="not to move"):
        review_position(st.view(1), "+wbg", LIMIT)


# -- hidden information ------------------------------------------------------------------------------------

def _reordered_decks(record: GameRecord, swap: tuple[int, int] | None = None) -> GameRecord:
    """The record played from a start whose decks differ below the cards the game drew (reversed);
    with `swap` (a card a blind reserve drew, a card never drawn) those two cards trade places."""
    start = State(record.start)
    final = record.replay()
    obj = start.to_json()
    drawn = [len(d["cards"]) - len(f["cards"]) for d, f in zip(obj["decks"], final.to_json()["decks"])]
    for deck, k in zip(obj["decks"], drawn):
        deck["cards"][k:] = deck["cards"][k:][::-1]
    if swap:
        for deck in obj["decks"]:
            cards = deck["cards"]
            if swap[0] in cards and swap[1] in cards:
                i, j = cards.index(swap[0]), cards.index(swap[1])
                cards[i], cards[j] = cards[j], cards[i]
    st = State.from_json(obj)
    twin_start = st.position()
    for m in record.moves:
        st.push(m)
    return GameRecord.from_state(st, None, record.players, start=twin_start)


def test_twin_records_give_the_same_review():
    """Two records with the same moves and views but other hidden cards (deck order below what
    was drawn; the seed left out) give identical reviews; a blind reserve holding another card
    changes only its owner's review."""
    rec = greedy_record(8, moves=14, script={1: "rL2"})
    twin = _reordered_decks(rec)
    assert twin.start != rec.start and twin.moves == rec.moves and twin.revealed == rec.revealed
    a, b = (review(r, LIMIT, spec=SPEC, seed=4).to_json() for r in (rec, twin))
    assert a == b
    # seat 1 reserved blind at move 1: give it another card (one never drawn)
    drawn_by_reserve = rec.revealed[1][0]
    other = rec.replay().to_json()["decks"][1]["cards"][-1]      # the bottom of the level-2 deck
    twin2 = _reordered_decks(rec, swap=(drawn_by_reserve, other))
    assert twin2.revealed[1] == [other] and twin2.moves == rec.moves
    st1, st2 = State(rec.start), State(twin2.start)
    for m in rec.moves:                      # seat 0 sees the same at every turn; seat 1 does not
        assert st1.view(0) == st2.view(0)
        st1.push(m)
        st2.push(m)
    assert st1.view(1) != st2.view(1)
    r1, r2 = (review(r, LIMIT, spec=SPEC, seed=4, seats=0).to_json() for r in (rec, twin2))
    assert r1 == r2
    # control: the owner of the blind reserve is reviewed from its own view, which differs
    c1, c2 = (review(r, LIMIT, spec=SPEC, seed=4, seats=1).to_json() for r in (rec, twin2))
    assert c1 != c2


# -- the stream, many records, resume -------------------------------------------------------------------

def test_stream_yields_the_turns_in_order():
    rec = greedy_record(9, moves=6)
    streamed = list(review_stream(rec, LIMIT, spec=SPEC, seed=2, seats="all"))
    assert [t.turn for t in streamed] == list(range(6))
    assert [t.to_json() for t in streamed] == [t.to_json() for t in review(rec, LIMIT, spec=SPEC, seed=2).turns]
    gen = review_stream(rec, LIMIT, spec=SPEC, seats=0)
    assert next(gen).turn == 0 and next(gen).turn == 2
    gen.close()


def stop_after(calls: int):
    """A stop callback that answers true from its `calls`-th question on (a terminate that comes
    after a few chunks of the search)."""
    asked = []

    def stop(*_):
        asked.append(1)
        return len(asked) >= calls
    return stop


def test_a_stopped_turn_reports_its_figures_so_far_marked_terminated():
    rec = greedy_record(9, moves=6)
    st = State(rec.start)
    st.push(rec.moves[0])
    view, played = st.view(st.to_move), rec.moves[1]
    big = {"iterations": 10_000_000}
    t = review_position(view, played, big, spec=SPEC, stop=stop_after(3), turn=1)
    assert t.terminated and 0 < t.iterations < 10_000_000
    assert t.best_winrate is not None and t.played_winrate is not None
    if t.played != t.best:       # the played move forced to its share of what was searched
        assert t.played_visits >= PLAYED_SHARE * (t.iterations - t.played_visits)
    j = t.to_json()
    assert j["terminated"] is True and TurnReview.from_json(strip(j)) == t
    # not stopped: no mark, and the report of a whole search has no such key
    whole = review_position(view, played, LIMIT, spec=SPEC, stop=lambda: False, turn=1)
    assert not whole.terminated and "terminated" not in whole.to_json()
    assert whole == review_position(view, played, LIMIT, spec=SPEC, turn=1)   # chunks: the same search
    # stopped before any iteration: nothing to report
    with pytest.raises(rv.ReviewStopped):
        review_position(view, played, big, spec=SPEC, stop=lambda: True)


def test_a_stream_stops_one_turn_and_goes_on():
    """`stop(turn)` true for one turn only: a turn stopped before it starts is left out, the
    others are the same as without a stop; a running turn cut short is reported, marked."""
    rec = greedy_record(9, moves=6)
    plain = list(review_stream(rec, LIMIT, spec=SPEC, seed=2, turns=[0, 1, 3]))
    got = list(review_stream(rec, LIMIT, spec=SPEC, seed=2, turns=[0, 1, 2, 3], stop=lambda turn: turn == 2))
    assert got == plain and [t.turn for t in got] == [0, 1, 3] and not any(t.terminated for t in got)
    stops = {4: stop_after(3)}
    got = list(review_stream(rec, {"iterations": 1_000_000}, spec=SPEC, turns=[4, 5],
                             stop=lambda turn: stops.setdefault(turn, stop_after(4))()))
    assert [(t.turn, t.terminated) for t in got] == [(4, True), (5, True)]
    assert all(0 < t.iterations < 1_000_000 for t in got)


def test_many_records_in_parallel_then_resume(tmp_path, monkeypatch):
    recs = [greedy_record(10, moves=6), greedy_record(11, moves=5)]
    expected = [review(r, LIMIT, spec=SPEC, seed=1).to_json() for r in recs]
    out = tmp_path / "turns.jsonl"
    got = review_records(recs, LIMIT, spec=SPEC, seed=1, jobs=2, path=out, progress=False)
    assert [r.to_json() for r in got] == expected
    lines = out.read_text().splitlines()
    assert len(lines) == 11 and all(json.loads(ln)["format"] == "splendor-review-turn/1" for ln in lines)
    # a killed run: the file holds the first 4 turns and half a line
    out.write_text("\n".join(lines[:4]) + "\n" + lines[4][:30])
    searched = []
    real = rv._turn

    def counting(record, t, settings):
        searched.append((record.seed, t))
        return real(record, t, settings)
    monkeypatch.setattr(rv, "_turn", counting)
    with pytest.warns(UserWarning, match="torn last line"):
        again = review_records(recs, LIMIT, spec=SPEC, seed=1, path=out, progress=False)
    assert [r.to_json() for r in again] == expected
    keys = {rv.record_key(r, rv.Settings.make(SPEC, LIMIT, 1)): r.seed for r in recs}
    kept = {(keys[json.loads(ln)["key"]], json.loads(ln)["turn"]) for ln in lines[:4]}
    every = {(10, t) for t in range(6)} | {(11, t) for t in range(5)}
    assert len(kept) == 4 and sorted(searched) == sorted(every - kept)   # lines[4] was torn: searched again
    assert len(out.read_text().splitlines()) == 11
    # other settings: nothing is reused
    searched.clear()
    review_records(recs[1:], {"iterations": 100}, spec=SPEC, seed=1, path=out, progress=False)
    assert len(searched) == 5
    # a finished file: nothing to search
    searched.clear()
    assert [r.to_json() for r in review_records(recs, LIMIT, spec=SPEC, seed=1, path=out, progress=False)] == expected
    assert searched == []


def test_a_corrupt_results_line_in_the_middle_is_an_error(tmp_path):
    out = tmp_path / "turns.jsonl"
    out.write_text('{"format": "splendor-review-turn/1"}\n{"x": 1}\n')
    with pytest.raises(ReviewError, match="line 1"):
        review_records([greedy_record(10, moves=2)], LIMIT, spec=SPEC, path=out, progress=False)


# -- showing it -------------------------------------------------------------------------------------------

def test_sparkline():
    assert sparkline([0, 0.25, 0.5, 0.75, 1.0, None, 1.5, -1]) == "▁▃▅▇█ █▁"
    assert sparkline([]) == ""
    assert sparkline([2, 4], lo=2, hi=4) == "▁█"


def test_plot_and_summary(tmp_path):
    rec = greedy_record(12, moves=8)
    r = review(rec, LIMIT, spec=SPEC)
    path = tmp_path / "review.png"
    plot(r, path)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
    text = summary_text(r)
    lines = [ln.rstrip() for ln in text.splitlines()]
    assert lines[0] == "greedy vs greedy (8 moves; unfinished)"
    assert lines[1] == 'search: mcts(iterations=150), limit {"iterations": 150}'
    for s in r.summaries:      # each player: a table of accuracy and counts, the mistakes, the sparkline
        at = lines.index(f"Player {s.seat + 1} (greedy)")
        assert lines[at + 2].split() == ["moves", "accuracy", "avg", "loss", "best", "good", "inacc.", "?!",
                                         "mistake", "?", "blunder", "??"]
        assert lines[at + 4].split() == [str(s.moves), f"{s.accuracy:.1f}%", f"{100 * s.average_loss:.1f}", "pts",
                                         *(str(s.classes[c]) for c in rv.CLASSES)]
        spark = f"win rate {sparkline([w for _, w in s.winrates])}"
        assert sum(spark in ln for ln in lines[at:]) >= 1
        rest = lines[at:lines.index(next(ln for ln in lines[at:] if spark in ln))]
        marked = [t for t in r.turns if t.seat == s.seat and t.mark]
        for t in marked:       # the move, the played move, the better move, the loss and the line
            row = next(ln for ln in rest if ln.split()[:1] == [f"{t.turn + 1}{t.mark}"])
            assert row.split()[1] == t.played and row.split()[3] == t.best
            assert f"{100 * t.loss:.0f} pts" in row and " ".join(t.pv[:6]) in row
        assert ("no inaccuracy, mistake or blunder" in "\n".join(rest)) == (not marked)


def test_review_command(tmp_path):
    recs = tmp_path / "games.jsonl"
    for seed in (13, 14):
        append_record(recs, greedy_record(seed, moves=4))
    png = tmp_path / "g.png"
    p = subprocess.run([sys.executable, "-m", "splendor_ai", "review", str(recs), "--iterations", "120", "--seat", "0",
                        "--spec", "mcts", "--json", "--plot", str(png), "--no-progress"],
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    reports = [json.loads(ln) for ln in p.stdout.splitlines()]
    assert [r["format"] for r in reports] == ["splendor-review/1"] * 2
    assert [[t["turn"] for t in r["turns"]] for r in reports] == [[0, 2], [0, 2]]
    assert reports[0]["settings"]["limit"] == {"iterations": 120}
    assert png.exists() and (tmp_path / "g-2.png").exists()
    p = subprocess.run([sys.executable, "-m", "splendor_ai", "review", str(recs), "--game", "2", "--iterations", "100",
                        "--spec", "mcts", "--no-progress"], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and p.stdout.startswith("greedy vs greedy (4 moves; unfinished)")
    for args, needle in [(["--seat", "5"], "seat"), (["--seconds", "1e9"], "seconds: expected"),
                         (["--game", "3"], "--game 3"), (["--spec", "greedy"], "mcts"), (["--seat", "x"], "--seat")]:
        p = subprocess.run([sys.executable, "-m", "splendor_ai", "review", str(recs), "--no-progress", *args],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode == 2 and needle in p.stderr and "Traceback" not in p.stderr, (args, p.stderr)


@pytest.mark.ray
def test_ray_gives_the_same_reviews():
    import ray   # the `ray` marker's run installs it: pip install -e '.[ray]'
    recs = [greedy_record(15, moves=3), greedy_record(16, moves=2)]
    expected = [review(r, LIMIT, spec=SPEC).to_json() for r in recs]
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False, logging_level="WARNING")
    try:
        got = review_records(recs, LIMIT, spec=SPEC, ray="local", progress=False)
        assert ray.is_initialized()                 # a Ray it did not start is left running
    finally:
        ray.shutdown()
    assert [r.to_json() for r in got] == expected
