"""The analysis engine: JSON requests in, JSON responses out, one per line (docs/ENGINE.md).

`splendor engine` runs `serve(sys.stdin, sys.stdout)`. Requests are handled one at a time, in
order. Every line gets an answer: an analysis (after optional progress reports), a version, or an
error object naming the problem and the request id, after which the engine keeps serving. End of
input ends it.
"""
from __future__ import annotations

import json
import sys
from typing import Any, Callable, TextIO

from ..errors import SplendorError
from ..players.bounds import MAX_ITERATIONS, MAX_SECONDS  # noqa: F401  (the one table of bounds)

PROTOCOL = "splendor-engine/1"
FIELDS = {"id", "action", "position", "start", "moves", "record", "turn", "seat", "limit", "top_k",
          "spec", "seed", "report_every"}
ACTIONS = ("analyse", "hint", "query_version")
START_FIELDS = {"players", "seed", "first_player", "cap", "module", "modules"}
LIMIT_FIELDS = ("iterations", "seconds")
MAX_TOP_K = 200


class RequestError(SplendorError):
    """A request that cannot be served; `field` names the part of the request at fault."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and v not in (float("inf"), float("-inf"))


def _int_field(req: dict, name: str, lo: int, hi: int, default=None):
    v = req.get(name, default)
    if v is default and name not in req:
        return default
    if not _is_int(v) or not lo <= v <= hi:
        raise RequestError(f"{name}: expected an integer in {lo}-{hi}, got {json.dumps(v)}", name)
    return v


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


def _push_moves(state, moves, where: str = "moves"):
    from ..errors import IllegalMoveError, NotationError
    if not isinstance(moves, list):
        raise RequestError(f"{where}: expected a list of move strings, got {json.dumps(moves)}", where)
    for i, m in enumerate(moves):
        if not isinstance(m, str):
            raise RequestError(f"{where}[{i}]: expected a move string, got {json.dumps(m)}", f"{where}[{i}]")
        if state.is_over():
            raise RequestError(f"{where}[{i}]: {m!r} is played after the game ended", f"{where}[{i}]")
        try:
            state.push(m)
        except (NotationError, IllegalMoveError) as e:
            raise RequestError(f"{where}[{i}]: illegal move: {e}", f"{where}[{i}]") from None
    return state


def build_position(req: dict):
    """The View or State a request describes (a State only when the request gives the whole game:
    a true position, a start, or a record; the analysis takes its view before searching)."""
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
    if seat is not None and not _is_int(seat):
        raise RequestError(f"seat: expected an integer seat, got {json.dumps(seat)}", "seat")
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
                                   f"got {json.dumps(p)}", "position")
            if state is None:
                if "moves" in req and req["moves"]:
                    raise RequestError("moves: can only be played from a true position (no '?'), a start or a record",
                                       "moves")
                _check_seat(seat, view_of(None).players)
                return view_of(seat)
        except PositionError as e:
            raise RequestError(f"position: {e}", "position") from None
    elif kind == "start":
        s = req["start"]
        if not isinstance(s, dict):
            raise RequestError(f"start: expected an object like {{\"players\": 2, \"seed\": 1}}, got {json.dumps(s)}",
                               "start")
        extra = sorted(set(s) - START_FIELDS)
        if extra:
            raise RequestError(f"start: unknown field {extra[0]!r} (known: {', '.join(sorted(START_FIELDS))})",
                               f"start.{extra[0]}")
        if "seed" not in s:
            raise RequestError("start.seed: missing (the deal must be reproducible)", "start.seed")
        players = s.get("players", 2)
        seed = s["seed"]
        first = s.get("first_player", 0)
        if not _is_int(players):
            raise RequestError(f"start.players: expected 2, 3 or 4, got {json.dumps(players)}", "start.players")
        if not _is_int(seed):
            raise RequestError(f"start.seed: expected an integer in [0, 2**64), got {json.dumps(seed)}", "start.seed")
        if not _is_int(first):
            raise RequestError(f"start.first_player: expected a seat, got {json.dumps(first)}", "start.first_player")
        modules = _start_modules(s)
        try:
            config = Config(players=players, cap=s.get("cap", Config.cap), modules=modules)
            state = State.new(players, seed=seed, first_player=first, config=config)
        except ConfigError as e:
            where = "start.module" if "module" in str(e) else "start"
            raise RequestError(f"{where}: {e}", where) from None
    else:
        from ..records import GameRecord
        r = req["record"]
        try:
            rec = GameRecord.from_line(r) if isinstance(r, str) else GameRecord.from_json(r)
            state = State(rec.start)
        except (RecordError, PositionError) as e:
            raise RequestError(f"record: {e}", "record") from None
        turn = req.get("turn", len(rec.moves))
        if not _is_int(turn) or not 0 <= turn <= len(rec.moves):
            raise RequestError(f"turn: expected an integer in 0-{len(rec.moves)} (the record has {len(rec.moves)} "
                               f"moves), got {json.dumps(turn)}", "turn")
        return _checked_state(_push_moves(state, rec.moves[:turn], "record.moves"), seat)
    return _checked_state(_push_moves(state, req.get("moves", [])), seat)


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
                               f"{json.dumps(m)}", "start.module")
        mods = (m,)
    else:
        mods = s.get("modules", [])
        if not isinstance(mods, list) or not all(isinstance(m, str) for m in mods):
            raise RequestError(f"start.modules: expected a list of module names ({', '.join(MODULES)}), got "
                               f"{json.dumps(mods)}", "start.modules")
        mods = tuple(mods)
    for m in mods:
        if m not in MODULES:
            raise RequestError(f"start.module: unknown module {m!r}; the modules are {', '.join(MODULES)}",
                               "start.module")
    if len(mods) > 1:
        raise RequestError(f"start.modules: {', '.join(mods)}: a game plays one Cities of Splendor module at most "
                           "(each is played on its own with the base game)", "start.modules")
    return mods


def _check_seat(seat, players: int):
    if seat is not None and not 0 <= seat < players:
        raise RequestError(f"seat: expected a seat 0-{players - 1}, got {seat}", "seat")


def _checked_state(state, seat):
    _check_seat(seat, state.players)
    return state


def handle(req: Any, emit: Callable[[dict], None]) -> None:
    """Answer one parsed request (any JSON value) through `emit` (progress reports, then the
    answer). Raises RequestError for a bad request."""
    if not isinstance(req, dict):
        raise RequestError(f"a request must be a JSON object, got {type(req).__name__}")
    if "id" not in req:
        raise RequestError("missing field 'id'", "id")
    rid = req["id"]
    if not (isinstance(rid, str) or _is_int(rid)):
        raise RequestError(f"id: expected a string or an integer, got {json.dumps(rid)}", "id")
    extra = sorted(set(req) - FIELDS)
    if extra:
        raise RequestError(f"unknown field {extra[0]!r} (known: {', '.join(sorted(FIELDS))})", extra[0])
    action = req.get("action", "analyse")
    if action == "analyze":
        action = "analyse"
    if action not in ACTIONS:
        raise RequestError(f"action: expected one of {', '.join(ACTIONS)}, got {json.dumps(action)}", "action")
    if action == "query_version":
        others = sorted(set(req) - {"id", "action"})
        if others:
            raise RequestError(f"{others[0]}: not used by query_version", others[0])
        from .. import __version__
        emit({"id": rid, "action": "query_version", "protocol": PROTOCOL, "version": __version__})
        return
    from ..analysis import AnalysisError, analyse, hint
    from ..errors import ConfigError
    limit = parse_limit(req.get("limit"))
    top_k = _int_field(req, "top_k", 1, MAX_TOP_K, 5)
    seed = _int_field(req, "seed", 0, 2 ** 64 - 1, 0)
    spec = req.get("spec", "mcts")
    if not isinstance(spec, str):
        raise RequestError(f"spec: expected a player spec string such as \"mcts(c=1.2)\", got {json.dumps(spec)}",
                           "spec")
    report_every = req.get("report_every")
    if report_every is not None and (not _is_num(report_every) or not 0.05 <= report_every <= MAX_SECONDS):
        raise RequestError(f"report_every: expected a number of seconds in [0.05, {MAX_SECONDS:g}], got "
                           f"{json.dumps(report_every)}", "report_every")
    if action == "hint" and report_every is not None:
        raise RequestError("report_every: progress reports are for analyse requests", "report_every")
    position = build_position(req)
    seat = req.get("seat")
    try:
        if action == "hint":
            h = hint(position, limit, spec=spec, seed=seed, seat=seat, top_k=top_k)
            emit({"id": rid, "action": "hint", **h.to_json()})
            return
        progress = (lambda a: emit({"id": rid, **a.to_json()})) if report_every else None
        a = analyse(position, limit, top_k=top_k, spec=spec, seed=seed, seat=seat, progress=progress,
                    report_every=report_every)
    except ConfigError as e:
        field = getattr(e, "field", None)
        raise RequestError(f"spec: {e}", f"spec.{field}" if field else "spec") from None
    except AnalysisError as e:
        raise RequestError(str(e), "seat" if str(e).startswith("seat") else "position") from None
    emit({"id": rid, **a.to_json()})


def serve(inp: TextIO = None, out: TextIO = None) -> int:
    """Serve requests from `inp` until end of input. Returns the exit status (0)."""
    inp = inp or sys.stdin
    out = out or sys.stdout

    def emit(obj: dict) -> None:
        out.write(json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n")
        out.flush()

    while True:
        line = inp.readline()
        if not line:
            return 0
        if not line.strip():
            continue
        rid = None
        try:
            try:
                req = json.loads(line)
            except json.JSONDecodeError as e:
                raise RequestError(f"malformed JSON: {e}") from None
            if isinstance(req, dict) and (isinstance(req.get("id"), str) or _is_int(req.get("id"))):
                rid = req["id"]
            handle(req, emit)
        except RequestError as e:
            err = {"id": rid, "error": str(e)}
            if e.field:
                err["field"] = e.field
            emit(err)
        except Exception as e:  # a bug must not take the engine down: report it and go on
            emit({"id": rid, "error": f"internal error: {type(e).__name__}: {e}"})


def main() -> int:
    print(f"splendor engine: ready ({PROTOCOL}); one JSON request per line, end of input to stop",
          file=sys.stderr, flush=True)
    try:
        return serve()
    except KeyboardInterrupt:
        return 130
