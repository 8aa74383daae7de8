"""The analysis engine: JSON requests in, JSON responses out, one per line (docs/ENGINE.md).

`splendor engine` runs `serve(stdin, stdout)`. The reading thread parses and checks each request
at once: `query_version` and `terminate` are answered right away, even while searches run; an
analysis or hint is queued for the worker threads (one by default, so searches run one at a time
in arrival order), whose searches run in the C search without the GIL. A running search asks
between chunks of STOP_CHECK_SECONDS whether it was terminated, and then ends with its partial
result (or none, on request). Every line gets an answer: an analysis (after optional progress
reports), a version, an acknowledgement, or an error object naming the problem and the request
id, after which the engine keeps serving. Output lines are written whole, under one lock. End of
input waits for the queued and running requests (or, with `quit_without_waiting`, terminates
them) and then ends the engine.

Every input is bounded: a request line (MAX_LINE_CHARS), its JSON nesting, its numbers, every
field's type and range, the spec's parameters (`check_spec`) and the queue (MAX_QUEUED).
"""
from __future__ import annotations

import json
import queue
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Callable, TextIO

from ..errors import SplendorError
from ..players.bounds import MAX_ITERATIONS, MAX_SECONDS  # noqa: F401  (the one table of bounds)
from ..validate import check_int, check_number, int_in, ints_in, is_int

PROTOCOL = "splendor-engine/1"
SEARCH_FIELDS = {"id", "action", "position", "start", "moves", "record", "turn", "seat", "limit", "topK",
                 "spec", "seed", "reportEvery"}
TERMINATE_FIELDS = {"id", "action", "terminateId", "turnNumbers", "noResults"}
REVIEW_FIELDS = {"id", "action", "record", "seats", "turns", "limit", "spec", "seed", "topK"}
ACTIONS = ("analyse", "hint", "review", "query_version", "terminate", "terminate_all")
START_FIELDS = {"players", "seed", "firstPlayer", "cap", "module", "modules"}
#: the snake_case spellings of version 1, still accepted in splendor-engine/1 (one casing, camelCase,
#: across the protocol, the web API and SearchInfo); splendor-engine/2 will drop them
V1_SPELLINGS = {"top_k": "topK", "report_every": "reportEvery"}
V1_START_SPELLINGS = {"first_player": "firstPlayer"}
LIMIT_FIELDS = ("iterations", "seconds")
MAX_TOP_K = 200
#: a request with a whole game record is a few KB; a longer line is refused unread
MAX_LINE_CHARS = 1 << 20
MAX_ID_CHARS = 200
MAX_SPEC_CHARS = 200
#: analyses and hints queued or running at once; a request beyond that is refused
MAX_QUEUED = 1000


class RequestError(SplendorError):
    """A request that cannot be served; `field` names the part of the request at fault."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def _show(v, limit: int = 60) -> str:
    """A value as JSON for an error message, cut short: a bad input is never echoed whole."""
    try:
        text = json.dumps(v, allow_nan=True)
    except (TypeError, ValueError):
        text = repr(v)
    return text if len(text) <= limit else text[:limit] + "..."


def _int_field(req: dict, name: str, lo: int, hi: int, default=None):
    if name not in req:
        return default
    return check_int(req[name], name, lo, hi, RequestError, show=_show)


# -- the bounds of a search -------------------------------------------------------------------------

def check_spec(spec, field: str = "spec") -> tuple[str, dict]:
    """A player spec string within the bounds every entry point shares: its length here, then the
    table of bounds of players/bounds.py (each budget or size parameter's type and range, so that
    `mcts(workers=100000)`, `mcts(seconds=1e9)` or `dets=100000` are refused before anything is
    built). Returns the parsed (name, kwargs); raises RequestError naming `field` (and the
    parameter: `spec.workers`)."""
    from ..errors import ConfigError
    from ..players.spec import check_spec as check_bounds
    if not isinstance(spec, str):
        raise RequestError(f"{field}: expected a player spec string such as \"mcts(c=1.2)\", got {_show(spec)}", field)
    if len(spec) > MAX_SPEC_CHARS:
        raise RequestError(f"{field}: a spec of {len(spec)} characters (at most {MAX_SPEC_CHARS})", field)
    try:
        return check_bounds(spec)
    except ConfigError as e:
        param = getattr(e, "field", None)
        raise RequestError(f"{field}: {_short(e)}", f"{field}.{param}" if param else field) from None


def check_spec_option(spec: str, flag: str) -> str:
    """A player spec given on the command line (`--ai`, `--hint`, `--spec`), within the same
    bounds: CLIError naming `flag` when it is out of them."""
    from ..errors import CLIError
    try:
        check_spec(spec, flag)
    except RequestError as e:
        raise CLIError(str(e)) from None
    return spec


def parse_limit(obj):
    """The request's `limit`, checked against the table of bounds (players/bounds.py)."""
    from ..players.base import Limit
    from ..players.bounds import BoundsError
    if obj is None:
        return Limit()
    try:
        return Limit.from_json(obj, fields=tuple(LIMIT_FIELDS))
    except BoundsError as e:
        raise RequestError(str(e), e.field) from None


# -- positions ---------------------------------------------------------------------------------------

def _push_moves(state, moves, where: str = "moves"):
    from ..errors import IllegalMoveError, NotationError
    if not isinstance(moves, list):
        raise RequestError(f"{where}: expected a list of move strings, got {_show(moves)}", where)
    for i, m in enumerate(moves):
        if not isinstance(m, str):
            raise RequestError(f"{where}[{i}]: expected a move string, got {_show(m)}", f"{where}[{i}]")
        if state.is_over():
            raise RequestError(f"{where}[{i}]: {_show(m)} is played after the game ended", f"{where}[{i}]")
        try:
            state.push(m)
        except (NotationError, IllegalMoveError) as e:
            raise RequestError(f"{where}[{i}]: illegal move: {_short(e)}", f"{where}[{i}]") from None
    return state


def _short(e: object, limit: int = 300) -> str:
    text = str(e)
    return text if len(text) <= limit else text[:limit] + "..."


def build_position(req: dict):
    """The View or State a request describes (a State only when the request gives the whole game:
    a true position, a start, or a record; the analysis takes its view before searching). A
    record is replayed whole (every move and its result checked), even when `turn` stops
    part-way."""
    from ..errors import ConfigError, PositionError, RecordError
    from ..state import Config, State, View
    given = [k for k in ("position", "start", "record") if k in req]
    if not given:
        raise RequestError("no position: give \"position\", \"start\" (with \"moves\") or \"record\"", "position")
    if len(given) > 1:
        raise RequestError(f"give only one of position, start, record (got {', '.join(given)})", given[1])
    kind = given[0]
    if "turn" in req and kind != "record":
        raise RequestError("turn: only with \"record\" (the number of its moves to play)", "turn")
    if "moves" in req and kind == "record":
        raise RequestError("moves: not with \"record\" (use \"turn\" to stop part-way)", "moves")
    seat = req.get("seat")
    if seat is not None:
        check_int(seat, "seat", None, None, RequestError, expect="an integer seat", show=_show)
    if kind == "position":
        p = req["position"]
        try:
            if isinstance(p, str):
                state = State(p) if "?" not in p else None
                view_of = (lambda s: View.from_position(p, s))
            elif isinstance(p, dict):
                try:
                    state = State.from_json(p)
                except PositionError:
                    state = None
                    View.from_json(p)  # raises with the real problem when the JSON is malformed
                view_of = (lambda s: View.from_json(p, s))
            else:
                raise RequestError(f"position: expected an SPN1 string or a JSON position object, "
                                   f"got {_show(p)}", "position")
            if state is None:
                if "moves" in req and req["moves"]:
                    raise RequestError("moves: can only be played from a true position (no '?'), a start or a record",
                                       "moves")
                _check_seat(seat, view_of(None).players)
                return view_of(seat)
        except PositionError as e:
            raise RequestError(f"position: {_short(e)}", "position") from None
    elif kind == "start":
        s = req["start"]
        if not isinstance(s, dict):
            raise RequestError(f"start: expected an object like {{\"players\": 2, \"seed\": 1}}, got {_show(s)}",
                               "start")
        extra = sorted(set(s) - START_FIELDS)
        if extra:
            raise RequestError(f"start: unknown field {extra[0][:30]!r} (known: {', '.join(sorted(START_FIELDS))})",
                               f"start.{extra[0][:30]}")
        if "seed" not in s:
            raise RequestError("start.seed: missing (the deal must be reproducible)", "start.seed")
        players = s.get("players", 2)
        seed = s["seed"]
        first = s.get("firstPlayer", 0)
        # the types here; the ranges where the game is made (Config, State.new)
        check_int(players, "start.players", None, None, RequestError, expect="2, 3 or 4", show=_show)
        check_int(seed, "start.seed", None, None, RequestError, expect="an integer in [0, 2**64)", show=_show)
        check_int(first, "start.firstPlayer", None, None, RequestError, expect="a seat", show=_show)
        modules = _start_modules(s)
        try:
            config = Config(players=players, cap=s.get("cap", Config.cap), modules=modules)
            state = State.new(players, seed=seed, first_player=first, config=config)
        except ConfigError as e:
            where = "start.module" if "module" in str(e) else "start"
            raise RequestError(f"{where}: {_short(e)}", where) from None
    else:
        return _record_state(req, seat)
    return _checked_state(_push_moves(state, req.get("moves", [])), seat)


def _request_record(r):
    """The game record of a request's `record` field (a record object or its JSON line), replayed
    whole (as `splendor play --load` checks it)."""
    from ..errors import PositionError, RecordError
    from ..records import GameRecord
    try:
        if isinstance(r, str):
            rec = GameRecord.from_line(r)
        elif isinstance(r, dict):
            rec = GameRecord.from_json(r)
        else:
            raise RequestError(f"record: expected a record object or its JSON line, got {_show(r)}", "record")
        rec.replay()
    except (RecordError, PositionError) as e:
        raise RequestError(f"record: {_short(e)}", "record") from None
    return rec


def _record_state(req: dict, seat):
    """The position after `turn` moves of a record, once the whole record has replayed."""
    from ..state import State
    rec = _request_record(req["record"])
    state = State(rec.start)    # replay() built it already: a valid start
    turn = req.get("turn", len(rec.moves))
    check_int(turn, "turn", 0, len(rec.moves), RequestError,
              expect=f"an integer in 0-{len(rec.moves)} (the record has {len(rec.moves)} moves)", show=_show)
    return _checked_state(_push_moves(state, rec.moves[:turn], "record.moves"), seat)


def _start_modules(s: dict) -> tuple:
    """The module of a new game: `"module": "orient"` (or `"modules": ["orient"]`, as in a
    record's config); none for the base game. One module at most (docs/MODULES.md)."""
    from ..state import MODULES
    if "module" in s and "modules" in s:
        raise RequestError("start: give \"module\" or \"modules\", not both", "start.modules")
    if "module" in s:
        m = s["module"]
        if m is None:
            return ()
        if not isinstance(m, str):
            raise RequestError(f"start.module: expected a module name ({', '.join(MODULES)}) or null, got "
                               f"{_show(m)}", "start.module")
        mods = (m,)
    else:
        mods = s.get("modules", [])
        if not isinstance(mods, list) or not all(isinstance(m, str) for m in mods):
            raise RequestError(f"start.modules: expected a list of module names ({', '.join(MODULES)}), got "
                               f"{_show(mods)}", "start.modules")
        mods = tuple(mods)
    for m in mods:
        if m not in MODULES:
            raise RequestError(f"start.module: unknown module {m[:30]!r}; the modules are {', '.join(MODULES)}",
                               "start.module")
    if len(mods) > 1:
        raise RequestError(f"start.modules: {_show(list(mods))}: a game plays one Cities of Splendor module at most "
                           "(each is played on its own with the base game)", "start.modules")
    return mods


def _check_seat(seat, players: int):
    if seat is not None and not 0 <= seat < players:
        raise RequestError(f"seat: expected a seat 0-{players - 1}, got {seat}", "seat")


def _checked_state(state, seat):
    _check_seat(seat, state.players)
    return state


# -- requests ----------------------------------------------------------------------------------------

@dataclass
class Job:
    """An analysis or hint request, checked and waiting for (or running on) a worker."""

    rid: Any
    action: str
    run: Callable[["Job"], dict | None]   # the search; returns the final response (None: stopped, no result)
    turns: frozenset[int]                 # the turns it analyses (rootInfo.turn; a review's move indices)
    stop: threading.Event = field(default_factory=threading.Event)
    skip: set = field(default_factory=set)   # a review's turns terminated by turnNumbers
    quiet: set = field(default_factory=set)  # ... of those, the ones terminated with noResults
    no_results: bool = False
    started: bool = False


def _request_id(req: Any):
    if not isinstance(req, dict):
        raise RequestError(f"a request must be a JSON object, got {type(req).__name__}")
    if "id" not in req:
        raise RequestError("missing field 'id'", "id")
    rid = req["id"]
    if not (isinstance(rid, str) and len(rid) <= MAX_ID_CHARS or int_in(rid, -2 ** 63 + 1, 2 ** 63 - 1)):
        raise RequestError(f"id: expected a string of at most {MAX_ID_CHARS} characters or a 64-bit integer, got "
                           f"{_show(rid)}", "id")
    return rid


def _action(req: dict) -> str:
    action = req.get("action", "analyse")
    if action == "analyze":
        action = "analyse"
    if action not in ACTIONS:
        raise RequestError(f"action: expected one of {', '.join(ACTIONS)}, got {_show(action, 30)}", "action")
    return action


def _known_fields(req: dict, known: set, action: str) -> None:
    extra = sorted(set(req) - known)
    if extra:
        name = extra[0][:30]
        if name in SEARCH_FIELDS | TERMINATE_FIELDS | REVIEW_FIELDS:
            raise RequestError(f"{name}: not used by {action}", name)
        raise RequestError(f"unknown field {name!r} (known: {', '.join(sorted(known))})", name)


def prepare(req: dict, emit: Callable[[dict], None]) -> Job:
    """Check an analyse or hint request whole (fields, position, limit, spec) and return the job
    that runs its search. Raises RequestError for a bad request."""
    from ..analysis import AnalysisError, analyse, hint
    from ..errors import ConfigError
    rid = req["id"]
    action = _action(req)
    _known_fields(req, SEARCH_FIELDS, action)
    limit = parse_limit(req.get("limit"))
    top_k = _int_field(req, "topK", 1, MAX_TOP_K, 5)
    seed = _int_field(req, "seed", 0, 2 ** 64 - 1, 0)
    spec = req.get("spec", "mcts")
    check_spec(spec)
    report_every = req.get("reportEvery")
    if report_every is not None:
        check_number(report_every, "reportEvery", 0.05, MAX_SECONDS, RequestError,
                     expect=f"a number of seconds in [0.05, {MAX_SECONDS:g}]", show=_show)
    if action == "hint" and report_every is not None:
        raise RequestError("reportEvery: progress reports are for analyse requests", "reportEvery")
    position = build_position(req)
    seat = req.get("seat")
    if position.is_over():
        raise RequestError(f"the game is over ({position.result().reason}): there is no move to analyse", "position")
    # the spec and the seat are checked now, so that a queued request fails at once
    try:
        from ..analysis import _make_search_player
        _make_search_player(spec, seed).close()
        if action == "hint":
            to_move_seat = position.seat if hasattr(position, "seat") else seat
            if to_move_seat is not None and to_move_seat != position.to_move:
                raise AnalysisError(f"seat {to_move_seat} is not to move (seat {position.to_move} is): a hint is for "
                                    "the seat to move")
    except ConfigError as e:
        field = getattr(e, "field", None)
        raise RequestError(f"spec: {_short(e)}", f"spec.{field}" if field else "spec") from None
    except AnalysisError as e:
        raise RequestError(_short(e), "seat") from None

    def run(job: Job) -> dict | None:
        stop = job.stop.is_set
        if action == "hint":
            h = hint(position, limit, spec=spec, seed=seed, seat=seat, top_k=top_k, stop=stop)
            out = {"id": rid, "action": "hint", **h.to_json()}
        else:
            progress = (lambda a: emit({"id": rid, **a.to_json()})) if report_every else None
            a = analyse(position, limit, top_k=top_k, spec=spec, seed=seed, seat=seat, progress=progress,
                        report_every=report_every, stop=stop)
            out = {"id": rid, **a.to_json()}
        if job.stop.is_set():
            if job.no_results:
                return None
            out["terminated"] = True
        return out

    return Job(rid, action, run, frozenset({position.turn}))


def prepare_review(req: dict, emit: Callable[[dict], None]) -> Job:
    """Check a review request whole (the record replayed, the seats, turns, spec and limit) and
    return the job that reviews its turns one after the other, each answered as it finishes
    (docs/ENGINE.md, "Review")."""
    from ..errors import ConfigError
    from ..review import Review, ReviewError, Settings, review_stream
    rid = req["id"]
    _known_fields(req, REVIEW_FIELDS, "review")
    if "record" not in req:
        raise RequestError("record: missing (the game record to review)", "record")
    rec = _request_record(req["record"])
    players, moves = rec.config.players, len(rec.moves)
    seats = req.get("seats", "all")
    if seats != "all":
        one = [seats] if is_int(seats) else seats
        if not ints_in(one, 0, players - 1) or not one or len(one) > players:
            raise RequestError(f"seats: expected \"all\", a seat or a list of seats 0-{players - 1}, got "
                               f"{_show(seats)}", "seats")
        seats = sorted(set(one))
    turns = req.get("turns")
    if turns is not None and (not isinstance(turns, list) or len(turns) > max(moves, 1)
                              or not ints_in(turns, 0, moves - 1)):
        raise RequestError(f"turns: expected a list of move indices 0-{moves - 1} (the record has {moves} moves), "
                           f"got {_show(turns)}", "turns")
    limit = parse_limit(req.get("limit"))
    seed = _int_field(req, "seed", 0, 2 ** 64 - 1, 0)
    top_k = _int_field(req, "topK", 1, 50, 3)
    spec = req.get("spec")
    if spec is not None:
        check_spec(spec)
    try:
        settings = Settings.make(spec, limit if limit.iterations or limit.seconds else None, seed, top_k)
    except ConfigError as e:
        field = getattr(e, "field", None)
        raise RequestError(f"spec: {_short(e)}", f"spec.{field}" if field else "spec") from None
    chosen = tuple(range(players)) if seats == "all" else tuple(seats)
    state = rec.replay()
    order = []
    while state.move_stack:      # the mover of each move, from the end
        state.pop()
        order.append(state.to_move)
    movers = order[::-1]
    wanted = frozenset(t for t in range(moves) if movers[t] in chosen and (turns is None or t in turns))

    def run(job: Job) -> dict | None:
        done = []
        try:
            for t in review_stream(rec, settings.limit, spec=settings.spec, seats=list(chosen), seed=seed,
                                   top_k=top_k, turns=sorted(wanted),
                                   stop=lambda turn: job.stop.is_set() or turn in job.skip):
                if t.terminated and (t.turn in job.quiet or (job.stop.is_set() and job.no_results)):
                    continue            # stopped with noResults: its partial figures are not wanted
                done.append(t)
                emit({"id": rid, "action": "review", "turnNumber": t.turn, **t.to_json()})
        except ReviewError as e:
            raise RequestError(f"record: {_short(e)}", "record") from None
        terminated = job.stop.is_set() or bool(job.skip & wanted)
        out = {"id": rid, "action": "review", "done": True, "reviewed": [t.turn for t in done]}
        if terminated:
            out["terminated"] = True
        if job.stop.is_set() and job.no_results:
            return {**out, "noResults": True}
        review = Review(rec.config, tuple(rec.players), tuple(rec.moves), rec.result, chosen, settings, tuple(done))
        out["seats"] = [x.to_json() for x in review.summaries]
        return out

    return Job(rid, "review", run, wanted)


class Engine:
    """The request loop's state: the queue of jobs, the workers, the jobs by id, the output lock."""

    def __init__(self, out: TextIO, threads: int = 1):
        self.out = out
        self.lock = threading.Lock()            # one whole line at a time
        self.jobs: queue.Queue = queue.Queue()
        self.live: list[Job] = []               # queued or running, in arrival order
        self.live_lock = threading.Lock()
        self.broken = False                     # the reader of our output went away
        self.workers = [threading.Thread(target=self._work, name=f"engine-search-{i}", daemon=True)
                        for i in range(threads)]
        for w in self.workers:
            w.start()

    def emit(self, obj: dict) -> None:
        line = json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n"
        with self.lock:
            if self.broken:
                return
            try:
                self.out.write(line)
                self.out.flush()
            except (BrokenPipeError, ValueError, OSError):
                self.broken = True

    def error(self, rid, e: Exception, field: str | None = None) -> None:
        err = {"id": rid, "error": str(e)}
        field = getattr(e, "field", None) or field
        if field:
            err["field"] = field
        self.emit(err)

    # -- requests

    def handle_line(self, line: str) -> None:
        rid = None
        try:
            req = _loads(line)
            rid = _request_id(req)
            action = _action(req)
            req = _current_spellings(req)
            if action == "query_version":
                _known_fields(req, {"id", "action"}, action)
                from .. import __version__
                self.emit({"id": rid, "action": "query_version", "protocol": PROTOCOL, "version": __version__})
            elif action in ("terminate", "terminate_all"):
                self.terminate(req, action)
            else:
                with self.live_lock:
                    if len(self.live) >= MAX_QUEUED:
                        raise RequestError(f"{MAX_QUEUED} requests are queued or running: wait for their answers "
                                           "or terminate some")
                job = prepare_review(req, self.emit) if action == "review" else prepare(req, self.emit)
                with self.live_lock:
                    self.live.append(job)
                self.jobs.put(job)
        except RequestError as e:
            self.error(rid, e)
        except Exception as e:  # a bug must not take the engine down: report it and go on
            self.emit({"id": rid, "error": _short(f"internal error: {type(e).__name__}: {e}")})

    def terminate(self, req: dict, action: str) -> None:
        known = TERMINATE_FIELDS - ({"terminateId"} if action == "terminate_all" else set())
        _known_fields(req, known, action)
        if action == "terminate" and "terminateId" not in req:
            raise RequestError("terminateId: missing (the id of the request to terminate)", "terminateId")
        target = req.get("terminateId")
        if action == "terminate" and not (isinstance(target, str) or is_int(target)):
            raise RequestError(f"terminateId: expected a request id (a string or an integer), got {_show(target)}",
                               "terminateId")
        turns = req.get("turnNumbers")
        if turns is not None and (not isinstance(turns, list) or len(turns) > 100_000
                                  or not ints_in(turns, 0, 2 ** 31 - 1)):
            raise RequestError(f"turnNumbers: expected a list of turn numbers, got {_show(turns)}", "turnNumbers")
        no_results = req.get("noResults", False)
        if not isinstance(no_results, bool):
            raise RequestError(f"noResults: expected true or false, got {_show(no_results)}", "noResults")
        turn_set = None if turns is None else set(turns)
        with self.live_lock:
            hits = [j for j in self.live if (action == "terminate_all" or j.rid == target)
                    and (turn_set is None or j.turns & turn_set)]
            if action == "terminate" and not any(j.rid == target for j in self.live):
                raise RequestError(f"terminateId: no request with id {_show(target)} is queued or running",
                                   "terminateId")
            for j in hits:
                if turn_set is not None and j.action == "review":
                    if no_results:         # (first: a turn stopped by `skip` then finds itself here)
                        j.quiet |= turn_set
                    j.skip |= turn_set     # those turns only: the review goes on with the others
                    continue
                j.no_results = j.no_results or no_results
                j.stop.set()
        self.emit(dict(req))   # the acknowledgement: the request echoed (as KataGo's engine does)

    def terminate_everything(self) -> None:
        with self.live_lock:
            for j in self.live:
                j.stop.set()

    # -- workers

    def _work(self) -> None:
        no_result = {"isDuringSearch": False, "noResults": True, "terminated": True}
        while True:
            job = self.jobs.get()
            if job is None:
                return
            try:
                end = ({"id": job.rid, "action": "review", "done": True, "reviewed": [], "terminated": True,
                        "noResults": True} if job.action == "review" else {"id": job.rid, **no_result})
                if job.stop.is_set():      # terminated before it started: nothing was searched
                    out = end
                else:
                    job.started = True
                    out = job.run(job) or end
            except RequestError as e:
                out = {"id": job.rid, "error": str(e), **({"field": e.field} if e.field else {})}
            except SplendorError as e:
                out = {"id": job.rid, "error": _short(e)}
            except Exception as e:  # a bug must not take the engine down
                out = {"id": job.rid, "error": _short(f"internal error: {type(e).__name__}: {e}")}
            # no longer terminable once its answer is on its way
            with self.live_lock:
                self.live = [j for j in self.live if j is not job]
            self.emit(out)

    def finish(self, wait: bool = True) -> None:
        """End of input: wait for every queued and running request (or terminate them first, each
        still answered with its partial result), then stop the workers."""
        if not wait:
            self.terminate_everything()
        for _ in self.workers:
            self.jobs.put(None)
        for w in self.workers:
            w.join()


def _rename(obj: dict, names: dict[str, str], where: str = "") -> dict:
    for old, new in names.items():
        if old in obj and new in obj:
            raise RequestError(f"{where}{new}: given twice (as {new} and as {old}, its version-1 spelling)",
                               f"{where}{new}")
    return {names.get(k, k): v for k, v in obj.items()}


def _current_spellings(req: dict) -> dict:
    """The request with version-1 snake_case field names renamed to their camelCase names."""
    req = _rename(req, V1_SPELLINGS)
    if isinstance(req.get("start"), dict):
        req["start"] = _rename(req["start"], V1_START_SPELLINGS, "start.")
    return req


def _reject_constant(name: str):
    raise RequestError(f"malformed JSON: {name} is not a JSON number")


def _loads(line: str):
    try:
        return json.loads(line, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise RequestError(f"malformed JSON: {e}") from None
    except RecursionError:
        raise RequestError("malformed JSON: nested too deeply") from None
    except ValueError as e:   # an integer of more than 4300 digits
        raise RequestError(f"malformed JSON: {_short(e, 100)}") from None


def _read_line(inp) -> tuple[str | None, str | None]:
    """The next request line (None at end of input), or an error for a line that is too long or
    not UTF-8. A line over MAX_LINE_CHARS is read on to its end in pieces, never held whole."""
    line = inp.readline(MAX_LINE_CHARS + 1)
    if not line:
        return None, None
    if len(line) > MAX_LINE_CHARS:
        newline = b"\n" if isinstance(line, bytes) else "\n"
        while not line.endswith(newline):
            line = inp.readline(MAX_LINE_CHARS)
            if not line:
                break
        return "", f"request line longer than {MAX_LINE_CHARS} characters: not read"
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as e:
            return "", f"request line is not UTF-8 text ({e.reason} at byte {e.start})"
    return line, None


def serve(inp: TextIO | BinaryIO | None = None, out: TextIO | None = None, threads: int = 1,
          quit_without_waiting: bool = False) -> int:
    """Serve requests from `inp` (text or bytes) until end of input. Returns the exit status (0)."""
    inp = inp or sys.stdin
    out = out or sys.stdout
    engine = Engine(out, threads)
    try:
        while not engine.broken:
            line, problem = _read_line(inp)
            if line is None:
                break
            if problem:
                engine.emit({"id": None, "error": problem})
                continue
            if line.strip():
                engine.handle_line(line)
    except KeyboardInterrupt:
        engine.terminate_everything()
        engine.finish(wait=True)
        raise
    engine.finish(wait=not quit_without_waiting)
    return 0


def main(threads: int = 1, quit_without_waiting: bool = False) -> int:
    print(f"splendor engine: ready ({PROTOCOL}); one JSON request per line, end of input to stop",
          file=sys.stderr, flush=True)
    try:
        return serve(sys.stdin.buffer, sys.stdout, threads, quit_without_waiting)
    except KeyboardInterrupt:
        return 130
