"""`splendor engine`: a scripted transcript through a real subprocess (docs/ENGINE.md).

Requests go in one line at a time and each answer is read before the next request is sent, so the
test also checks that every response is flushed at once and that the engine keeps serving after
every kind of bad request."""
import io
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from splendor_ai import State, View
from splendor_ai.interfaces.protocol import PROTOCOL, serve

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60


class Engine:
    def __init__(self):
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen([sys.executable, "-m", "splendor_ai", "engine"], cwd=ROOT, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send_raw(self, text: str) -> None:
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def read(self) -> dict:
        line = self.lines.get(timeout=TIMEOUT)
        assert line is not None, "the engine stopped: " + self.proc.stderr.read()
        return json.loads(line)

    def ask(self, request) -> dict:
        """Send a request; return its final answer (progress reports are kept in self.reports)."""
        self.send_raw(request if isinstance(request, str) else json.dumps(request))
        self.reports = []
        while True:
            r = self.read()
            if r.get("isDuringSearch"):
                self.reports.append(r)
                continue
            return r

    def close(self) -> tuple[int, str]:
        self.proc.stdin.close()
        rc = self.proc.wait(timeout=TIMEOUT)
        assert self.lines.get(timeout=TIMEOUT) is None  # nothing after the last answer
        return rc, self.proc.stderr.read()


@pytest.fixture
def engine():
    e = Engine()
    yield e
    if e.proc.poll() is None:
        e.proc.kill()
        e.proc.wait()


START = {"players": 2, "seed": 3, "firstPlayer": 0}
MOVES = ["r44", "rL2", "+wbg", "rL3"]
LIMIT = {"iterations": 300}


def check_analysis(r: dict, rid, top_k: int) -> None:
    assert r["id"] == rid and "error" not in r, r
    assert r["isDuringSearch"] is False
    root, infos = r["rootInfo"], r["moveInfos"]
    assert 1 <= len(infos) <= top_k
    view = View.from_position(root["position"], root["seat"])
    assert view.to_move == root["toMove"]
    visits = [m["visits"] for m in infos]
    # the move played first (sequential halving may keep one with fewer visits), then by visits
    assert visits[1:] == sorted(visits[1:], reverse=True)
    for i, m in enumerate(infos):
        assert m["order"] == i
        if root["seat"] == root["toMove"]:
            assert m["move"] in view.legal_moves
            assert m["description"] == view.describe(m["move"])
        assert m["pv"][0] == m["move"]
        assert 0 <= m["winrate"] <= 1 and 0 <= m["prior"] <= 1
        assert len(m["seatWinrates"]) == view.players
        assert m["winrate"] == m["seatWinrates"][root["toMove"]]
    assert root["winrate"] == root["seatWinrates"][root["toMove"]]
    assert abs(sum(root["seatWinrates"]) - 1) < 0.01


def test_scripted_transcript(engine):
    r = engine.ask({"id": "v", "action": "query_version"})
    assert r["protocol"] == PROTOCOL == "splendor-engine/1" and r["id"] == "v" and r["version"]

    good = {"id": 1, "start": START, "moves": MOVES, "limit": LIMIT, "topK": 3}
    first = engine.ask(good)
    check_analysis(first, 1, 3)
    assert first["rootInfo"]["iterations"] == 300 and first["rootInfo"]["turn"] == 4
    assert "level-2" not in json.dumps(first)  # sanity: answers carry notation, not board text

    # the version-1 snake_case spellings give the same answer; both spellings at once are an error
    old = {"id": 1, "start": {"players": 2, "seed": 3, "first_player": 0}, "moves": MOVES, "limit": LIMIT, "top_k": 3}
    timeless = lambda r: {**r, "rootInfo": {k: v for k, v in r["rootInfo"].items() if k != "seconds"}}
    assert timeless(engine.ask(old)) == timeless(first)     # the same search (its clock aside)
    r = engine.ask(dict(good, top_k=3))
    assert r["id"] == 1 and r["field"] == "topK" and "given twice" in r["error"]
    r = engine.ask(dict(good, start=dict(START, first_player=0)))
    assert r["field"] == "start.firstPlayer" and "given twice" in r["error"]

    r = engine.ask("{this is not json")
    assert r["id"] is None and "malformed JSON" in r["error"]

    r = engine.ask({"id": 2, "start": START, "limit": LIMIT, "colour": "red"})
    assert r["id"] == 2 and "unknown field 'colour'" in r["error"] and r["field"] == "colour"

    r = engine.ask({"id": 3, "position": "SPN1 2 444445 1,2,3,4/-/-/ ?36/?26/?16 3,5,9 0/0/0/0/0", "limit": LIMIT})
    assert r["id"] == 3 and r["error"].startswith("position:") and r["field"] == "position"

    r = engine.ask({"id": 4, "start": START, "moves": ["+wbg", "+wbg", "b99"], "limit": LIMIT})
    assert r["id"] == 4 and r["error"].startswith("moves[2]:") and "99" in r["error"]

    r = engine.ask({"id": 5, "start": START, "moves": ["+wbg", "b70"], "limit": LIMIT})
    assert r["id"] == 5 and r["error"].startswith("moves[1]: illegal move") and r["field"] == "moves[1]"

    r = engine.ask({"id": 6, "start": START, "limit": {"iterations": -5}})
    assert r["id"] == 6 and r["error"].startswith("limit.iterations:")

    r = engine.ask({"id": 7, "start": START, "limit": LIMIT, "topK": "many"})
    assert r["id"] == 7 and r["error"].startswith("topK:")

    r = engine.ask({"id": 8, "start": {"players": 7, "seed": 1}, "limit": LIMIT})
    assert r["id"] == 8 and r["error"].startswith("start:") and "players" in r["error"]

    r = engine.ask({"id": 9, "start": START, "limit": LIMIT, "spec": "greedy"})
    assert r["id"] == 9 and r["error"].startswith("spec:")

    r = engine.ask({"id": 10, "start": START, "limit": LIMIT, "seat": 5})
    assert r["id"] == 10 and r["error"].startswith("seat:")

    r = engine.ask({"id": 11, "action": "resign"})
    assert r["id"] == 11 and r["error"].startswith("action:")

    r = engine.ask({"start": START})
    assert r["id"] is None and "id" in r["error"]

    r = engine.ask("[1, 2]")
    assert r["id"] is None and "JSON object" in r["error"]

    # still serving, and deterministic: the same request gives the same analysis
    again = engine.ask(good)
    for x in (first, again):
        x["rootInfo"].pop("seconds")
    assert again == first

    # hint, a JSON position, and the analysis of a seat that is not to move
    st = State.new(2, seed=3)
    for m in MOVES:
        st.push(m)
    r = engine.ask({"id": "h", "action": "hint", "position": st.to_json(), "limit": LIMIT})
    assert r["id"] == "h" and r["action"] == "hint" and r["move"] in st.legal_moves
    assert r["runnerUp"]["move"] != r["move"] and "visits" in r["reason"]
    r = engine.ask({"id": "s1", "position": st.position(), "seat": 1, "limit": LIMIT, "topK": 2})
    check_analysis(r, "s1", 2)
    assert r["rootInfo"]["seat"] == 1 and r["rootInfo"]["toMove"] == 0 and r["rootInfo"]["legalMoves"] is None
    assert r["rootInfo"]["position"] == st.view(1).position()

    # progress reports during a timed search
    r = engine.ask({"id": "p", "start": START, "limit": {"seconds": 0.6}, "reportEvery": 0.1, "topK": 2})
    check_analysis(r, "p", 2)
    assert engine.reports, "no progress report"
    for rep in engine.reports:
        assert rep["id"] == "p" and rep["isDuringSearch"] is True and rep["moveInfos"]
    its = [rep["rootInfo"]["iterations"] for rep in engine.reports] + [r["rootInfo"]["iterations"]]
    assert its == sorted(its) and its[-1] > its[0]

    rc, err = engine.close()
    assert rc == 0 and "Traceback" not in err


def test_blank_lines_are_skipped_and_eof_ends_cleanly(engine):
    engine.send_raw("")
    r = engine.ask({"id": 1, "action": "query_version"})
    assert r["id"] == 1
    rc, err = engine.close()
    assert rc == 0 and "Traceback" not in err


def _serve(requests) -> list[dict]:
    """The answers to `requests`, in the order of the requests (a bad request is answered at once,
    a search when it is done, so the engine's own order can differ)."""
    out = io.StringIO()
    serve(io.StringIO("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in requests)), out)
    replies = [json.loads(line) for line in out.getvalue().splitlines()]
    ids = [r.get("id") if isinstance(r, dict) else None for r in requests]
    return sorted(replies, key=lambda r: ids.index(r["id"]) if r["id"] in ids else len(ids))


def test_records_and_turns():
    from splendor_ai.records import GameRecord
    st = State.new(2, seed=3)
    for m in MOVES:
        st.push(m)
    rec = GameRecord.from_state(st, seed=3, players=["human", "mcts"])
    replies = _serve([
        {"id": 1, "record": rec.to_json(), "turn": 2, "limit": LIMIT},
        {"id": 2, "record": rec.to_json(), "turn": 9, "limit": LIMIT},
        {"id": 3, "record": {"format": "splendor-record/1"}, "limit": LIMIT},
        {"id": 4, "record": rec.to_json(), "moves": ["+wbg"], "limit": LIMIT},
        {"id": 5, "position": st.view(0).position(), "moves": ["+wbg"], "limit": LIMIT},
        {"id": 6, "start": START, "turn": 1, "limit": LIMIT},
        {"id": 7, "start": START, "position": st.position(), "limit": LIMIT},
        {"id": 8, "limit": LIMIT},
        {"id": 9, "start": START, "limit": {"iterations": 10, "depth": 3}},
        {"id": 10, "start": START, "limit": LIMIT, "reportEvery": -1},
        {"id": 11, "start": dict(START, seed=-1), "limit": LIMIT},
    ])
    check_analysis(replies[0], 1, 5)
    assert replies[0]["rootInfo"]["turn"] == 2
    expect = {2: "turn:", 3: "record:", 4: "moves:", 5: "moves:", 6: "turn:", 7: "give only one",
              8: "no position", 9: "limit: unknown field 'depth'", 10: "reportEvery:", 11: "start: seed"}
    for r in replies[1:]:
        assert r["error"].startswith(expect[r["id"]]), r


def test_finished_game_is_an_error_not_a_crash():
    from splendor_ai.match import play_game
    from splendor_ai.players import make_player
    out = play_game([make_player("greedy", 1), make_player("greedy", 2)], seed=1)
    assert out.result is not None
    r = _serve([{"id": "end", "start": {"players": 2, "seed": 1}, "moves": out.moves, "limit": LIMIT}])[0]
    assert r["id"] == "end" and "game is over" in r["error"]


def test_chunked_search_equals_one_search():
    """Progress reports run the search in pieces; with an iteration limit the result is exactly
    that of one uninterrupted search."""
    from splendor_ai.analysis import analyse
    from splendor_ai.players.base import Limit
    st = State.new(2, seed=8)
    reports = []
    # 20,000 iterations take tens of milliseconds even on a fast idle core, so chunks of 1 ms
    # always report (6,000 at 20 ms did not, once: the whole search fit in the first chunk)
    a = analyse(st, Limit(iterations=20000), top_k=4, progress=reports.append, report_every=0.001)
    b = analyse(st, Limit(iterations=20000), top_k=4)
    assert a.moves == b.moves and a.iterations == b.iterations == 20000
    assert len(reports) >= 2 and all(not r.done and r.iterations < 20000 for r in reports)
    assert [r.iterations for r in reports] == sorted(r.iterations for r in reports)


# -- requests read while a search runs: query_version, terminate ------------------------------------

LONG = {"seconds": 120}        # a search that would run two minutes unless terminated


def test_terminate_stops_a_long_search_with_its_partial_result(engine):
    engine.send_raw(json.dumps({"id": "long", "start": START, "limit": LONG, "topK": 3}))
    # the engine reads on while it searches: the version is answered during the search
    t0 = time.monotonic()
    r = engine.ask({"id": "v", "action": "query_version"})
    assert r["id"] == "v" and r["protocol"] == PROTOCOL and time.monotonic() - t0 < 60   # not after the 120 s
    time.sleep(0.5)
    terminate = {"id": "t", "action": "terminate", "terminateId": "long"}
    t0 = time.monotonic()
    engine.send_raw(json.dumps(terminate))
    answers = {}
    while len(answers) < 2:
        a = engine.read()
        answers[a["id"]] = a
    took = time.monotonic() - t0
    assert answers["t"] == terminate                        # the acknowledgement echoes the request
    final = answers["long"]
    assert took < 60, took                                  # stopped long before its two minutes
    assert final["terminated"] is True and final["isDuringSearch"] is False
    check_analysis(final, "long", 3)
    assert final["rootInfo"]["iterations"] > 0 and final["rootInfo"]["seconds"] < 60
    # terminating it again, or any unknown id, is an error naming terminateId; the engine goes on
    r = engine.ask({"id": "t2", "action": "terminate", "terminateId": "long"})
    assert r["id"] == "t2" and r["field"] == "terminateId" and "no request with id" in r["error"]
    r = engine.ask({"id": "t3", "action": "terminate"})
    assert r["field"] == "terminateId" and "missing" in r["error"]
    r = engine.ask({"id": "t4", "action": "terminate", "terminateId": "x", "noResults": "yes"})
    assert r["field"] == "noResults"
    rc, err = engine.close()
    assert rc == 0 and "Traceback" not in err


def test_terminate_without_results_and_of_queued_requests(engine):
    # one worker: "a" runs, "b" waits behind it
    engine.send_raw(json.dumps({"id": "a", "start": START, "limit": LONG}))
    engine.send_raw(json.dumps({"id": "b", "start": START, "limit": LONG}))
    time.sleep(0.3)
    engine.send_raw(json.dumps({"id": "tb", "action": "terminate", "terminateId": "b"}))
    engine.send_raw(json.dumps({"id": "ta", "action": "terminate", "terminateId": "a", "noResults": True}))
    answers = {}
    t0 = time.monotonic()
    while len(answers) < 4:
        a = engine.read()
        answers[a["id"]] = a
    assert time.monotonic() - t0 < 60          # neither two-minute search was waited for
    no_result = {"isDuringSearch": False, "noResults": True, "terminated": True}
    assert answers["a"] == {"id": "a", **no_result}       # asked for no result
    assert answers["b"] == {"id": "b", **no_result}       # never started: nothing was searched
    assert answers["ta"]["terminateId"] == "a" and answers["tb"]["terminateId"] == "b"
    rc, _ = engine.close()
    assert rc == 0


def test_terminate_all_and_turn_numbers():
    out = io.StringIO()
    # turnNumbers selects requests by the turn they analyse: only the turn-0 request stops at once
    lines = [{"id": 1, "start": START, "limit": LONG},
             {"id": 2, "start": START, "moves": MOVES, "limit": {"iterations": 400}},
             {"id": "t", "action": "terminate", "terminateId": 1, "turnNumbers": [0], "noResults": True},
             {"id": "tall", "action": "terminate_all", "turnNumbers": [77]}]
    serve(io.StringIO("".join(json.dumps(r) + "\n" for r in lines)), out)
    answers = {r["id"]: r for r in map(json.loads, out.getvalue().splitlines())}
    assert answers[1] == {"id": 1, "isDuringSearch": False, "noResults": True, "terminated": True}
    assert "terminated" not in answers[2] and answers[2]["rootInfo"]["iterations"] == 400
    assert answers["tall"] == lines[3]


def test_end_of_input_waits_for_searches_or_stops_them(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    req = json.dumps({"id": "w", "start": START, "limit": {"iterations": 3000}}) + "\n"
    p = subprocess.run([sys.executable, "-m", "splendor_ai", "engine"], input=req, capture_output=True,
                       text=True, cwd=ROOT, env=env, timeout=TIMEOUT)
    (answer,) = [json.loads(x) for x in p.stdout.splitlines()]
    assert p.returncode == 0 and answer["rootInfo"]["iterations"] == 3000 and "terminated" not in answer
    req = json.dumps({"id": "q", "start": START, "limit": LONG}) + "\n"
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "splendor_ai", "engine", "--quit-without-waiting"], input=req,
                       capture_output=True, text=True, cwd=ROOT, env=env, timeout=100)
    (answer,) = [json.loads(x) for x in p.stdout.splitlines()]
    assert p.returncode == 0 and answer["id"] == "q" and answer["terminated"] is True
    assert time.monotonic() - t0 < 60          # the two-minute search was not waited for


def test_concurrent_searches_write_whole_lines():
    """Two worker threads, progress reports from both: every output line is one JSON object."""
    out = io.StringIO()
    lines = [{"id": i, "start": dict(START, seed=i), "limit": {"seconds": 0.4}, "reportEvery": 0.05}
             for i in range(4)]
    serve(io.StringIO("".join(json.dumps(r) + "\n" for r in lines)), out, threads=2)
    replies = [json.loads(x) for x in out.getvalue().splitlines()]
    finals = [r for r in replies if not r["isDuringSearch"]]
    assert sorted(r["id"] for r in finals) == [0, 1, 2, 3]
    assert len(replies) > len(finals)


# -- bounded input -----------------------------------------------------------------------------------

@pytest.mark.parametrize("request_line,field,message", [
    ({"id": 1, "start": START, "spec": "mcts(workers=100000)"}, "spec.workers", "workers: expected an integer in 1-"),
    ({"id": 1, "start": START, "spec": "mcts(seconds=1e9)"}, "spec.seconds", "seconds: expected a number in (0, 3600]"),
    ({"id": 1, "start": START, "spec": "mcts(iterations=100000000000)"}, "spec.iterations", "iterations"),
    ({"id": 1, "start": START, "spec": "mcts(dets=100000)"}, "spec.dets", "dets: expected"),
    ({"id": 1, "start": START, "spec": "mcts(c=float('nan'))"}, "spec", "literal value"),
    ({"id": 1, "start": START, "spec": "mcts(c=1e999)"}, "spec.c", "c: expected a number"),
    ({"id": 1, "start": START, "spec": "mcts(workers=True)"}, "spec.workers", "workers: expected an integer"),
    ({"id": 1, "start": START, "spec": "mcts(max_nodes=10**12)"}, "spec", ""),
    ({"id": 1, "start": START, "spec": "mcts(" + "c=1," * 50_000 + ")"}, "spec", "characters (at most 200)"),
    ({"id": 1, "start": START, "limit": {"iterations": True}}, "limit.iterations", "expected an integer"),
    ({"id": 1, "start": START, "limit": {"seconds": 10 ** 400}}, "limit.seconds", ""),
    ({"id": 1, "start": START, "topK": 5.0}, "topK", ""),
    ({"id": "x" * 300, "start": START}, "id", "at most 200 characters"),
    ({"id": 2 ** 70, "start": START}, "id", "64-bit"),
    ({"id": 1, "start": dict(START, seed=2 ** 64)}, "start", "seed"),
    ({"id": 1, "start": START, "seat": False}, "seat", "expected an integer seat"),
    ({"id": 1, "start": START, "moves": ["+wbg"] * 100}, "moves[4]", "illegal move"),
    ({"id": 1, "action": "query_version", "limit": {}}, "limit", "not used by query_version"),
])
def test_bounded_fields(request_line, field, message):
    t0 = time.process_time()      # CPU time: refused before any search, thread or allocation
    (r,) = _serve([request_line])
    assert time.process_time() - t0 < 5
    assert r.get("field", "").startswith(field) and message in r["error"], r
    assert len(r["error"]) < 400                      # the input is never echoed whole


@pytest.mark.parametrize("line,message", [
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ('{"id": 1, "start": {"players": 2, "seed": NaN}}', "NaN is not a JSON number"),
    ('{"id": 1, "limit": {"seconds": Infinity}}', "Infinity is not a JSON number"),
    ('{"id": 1, "top_k": ' + "9" * 5000 + "}", "malformed JSON"),
    ("x" * (2 << 20), "longer than"),
])
def test_bounded_lines(line, message):
    out = io.StringIO()
    serve(io.StringIO(line + "\n" + json.dumps({"id": "after", "action": "query_version"}) + "\n"), out)
    first, after = [json.loads(x) for x in out.getvalue().splitlines()]
    assert first["id"] is None and message in first["error"] and len(first["error"]) < 400
    assert after["id"] == "after" and after["protocol"] == PROTOCOL    # still serving


def test_lines_that_are_not_utf8():
    out = io.StringIO()
    serve(io.BytesIO(b'{"id": "\xff\xfe"}\n{"id": 2, "action": "query_version"}\n'), out)
    first, after = [json.loads(x) for x in out.getvalue().splitlines()]
    assert "not UTF-8" in first["error"] and after["id"] == 2


def test_record_is_checked_whole_even_with_turn():
    """`turn` analyses part of a record, but the whole record must replay (as `play --load` checks)."""
    from splendor_ai.records import GameRecord
    st = State.new(2, seed=3)
    for m in MOVES:
        st.push(m)
    rec = GameRecord.from_state(st, seed=3, players=["human", "mcts"]).to_json()
    rec["moves"][3] = "b99"                     # an illegal move after the requested turn
    (r,) = _serve([{"id": 1, "record": rec, "turn": 1, "limit": LIMIT}])
    assert r["field"] == "record" and "b99" in r["error"]


# -- review: a record's turns streamed as they finish --------------------------------------------------

@pytest.fixture(scope="module")
def finished_record():
    from splendor_ai.match import play_game
    from splendor_ai.players import make_player
    from splendor_ai.records import GameRecord
    out = play_game([make_player("greedy", 1), make_player("greedy", 2)], seed=1)
    return GameRecord.from_state(out.final, seed=1, players=["greedy", "greedy"])


def test_review_streams_each_turn_then_the_summary(finished_record):
    from splendor_ai.review import review_stream
    rec = finished_record
    req = {"id": "rv", "action": "review", "record": rec.to_line(), "seats": [1], "turns": [0, 1, 3, 5, 6],
           "limit": {"iterations": 300}, "seed": 4}
    replies = _serve([req])
    *turns, done = replies
    want = [t.to_json() for t in review_stream(rec, {"iterations": 300}, seats=[1], turns=[0, 1, 3, 5, 6], seed=4)]
    assert [t["turnNumber"] for t in turns] == [1, 3, 5] == [t["turn"] for t in want]   # seat 1's moves only
    for got, expected in zip(turns, want):
        assert got["id"] == "rv" and got["action"] == "review"
        assert {k: v for k, v in got.items() if k not in ("id", "action", "turnNumber")} == expected
    assert done == {"id": "rv", "action": "review", "done": True, "reviewed": [1, 3, 5],
                    "seats": done["seats"]} and done["seats"][0]["seat"] == 1 and done["seats"][0]["moves"] == 3


@pytest.mark.parametrize("change,field", [
    ({"record": {"format": "splendor-record/1"}}, "record"),
    ({"seats": [2]}, "seats"), ({"seats": True}, "seats"), ({"turns": [10 ** 6]}, "turns"),
    ({"turns": "all"}, "turns"), ({"spec": "greedy"}, "spec"), ({"spec": "mcts(workers=100000)"}, "spec.workers"),
    ({"limit": {"seconds": 1e9}}, "limit.seconds"), ({"topK": 99}, "topK"), ({"moves": []}, "moves"),
])
def test_bad_review_requests(finished_record, change, field):
    req = {"id": "b", "action": "review", "record": finished_record.to_json(), "limit": {"iterations": 50}, **change}
    (r,) = _serve([req])
    assert r["id"] == "b" and r["field"] == field and len(r["error"]) < 400, r


def test_a_review_is_terminable(engine, finished_record):
    """Turns of 30 s each. Terminating a turn with noResults skips it; terminating the request
    ends the running turn at once with its figures so far (marked terminated), skips the rest,
    and ends the review with the turns reported and a summary of them."""
    req = {"id": "long", "action": "review", "record": finished_record.to_json(), "seats": "all",
           "turns": [0, 1, 2, 3], "limit": {"seconds": 30}}
    t0 = time.monotonic()
    engine.send_raw(json.dumps(req))
    engine.send_raw(json.dumps({"id": "skip", "action": "terminate", "terminateId": "long", "turnNumbers": [0],
                                "noResults": True}))
    answers = [engine.read()]
    assert answers[0]["id"] == "skip"
    time.sleep(1.0)              # turn 1 searches
    engine.send_raw(json.dumps({"id": "end", "action": "terminate", "terminateId": "long"}))
    while not answers[-1].get("done"):
        answers.append(engine.read())
    assert time.monotonic() - t0 < 60          # far less than the four 30-s turns
    done = answers[-1]
    turns = [a for a in answers if a.get("turnNumber") is not None]
    assert done["id"] == "long" and done["terminated"] is True and done["reviewed"] == [1]
    assert [t["turnNumber"] for t in turns] == [1]
    assert turns[0]["terminated"] is True and 0 < turns[0]["iterations"]
    assert [s["seat"] for s in done["seats"]] == [0, 1] and [s["moves"] for s in done["seats"]] == [0, 1]
    rc, _ = engine.close()
    assert rc == 0
