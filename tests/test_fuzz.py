"""Every parser fuzzed with Hypothesis: move notation, positions (SPN1/SPN2 text and JSON), game
options, game records (lines, objects, files), engine-protocol lines, the web API's request bodies
and player specs.

The property is the same everywhere: an input either parses, and then round-trips (to text or
JSON and back to an equal value), or is refused with the documented error (a SplendorError
subclass; an error object for the engine protocol; a 4xx JSON error for HTTP) whose message is
short; never another exception, never a hang; and a refused input leaves the state, game or file
it was applied to unchanged. Inputs are valid values from real games with mutations
(tests/fuzzing.py). Seeded; each property runs with few examples by default and with many more
under `-m slow`.
"""
from __future__ import annotations

import io
import json
import os
import warnings

import pytest
from hypothesis import strategies as st

from fuzzing import (GAMES, MOVES, SPECS, TRUE_POSITIONS, VIEW_POSITIONS, json_text, mutated_json,
                     mutated_json_text, mutated_text, run, short, text_inputs)
from splendor_ai import State
from splendor_ai.errors import (ConfigError, IllegalMoveError, NotationError, PositionError, RecordError,
                                SplendorError)
from splendor_ai.move import Move
from splendor_ai.records import GameRecord, read_records
from splendor_ai.state import Config, View

PROFILES = [pytest.param("fuzz", id="fast"), pytest.param("fuzz-slow", id="many", marks=pytest.mark.slow)]
LIVE = [g for g in GAMES if not g.is_over()]


def refused(e: Exception, *kinds) -> None:
    """`e` is one of the documented error types, with a short message."""
    assert isinstance(e, kinds), f"{type(e).__name__}: {e}"
    assert short(str(e)), f"{len(str(e))} characters: {str(e)[:200]}..."


# -- move notation ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("profile", PROFILES)
def test_move_notation(profile):
    def prop(text):
        try:
            move = Move.parse(text)
        except SplendorError as e:
            return refused(e, NotationError)
        canon = str(move)
        again = Move.parse(canon)
        assert again == move and str(again) == canon and hash(again) == hash(move)
    run(profile, text_inputs(MOVES, max_ops=3), prop, scale=3)


@pytest.mark.parametrize("profile", PROFILES)
def test_moves_played_on_a_state(profile):
    """`State.parse_move` and `State.push`: a legal move, or NotationError / IllegalMoveError
    with the state exactly as it was."""
    def prop(data):
        state = data.draw(st.sampled_from(LIVE))
        legal = [str(m) for m in state.legal_moves]
        text = data.draw(text_inputs(legal + MOVES[:50], max_ops=2))
        before, stack = state.position(), list(state.move_stack)
        try:
            move = state.parse_move(text)
        except SplendorError as e:
            refused(e, NotationError, IllegalMoveError)
            with pytest.raises((NotationError, IllegalMoveError)):
                state.push(text)
        else:
            assert move in state.legal_moves
            played = state.push(text)
            assert played == move
            state.pop()
        assert state.position() == before and state.move_stack == stack
    run(profile, st.data(), prop, scale=2)


# -- positions ---------------------------------------------------------------------------------------------

def _check_position(text: str) -> None:
    try:
        state = State(text)
    except SplendorError as e:
        refused(e, PositionError)
    else:
        canon = state.position()
        assert State(canon) == state and State(canon).position() == canon
        assert State.from_json(state.to_json()) == state
        assert State.from_json(json.dumps(state.to_json())).to_json() == state.to_json()
    try:
        view = View.from_position(text)
    except SplendorError as e:
        refused(e, PositionError)
    else:
        canon = view.position()
        again = View.from_position(canon, view.seat)
        assert again == view and again.position() == canon
        assert View.from_json(view.to_json(), view.seat) == view


@pytest.mark.parametrize("profile", PROFILES)
def test_position_strings(profile):
    run(profile, text_inputs(TRUE_POSITIONS + VIEW_POSITIONS, max_ops=3, seps=" /:,."), _check_position, scale=3)


def _check_json_position(obj) -> None:
    for kind in (State, View):
        try:
            value = kind.from_json(obj)
        except SplendorError as e:
            refused(e, PositionError)
            continue
        js = value.to_json()
        seat = getattr(value, "seat", None)
        again = kind.from_json(js) if kind is State else kind.from_json(js, seat)
        assert again == value and again.to_json() == js
        assert (kind(value.position()) if kind is State else kind.from_position(value.position(), seat)) == value


@pytest.mark.parametrize("profile", PROFILES)
def test_json_positions(profile):
    objs = [g.to_json() for g in GAMES] + [g.view(s).to_json() for g in GAMES for s in range(g.players)]
    run(profile, mutated_json(st.sampled_from(objs)), _check_json_position, scale=3)
    run(profile, mutated_json_text(st.sampled_from(objs)), _check_json_position)


@pytest.mark.parametrize("profile", PROFILES)
def test_config_json(profile):
    objs = [{"players": n, "cap": cap, "modules": mods} for n in (2, 3, 4) for cap in (1, 100, 8000)
            for mods in ([], ["orient"], ["strongholds"])]

    def prop(obj):
        try:
            config = Config.from_json(obj)
        except SplendorError as e:
            return refused(e, ConfigError)
        js = config.to_json()
        assert json.loads(json.dumps(js, allow_nan=False)) == js
        again = Config.from_json(js)
        assert again == config and json.dumps(again.to_json()) == json.dumps(js)
        State.new(seed=1, config=config)        # a config that parses can start a game
    run(profile, mutated_json(st.sampled_from(objs)), prop, scale=2)


# -- game records --------------------------------------------------------------------------------------------

def _records() -> list[GameRecord]:
    out = []
    for i, g in enumerate(GAMES):
        specs = ["human"] + ["mcts(iterations=30)"] * (g.players - 1)
        out.append(GameRecord.from_state(g, seed=None, players=specs,
                                         annotations=[{"n": k} for k in range(len(g.move_stack))] if i % 3 == 0
                                         else None, meta={"event": "fuzz", "round": i}))
    dealt = State.new(2, seed=77)
    out.append(GameRecord.from_state(dealt, seed=77, players=["human", "random"], meta={}))
    return out


RECORDS = _records()
RECORD_OBJS = [r.to_json() for r in RECORDS]
RECORD_LINES = [r.to_line() for r in RECORDS]


def _check_record(text) -> None:
    try:
        rec = GameRecord.from_line(text) if isinstance(text, (str, bytes)) else GameRecord.from_json(text)
    except SplendorError as e:
        return refused(e, RecordError)
    line = rec.to_line()
    again = GameRecord.from_line(line)
    assert again == rec and again.to_line() == line
    assert GameRecord.from_json(json.loads(line)) == rec
    try:
        final = rec.replay()
    except SplendorError as e:
        return refused(e, RecordError)
    assert final.move_stack == [Move.parse(m) for m in rec.moves]


@pytest.mark.parametrize("profile", PROFILES)
def test_record_lines(profile):
    run(profile, mutated_json_text(st.sampled_from(RECORD_OBJS)), _check_record, scale=2)
    run(profile, mutated_json(st.sampled_from(RECORD_OBJS)), _check_record, scale=2)
    run(profile, st.one_of(st.binary(max_size=60), mutated_text(st.sampled_from(RECORD_LINES)).map(
        lambda s: s.encode("utf-8", "surrogatepass"))), _check_record)


@pytest.mark.parametrize("profile", PROFILES)
def test_record_files(profile, tmp_path):
    """`read_records`, lenient and strict, on files of good, broken, blank and torn lines: the
    records, or RecordError naming a line; the file is never changed by reading it."""
    line = st.one_of(st.sampled_from(RECORD_LINES), mutated_json_text(st.sampled_from(RECORD_OBJS)),
                     st.sampled_from(["", " ", "\t"]))
    files = st.tuples(st.lists(line, max_size=4), st.booleans(), st.one_of(st.just(b""), st.binary(max_size=8)))
    path = tmp_path / "games.jsonl"

    def prop(example):
        lines, newline, tail = example
        data = "\n".join(lines).encode("utf-8", "surrogatepass") + (b"\n" if newline else b"") + tail
        path.write_bytes(data)
        for strict in (False, True):
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    records = list(read_records(path, strict=strict))
            except SplendorError as e:
                refused(e, RecordError)
                assert "line " in str(e)
            else:
                for rec in records:
                    assert GameRecord.from_line(rec.to_line()) == rec
            assert path.read_bytes() == data
    run(profile, files, prop)


# -- the engine protocol -----------------------------------------------------------------------------------------

def _requests() -> list[dict]:
    out = [{"id": "v", "action": "query_version"}, {"id": 7, "action": "terminate", "terminateId": "a"},
           {"id": "all", "action": "terminate_all", "turnNumbers": [0, 3], "noResults": True}]
    for i, g in enumerate(GAMES[:12]):
        common = {"limit": {"iterations": 50}, "topK": 3, "seed": i, "spec": SPECS[i % 9]}
        if not g.is_over():
            out.append({"id": f"p{i}", "action": "analyse", "position": g.position(), **common})
            out.append({"id": i, "action": "hint", "position": g.view(g.to_move).position(), "seat": g.to_move,
                        "limit": {"seconds": 0.1}})
            out.append({"id": f"j{i}", "position": g.to_json(), "seat": 0, "reportEvery": 0.5, **common})
        out.append({"id": f"r{i}", "record": RECORD_OBJS[i], "turn": len(RECORDS[i].moves) // 2, **common})
    out.append({"id": "s", "start": {"players": 3, "seed": 4, "module": "orient"}, "moves": ["+wbg", "rL2"],
                "limit": {"iterations": 10}})
    out.append({"id": "l", "record": RECORD_LINES[-1], "limit": {"iterations": 10}})
    return out


REQUESTS = _requests()


def _engine():
    from splendor_ai.interfaces.protocol import Engine
    out = io.StringIO()
    return Engine(out, threads=0), out      # no workers: requests are checked and queued, never searched


def _check_answers(engine, out, lines: list[str]) -> None:
    from splendor_ai.interfaces.protocol import MAX_LINE_CHARS
    answers = [json.loads(x) for x in out.getvalue().splitlines()]
    queued = len(engine.live)
    assert len(answers) + queued == len([x for x in lines if x.strip()]), (answers, queued)
    for a in answers:
        assert set(a) >= {"id"}, a
        if "error" in a:
            assert isinstance(a["error"], str) and short(a["error"]), a
            assert "internal error" not in a["error"], a
            assert set(a) <= {"id", "error", "field"}, a
        else:
            assert a.get("action") in ("query_version", "terminate", "terminate_all"), a
        assert len(json.dumps(a)) <= MAX_LINE_CHARS


@pytest.mark.parametrize("profile", PROFILES)
def test_engine_protocol_lines(profile):
    """Each request line gets one answer (an error object naming the problem, never an internal
    error) or is queued as a search; a refused request queues nothing."""
    lines = st.one_of(mutated_json_text(st.sampled_from(REQUESTS)),
                      mutated_json(st.sampled_from(REQUESTS)).map(json_text),
                      text_inputs(["{}", "[]", "null", '{"id": 1}'], max_ops=4))

    def prop(line):
        engine, out = _engine()
        if line.strip():                      # (blank lines are skipped unanswered)
            engine.handle_line(line)
        _check_answers(engine, out, [line])
    run(profile, lines, prop, scale=2)


@pytest.mark.parametrize("profile", PROFILES)
def test_engine_protocol_streams(profile):
    """Whole input streams as bytes (several lines, blank lines, bytes that are not UTF-8): one
    answer per non-blank line, whatever comes before it."""
    from splendor_ai.interfaces.protocol import serve
    line = st.one_of(st.sampled_from(REQUESTS).map(json.dumps), mutated_json_text(st.sampled_from(REQUESTS)),
                     st.binary(max_size=30).map(lambda b: b.decode("latin-1")), st.just(""))
    streams = st.tuples(st.lists(line, max_size=5), st.binary(max_size=6))

    def prop(example):
        lines, junk = example
        data = b"".join(x.encode("utf-8", "surrogatepass").replace(b"\n", b" ").replace(b"\r", b" ") + b"\n"
                        for x in lines) + junk
        out = io.StringIO()
        from splendor_ai.interfaces import protocol
        engine = protocol.Engine(out, threads=0)
        inp = io.BytesIO(data)
        count = 0
        while True:
            text, problem = protocol._read_line(inp)
            if text is None:
                break
            if problem:
                engine.emit({"id": None, "error": problem})
                count += 1
            elif text.strip():
                engine.handle_line(text)
                count += 1
        answers = [json.loads(x) for x in out.getvalue().splitlines()]
        assert len(answers) + len(engine.live) == count
        assert not any("internal error" in a.get("error", "") for a in answers)
        # and `serve` itself reads the same stream to the end without failing
        serve(io.BytesIO(data.replace(b'"analyse"', b'"query_version"')), io.StringIO(), threads=0)
    run(profile, streams, prop)


# -- player specs ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("profile", PROFILES)
def test_player_specs(profile):
    """`parse_spec` and `make_player`: a player, or ConfigError with a short message; a spec that
    builds a player round-trips through its canonical text."""
    from splendor_ai.players import make_player
    from splendor_ai.players.spec import parse_spec

    def prop(spec):
        try:
            name, kwargs = parse_spec(spec)
        except SplendorError as e:
            return refused(e, ConfigError)
        try:
            player = make_player(spec, seed=3)
        except SplendorError as e:
            return refused(e, ConfigError)
        player.close()
        canon = name + (f"({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})" if kwargs else "")
        assert parse_spec(canon) == (name, kwargs)
        make_player(canon, seed=3).close()
    specs = text_inputs([s for s in SPECS if s != "human"] + ["mcts(iterations=10, c=1e999)",
                                                             "mcts(workers=100000)", "expectimax(tt_bits=99)"],
                        max_ops=3, seps=",=()")
    run(profile, specs, prop, scale=3)


# -- the web API ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def web():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from splendor_ai.interfaces.web.app import create_app
    from splendor_ai.interfaces.web.games import GameManager
    manager = GameManager(workers=2)
    with TestClient(create_app(manager), base_url="http://127.0.0.1") as client:
        client.get("/api/health")
        yield manager, client, client.cookies["splendor_client"]
    manager.shutdown()


#: search budgets: valid ones are small (the fuzz run stays short), invalid ones odd
_LIMIT = st.one_of(st.none(), st.fixed_dictionaries({}, optional={
    "iterations": st.one_of(st.integers(1, 60), st.sampled_from([0, -1, 2_000_001, 10 ** 30, 1.5, "50", True, None])),
    "seconds": st.one_of(st.floats(0.001, 0.03), st.sampled_from([0, -1, 31, 1e308, float("inf"), float("nan"),
                                                                   "1", True])),
    "dets": st.just(3)}).filter(lambda d: "iterations" in d or "seconds" in d or not d),
    st.sampled_from([[], "fast", 5, {"iterations": {"x": 1}}]))
_SPEC = st.one_of(st.none(), mutated_text(st.sampled_from(["mcts(iterations=30)", "mcts(iterations=20, c=1.5)"]),
                                          max_ops=2, seps=",=()"), st.sampled_from([5, [], "greedy", "x" * 300]))
_SEAT = st.one_of(st.none(), st.integers(-2, 5), st.sampled_from(["0", 1.0, True, 2 ** 70]))


def _http_request(state, record_line: str):
    """(method, path suffix, JSON body or raw bytes, query) of a request about a game at `state`."""
    legal = [str(m) for m in state.legal_moves]
    move_body = mutated_json(st.builds(lambda m, v: {"move": m, "version": v},
                                       mutated_text(st.sampled_from(legal), max_ops=2),
                                       st.sampled_from([0, None, 1, -1])), max_ops=1)
    ai = st.one_of(st.sampled_from(["human", "random", "greedy", "mcts(iterations=20)", "expectimax(depth=1)"]),
                   mutated_text(st.sampled_from(["mcts(iterations=20)", "human", "random"]), max_ops=2, seps=",=()"),
                   st.sampled_from([None, 3, ["human"], "mcts(mode='perfect')", "mcts(iterations=3000000)"]))
    new_body = mutated_json(st.fixed_dictionaries(
        {"seats": st.lists(ai, min_size=2, max_size=4).map(lambda s: ["human"] + s[1:])},
        optional={"players": st.sampled_from([2, 3, 4, 1, 5, "2", 2.0, None]), "seed": st.one_of(
            st.integers(-5, 2 ** 65), st.sampled_from([None, "1", 1.5])), "firstPlayer": st.sampled_from([0, 1, 7, -1]),
            "module": st.sampled_from([None, "orient", "cities", "posts", "strongholds", "moon", 3]),
            "open": st.sampled_from([True, False, "yes"]), "hintSpec": _SPEC}), max_ops=1)
    import_body = st.fixed_dictionaries({"record": st.one_of(
        mutated_text(st.just(record_line), max_ops=2), mutated_json(st.just(json.loads(record_line)), max_ops=2),
        st.sampled_from(["", "\n\n", 5, None]))}, optional={"humans": st.sampled_from([[0], [1], [], [9], "0", None]),
                                                             "game": st.sampled_from([1, 2, 0, True])})
    hint = st.fixed_dictionaries({"limit": _LIMIT}, optional={"spec": _SPEC})
    analysis = st.fixed_dictionaries({"limit": _LIMIT}, optional={
        "spec": _SPEC, "topK": st.sampled_from([1, 8, 50, 0, 51, -1, 1.5, "8"]), "seat": _SEAT,
        "step": st.one_of(st.integers(-2, len(state.move_stack) + 2), st.sampled_from(["1", None, 2 ** 70]))})
    graph = st.fixed_dictionaries({"on": st.sampled_from([True, False, "on", None]),
                                   "limit": st.one_of(st.just({"iterations": 5}), _LIMIT)}, optional={"seat": _SEAT})
    query = st.one_of(st.none(), st.sampled_from(["0", "1", "-1", "99", "x", "1.5", "", "\u0663", "9" * 30]))
    raw = st.one_of(st.binary(max_size=40), st.sampled_from([b"", b"{", b"null", b"[]", b'{"move": "+wbg"}x',
                                                             b'{"move": NaN}', b"[" * 5000]))
    return st.one_of(
        st.tuples(st.just("POST"), st.just("/move"), move_body, st.none()),
        st.tuples(st.just("POST"), st.just("/undo"), mutated_json(st.just({"version": 0}), max_ops=1), st.none()),
        st.tuples(st.just("POST"), st.just("/hint"), hint, st.none()),
        st.tuples(st.just("POST"), st.just("/analysis"), analysis, st.none()),
        st.tuples(st.just("POST"), st.just("/graph"), graph, st.none()),
        st.tuples(st.just("POST"), st.just("NEW"), new_body, st.none()),
        st.tuples(st.just("POST"), st.just("IMPORT"), import_body, st.none()),
        st.tuples(st.just("GET"), st.sampled_from(["", "/replay", "/record", "/analysis"]), st.none(),
                  st.fixed_dictionaries({}, optional={"step": query, "seat": query})),
        st.tuples(st.just("POST"), st.sampled_from(["/move", "/undo", "/hint", "/analysis", "/graph", "NEW",
                                                    "IMPORT"]), raw.map(lambda b: ("raw", b)), st.none()),
    )


def _snapshot(manager, gid: str) -> tuple:
    g = manager.games[gid]
    with g.lock:
        return g.state.position(), [str(m) for m in g.state.move_stack], g.version, len(g.log)


@pytest.mark.parametrize("profile", PROFILES)
def test_web_api_bodies(profile, web):
    """Every route that takes a body or a query, on a live game: a JSON answer, a 4xx error with
    a short message (503 with Retry-After when busy), never a 500; a refused request changes
    neither the game nor the list of games."""
    manager, client, token = web

    def prop(data):
        state = data.draw(st.sampled_from(LIVE))
        open_game = data.draw(st.booleans())
        game = manager.adopt(token, state, ["human"] * state.players, open_game=open_game, seed=1)
        gid = game.id
        method, suffix, body, query = data.draw(_http_request(state, RECORD_LINES[GAMES.index(state)]))
        path = {"NEW": "/api/games", "IMPORT": "/api/games/import"}.get(suffix, f"/api/games/{gid}{suffix}")
        before, games_before = _snapshot(manager, gid), set(manager.games)
        try:
            if isinstance(body, tuple):
                r = client.request(method, path, content=body[1], headers={"content-type": "application/json"})
            else:
                r = client.request(method, path, content=None if body is None else json_text(body).encode(),
                                   params=query, headers={"content-type": "application/json"})
            assert r.status_code < 500 or (r.status_code == 503 and "retry-after" in r.headers), (r.status_code, r.text)
            if r.headers.get("content-type", "").startswith("application/json"):
                answer = r.json()
            else:
                assert suffix == "/record" and r.status_code == 200
                assert GameRecord.from_line(r.text).replay().position() == before[0]
                answer = {}
            if r.status_code >= 400:
                assert isinstance(answer.get("error"), str) and short(answer["error"]), r.text
                assert answer.get("status") == r.status_code, r.text
                assert _snapshot(manager, gid) == before and set(manager.games) == games_before, (r.text, body)
            if not open_game and r.status_code < 400 and suffix not in ("NEW", "IMPORT"):
                assert '"seed"' not in r.text and "truePosition" not in r.text
        finally:
            for g in set(manager.games) - games_before | {gid}:
                manager.delete(g, token) if g in manager.games else None
    run(profile, st.data(), prop, scale=1.5)


# -- what the fuzzing found (each a regression test) ---------------------------------------------------------

BASE = State.new(2, seed=1)


def _field(text: str, i: int, value: str) -> str:
    f = text.split()
    f[i] = value
    return " ".join(f)


@pytest.mark.parametrize("text", ["b" + "9" * 5000, "+wbg/n" + "1" * 4400, "r" + "0" * 99 + "1" * 10,
                                  "+bb/" * 1000, "+wbg" + " " * 10 ** 6 + "x"],
                         ids=["card", "noble", "zeros", "repeated", "spaces"])
def test_a_long_move_is_refused_short(text):
    """A number too long for int() raised ValueError, and every error quoted the whole text."""
    with pytest.raises(NotationError) as e:
        Move.parse(text)
    assert len(str(e.value)) < 200
    with pytest.raises(NotationError):
        BASE.push(text)


@pytest.mark.parametrize("field,value", [(3, "29,37,16," + "9" * 5000 + "/65,60,46,57/72,73,84,86"),
                                         (5, "3,5," + "9" * 4400), (6, "0/0/" + "9" * 4000 + "/0/0"),
                                         (1, "2:cap=" + "9" * 4400), (8, "000000:" + "9" * 4400 + ":-:-"),
                                         (8, "000000:-:*" + "9" * 4400 + ":-"), (3, "x" * 100_000)],
                         ids=["market", "nobles", "turn", "cap", "cards", "reserved", "long"])
def test_a_position_with_a_huge_field_is_refused_short(field, value):
    text = _field(BASE.position(), field, value)
    for parse in (State, View.from_position):
        with pytest.raises(PositionError) as e:
            parse(text)
        assert len(str(e.value)) < 300


def test_a_huge_hidden_deck_is_refused_before_it_is_made():
    """`?99999999999` (and {"count": 10**9}) made a list of that many hidden cards: gigabytes."""
    text = _field(BASE.view(0).position(), 4, "?99999999999/?26/?16")
    with pytest.raises(PositionError, match="deck 1: 99999999999 hidden cards, but deck 1 has 40"):
        View.from_position(text)
    obj = BASE.view(0).to_json()
    obj["decks"][0] = {"count": 10 ** 9}
    with pytest.raises(PositionError, match=r"decks\[0\]\.count"):
        View.from_json(obj)


@pytest.mark.parametrize("text,message", [("[" * 100_000, "nested too deeply"), ("9" * 5000, "digits"),
                                          ('{"format": NaN}', "NaN is not a JSON number"),
                                          ("[Infinity]", "Infinity")], ids=["deep", "digits", "nan", "inf"])
def test_json_text_that_python_reads_but_json_has_not(text, message):
    """Deep nesting (RecursionError), a 5000-digit number (ValueError), NaN and Infinity (not JSON:
    a value read with them cannot be written back) escaped as other exceptions, or were read."""
    for parse in (State.from_json, View.from_json):
        with pytest.raises(PositionError, match=message):
            parse(text)
    line = RECORD_LINES[0].replace('"meta":{', '"meta":{"x":' + text + ",") if text.startswith("[") else text
    with pytest.raises(RecordError, match=message):
        GameRecord.from_line(line)


def test_json_position_errors_name_the_field_and_never_echo_it_whole():
    big = {"k": list(range(10_000))}
    for path, value in ((("options",), big), (("options",), 2), (("bank",), big), (("format",), "x" * 10 ** 5),
                        (("seats", 0, "tokens"), big), (("market", 0, 0), "x" * 10 ** 5), (("zz" * 10 ** 4,), 1)):
        obj = BASE.to_json()
        target = obj
        for p in path[:-1]:
            target = target[p]
        target[path[-1]] = value
        with pytest.raises(PositionError) as e:           # (options = 2 raised TypeError)
            State.from_json(obj)
        assert len(str(e.value)) < 300, str(e.value)[:300]


@pytest.mark.parametrize("obj", [{"players": 2.0}, {"players": True}, {"players": "2"}, {"cap": 100.0}])
def test_config_numbers_are_integers(obj):
    """`{"players": 2.0}` made a Config whose JSON said 2.0 and whose game could not start."""
    with pytest.raises(ConfigError):
        Config.from_json(obj)


def test_record_free_form_data_must_be_json():
    """NaN in meta or annotations was read from a line (and a set from an object), and the
    record could then not be written: to_line raised."""
    obj = json.loads(RECORD_LINES[3])
    assert obj["moves"] and obj["annotations"]
    for key, value in (("meta", {"x": float("nan")}), ("meta", {"x": {1, 2}}),
                       ("annotations", [float("inf")] * len(obj["moves"]))):
        o = dict(obj, **{key: value})
        with pytest.raises(RecordError, match=f"{key}: not JSON data"):
            GameRecord.from_json(o)
    with pytest.raises(RecordError, match="NaN is not a JSON number"):
        GameRecord.from_line(RECORD_LINES[0].replace('"meta":{', '"meta":{"x":NaN,'))


def test_record_errors_never_echo_a_huge_value():
    obj = json.loads(RECORD_LINES[0])
    for key, value in (("players", [["x" * 10 ** 5], "y"]), ("seed", "x" * 10 ** 5), ("first_player", [0] * 10 ** 4),
                       ("format", "x" * 10 ** 5), ("y" * 10 ** 5, 1), ("revealed", [list(range(90))] * 10 ** 3),
                       ("result", {"reason": "x" * 10 ** 5})):
        with pytest.raises(RecordError) as e:
            GameRecord.from_json(dict(obj, **{key: value}))
        assert len(str(e.value)) < 300, (key, str(e.value)[:300])
