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


START = {"players": 2, "seed": 3, "first_player": 0}
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

    good = {"id": 1, "start": START, "moves": MOVES, "limit": LIMIT, "top_k": 3}
    first = engine.ask(good)
    check_analysis(first, 1, 3)
    assert first["rootInfo"]["iterations"] == 300 and first["rootInfo"]["turn"] == 4
    assert "level-2" not in json.dumps(first)  # sanity: answers carry notation, not board text

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

    r = engine.ask({"id": 7, "start": START, "limit": LIMIT, "top_k": "many"})
    assert r["id"] == 7 and r["error"].startswith("top_k:")

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
    r = engine.ask({"id": "s1", "position": st.position(), "seat": 1, "limit": LIMIT, "top_k": 2})
    check_analysis(r, "s1", 2)
    assert r["rootInfo"]["seat"] == 1 and r["rootInfo"]["toMove"] == 0 and r["rootInfo"]["legalMoves"] is None
    assert r["rootInfo"]["position"] == st.view(1).position()

    # progress reports during a timed search
    r = engine.ask({"id": "p", "start": START, "limit": {"seconds": 0.6}, "report_every": 0.1, "top_k": 2})
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
    out = io.StringIO()
    serve(io.StringIO("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in requests)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


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
        {"id": 10, "start": START, "limit": LIMIT, "report_every": -1},
        {"id": 11, "start": dict(START, seed=-1), "limit": LIMIT},
    ])
    check_analysis(replies[0], 1, 5)
    assert replies[0]["rootInfo"]["turn"] == 2
    expect = {2: "turn:", 3: "record:", 4: "moves:", 5: "moves:", 6: "turn:", 7: "give only one",
              8: "no position", 9: "limit: unknown field 'depth'", 10: "report_every:", 11: "start: seed"}
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
