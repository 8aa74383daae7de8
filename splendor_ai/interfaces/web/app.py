"""The web app of `splendor serve`: a FastAPI JSON API over `games.GameManager`, and the page.

Routes (all JSON; the full list with examples is in docs/WEB.md):

    GET  /                                   the page (static/index.html, app.js, style.css)
    GET  /api/health, /api/catalog, /api/games (this browser's games)
    POST /api/games                          new game            {players, seats, seed, firstPlayer, hintSpec, module, open}
    POST /api/games/import                   game from a record  {record, humans, game}
    GET  /api/games/{id}[?seat=S]            the game as a human seat sees it
    DELETE /api/games/{id}
    POST /api/games/{id}/move                {move, version}
    POST /api/games/{id}/undo                {version}
    POST /api/games/{id}/hint                {limit, spec}
    POST /api/games/{id}/analysis            {limit, spec, topK, seat, step}  (202: runs in the background)
    POST /api/games/{id}/graph               {on, limit, seat}  the live win-rate graph of a human seat's view
    POST /api/games/{id}/review              {limit, spec}  (202) the review of a finished (or open) game
    GET  /api/games/{id}/review
    GET  /api/games/{id}/analysis
    GET  /api/games/{id}/record              the game record (JSON Lines; open games only)
    GET  /api/games/{id}/replay?step=K       the board after K moves
    GET  /api/watch/{watchId}[/replay?step=K] the game as a spectator sees it (public information)

Every request passes `Guard` first: the Host header must be one this server answers to (a web
page of another site cannot reach it through DNS rebinding), a body is at most `MAX_BODY` bytes,
and the browser gets its client token (an HttpOnly, SameSite=Strict cookie) that owns its games.
Every refused request gets a 4xx/5xx response `{"error": "...", "status": N, "field": "..."}` and
leaves the game unchanged.
"""
from __future__ import annotations

import asyncio
import json
import re
import secrets
from contextlib import asynccontextmanager
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from ...errors import SplendorError
from ...validate import check_int
from .games import (DEFAULT_AI, DEFAULT_ANALYSIS_LIMIT, DEFAULT_GRAPH_LIMIT, DEFAULT_HINT_LIMIT,
                    DEFAULT_REVIEW_LIMIT, AI_NAMES, MAX_GRAPH_SECONDS, MAX_REVIEW_SECONDS, ApiError, GameManager, catalog_json, check_search_spec, hint_json, parse_limit,
                    unprocessable)
from .scheduler import Cancelled

MAX_BODY = 2 * 2 ** 20           # bytes of a request body (a record file of a few hundred games)
COOKIE = "splendor_client"
CLIENT_HEADER = "x-splendor-client"
COOKIE_MAX_AGE = 30 * 24 * 3600
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,64}")


def _host_name(value: str) -> str:
    """The host of a Host header, without the port ("[::1]:8000" -> "::1")."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _error(status: int, message: str, headers: list | None = None):
    body = json.dumps({"error": message, "status": status}).encode()
    return status, [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())] + (
        headers or []), body


class Guard:
    """ASGI middleware: the Host allow-list, the body-size limit and the client token."""

    def __init__(self, app, allowed_hosts: list[str] | None = None, max_body: int = MAX_BODY):
        self.app = app
        hosts = [h.lower() for h in (allowed_hosts if allowed_hosts is not None else LOOPBACK_HOSTS)]
        self.any_host = "*" in hosts
        self.hosts = {_host_name(h) if not h.startswith("[") else h[1:-1] for h in hosts}
        self.max_body = max_body

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = _host_name(headers.get("host", ""))
        if not self.any_host and host not in self.hosts:
            return await self._send(send, *_error(
                400, f"host: this server answers to {', '.join(sorted(self.hosts))} only, not "
                f"{headers.get('host', '')[:80]!r} (splendor serve --allow-host adds a name)"))
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return await self._send(send, *_error(
                413, f"the request body is larger than this server's limit of {self.max_body} bytes"))
        # the whole body is read here, up to the limit (bodies sent without a length included)
        chunks, size, more = [], 0, True
        if scope.get("method") in ("POST", "PUT", "PATCH", "DELETE"):
            while more:
                msg = await receive()
                if msg["type"] == "http.disconnect":
                    return
                body = msg.get("body", b"")
                size += len(body)
                if size > self.max_body:
                    return await self._send(send, *_error(
                        413, f"the request body is larger than this server's limit of {self.max_body} bytes"))
                chunks.append(body)
                more = msg.get("more_body", False)
        whole = b"".join(chunks)
        sent = False

        async def replay():
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": whole, "more_body": False}
            return await receive()

        client = headers.get(CLIENT_HEADER, "")
        if not _TOKEN.fullmatch(client):
            cookie = SimpleCookie()
            try:
                cookie.load(headers.get("cookie", ""))
            except Exception:
                pass
            client = cookie[COOKIE].value if COOKIE in cookie else ""
        new = not _TOKEN.fullmatch(client)
        if new:
            client = secrets.token_urlsafe(24)
        scope["splendor.client"] = client

        async def send_with_cookie(msg):
            if new and msg["type"] == "http.response.start":
                msg = dict(msg)
                msg["headers"] = list(msg.get("headers", [])) + [(
                    b"set-cookie", f"{COOKIE}={client}; Path=/; Max-Age={COOKIE_MAX_AGE}; HttpOnly; "
                    "SameSite=Strict".encode())]
            await send(msg)

        await self.app(scope, replay if scope.get("method") in ("POST", "PUT", "PATCH", "DELETE") else receive,
                       send_with_cookie)

    @staticmethod
    async def _send(send, status, headers, body):
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def client_of(request: Request) -> str:
    return request.scope["splendor.client"]


STATIC = Path(__file__).parent / "static"

#: AI strengths the page offers (any spec can be typed in)
AI_PRESETS = [
    {"label": "Random (instant)", "spec": "random"},
    {"label": "Greedy (instant)", "spec": "greedy"},
    {"label": "MCTS, 300 iterations (fast)", "spec": "mcts(iterations=300)"},
    {"label": "MCTS, 1 second", "spec": "mcts(seconds=1)"},
    {"label": "MCTS, 3 seconds (strong)", "spec": "mcts(seconds=3)"},
    {"label": "MCTS, 10 seconds (strongest)", "spec": "mcts(seconds=10)"},
]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class NewGameBody(_Body):
    players: int = 2
    seats: list[str] | None = None
    seed: int | None = None
    firstPlayer: int = 0
    hintSpec: str | None = None
    module: str | None = None
    open: bool = False


class MoveBody(_Body):
    move: str
    version: int | None = None


class UndoBody(_Body):
    version: int | None = None


class HintBody(_Body):
    limit: dict[str, Any] | None = None
    spec: str | None = None


class AnalysisBody(_Body):
    limit: dict[str, Any] | None = None
    spec: str | None = None
    topK: int = 8
    seat: int | None = None
    step: int | None = None


class ReviewBody(_Body):
    limit: dict[str, Any] | None = None
    spec: str | None = None


class GraphBody(_Body):
    on: bool = True
    limit: dict[str, Any] | None = None
    seat: int | None = None


class ImportBody(_Body):
    record: Any                   # the file's text, or one record as an object (checked by the manager)
    humans: list[int] | None = None
    game: int = 1


def _field_name(loc) -> str | None:
    parts = [p for p in loc if p not in ("body", "query", "path")]
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif "[" in str(p) or "-" in str(p) or str(p).startswith("function-"):
            continue    # pydantic's union member tags, e.g. 'str' / 'dict[str,any]'
        else:
            out += ("." if out else "") + str(p)
    return out or None


def _validation_response(exc: RequestValidationError) -> JSONResponse:
    errors = exc.errors()
    first: dict[str, Any] = dict(errors[0]) if errors else {"loc": (), "msg": "invalid request", "type": ""}
    if first.get("type") == "json_invalid":
        ctx = first.get("ctx") or {}
        return JSONResponse({"error": f"the request body is not valid JSON: {ctx.get('error', first['msg'])}",
                             "status": 400}, status_code=400)
    field = _field_name(first.get("loc", ()))
    msg = first.get("msg", "invalid value")
    if first.get("type") == "missing" and field is None:
        text = "the request needs a JSON body"
    elif first.get("type") == "missing":
        text = f"{field}: missing (required)"
    elif first.get("type") == "extra_forbidden":
        text = f"{field}: unknown field"
    else:
        got = first.get("input")
        text = f"{field or 'request'}: {msg}" + (f", got {got!r}" if got is not None and len(repr(got)) < 80 else "")
    out = {"error": text, "status": 422}
    if field:
        out["field"] = field
    return JSONResponse(out, status_code=422)


def create_app(manager: GameManager | None = None, allowed_hosts: list[str] | None = None,
               max_body: int = MAX_BODY) -> FastAPI:
    """The app; `manager` holds its games (a new one by default); `allowed_hosts` are the names the
    Host header may give (default: the loopback names; "*": any)."""
    from ... import __version__
    manager = manager or GameManager()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        manager.shutdown()

    # no /docs or /redoc: their pages load scripts from a CDN (the schema stays at /openapi.json)
    app = FastAPI(title="splendor_ai", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="Play Splendor against the AI in the browser: see docs/WEB.md.")
    app.state.manager = manager
    app.add_middleware(Guard, allowed_hosts=allowed_hosts, max_body=max_body)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after is not None else None
        return JSONResponse(exc.to_json(), status_code=exc.status, headers=headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return _validation_response(exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):
        detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        if exc.status_code == 404:
            detail = f"not found: {request.method} {request.url.path[:100]}"
        elif exc.status_code == 405:
            detail = f"method {request.method} is not allowed on {request.url.path[:100]}"
        return JSONResponse({"error": detail, "status": exc.status_code}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    # -- the page --------------------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # -- information -------------------------------------------------------------------------------------

    @app.get("/api/health")
    def health(request: Request):
        return {"ok": True, "version": __version__, "games": len(manager.list_json(client_of(request)))}

    @app.get("/api/catalog")
    def catalog():
        return {**catalog_json(), "aiPresets": AI_PRESETS, "aiPlayers": list(AI_NAMES), "defaultAi": DEFAULT_AI,
                "defaultHintLimit": DEFAULT_HINT_LIMIT, "defaultAnalysisLimit": DEFAULT_ANALYSIS_LIMIT}

    @app.get("/api/games")
    def list_games(request: Request):
        return {"games": manager.list_json(client_of(request))}

    # -- games ---------------------------------------------------------------------------------------------

    @app.post("/api/games", status_code=201)
    def new_game(body: NewGameBody, request: Request):
        game = manager.create(client_of(request), body.players, body.seats, body.seed, body.firstPlayer,
                              body.hintSpec, body.module, body.open)
        return game.to_json()

    @app.post("/api/games/import", status_code=201)
    def import_game(body: ImportBody, request: Request):
        game = manager.import_record(client_of(request), body.record, body.humans, body.game)
        return game.to_json()

    @app.get("/api/games/{gid}")
    def get_game(gid: str, request: Request, seat: int | None = Query(None)):
        return manager.get(gid, client_of(request)).to_json(seat)

    @app.delete("/api/games/{gid}")
    def delete_game(gid: str, request: Request):
        manager.delete(gid, client_of(request))
        return {"deleted": gid}

    @app.post("/api/games/{gid}/move")
    def move(gid: str, body: MoveBody, request: Request):
        return manager.get(gid, client_of(request)).play(body.move, body.version)

    @app.post("/api/games/{gid}/undo")
    def undo(gid: str, request: Request, body: UndoBody | None = None):
        return manager.get(gid, client_of(request)).undo(body.version if body else None)

    @app.post("/api/games/{gid}/hint")
    async def hint(gid: str, request: Request, body: HintBody | None = None):
        body = body or HintBody()
        client = client_of(request)

        def prepare():
            game = manager.get(gid, client)
            limit = parse_limit(body.limit, default=DEFAULT_HINT_LIMIT)
            st = game.state
            spec = (check_search_spec(body.spec, "spec", st.players, st.module) if body.spec is not None else None)
            return game.hint_task(limit, spec)

        task = await run_in_threadpool(prepare)
        try:
            # the search runs on the scheduler's workers: the server keeps answering meanwhile
            a = await asyncio.wrap_future(task.future)
        except Cancelled:
            raise ApiError(409, "the hint was cancelled (the game changed)") from None
        except SplendorError as e:
            raise ApiError(409, f"hint: {e}") from None
        finally:
            if not task.future.done():
                task.cancel()
        return {"gameId": gid, **hint_json(a)}

    @app.post("/api/games/{gid}/analysis", status_code=202)
    def start_analysis(gid: str, request: Request, body: AnalysisBody | None = None):
        body = body or AnalysisBody()
        game = manager.get(gid, client_of(request))
        limit = parse_limit(body.limit, default=DEFAULT_ANALYSIS_LIMIT)
        st = game.state
        spec = check_search_spec(body.spec, "spec", st.players, st.module) if body.spec is not None else None
        check_int(body.topK, "topK", 1, 50, unprocessable, expect="1-50")
        return game.start_analysis(limit, spec, body.topK, body.seat, body.step)

    @app.post("/api/games/{gid}/review", status_code=202)
    def start_review(gid: str, request: Request, body: ReviewBody | None = None):
        body = body or ReviewBody()
        game = manager.get(gid, client_of(request))
        limit = parse_limit(body.limit, default=DEFAULT_REVIEW_LIMIT)
        if limit.seconds is not None and limit.seconds > MAX_REVIEW_SECONDS:
            raise ApiError(422, f"limit.seconds: a review searches every move: at most {MAX_REVIEW_SECONDS:g} s each",
                           "limit.seconds")
        st = game.state
        spec = check_search_spec(body.spec, "spec", st.players, st.module) if body.spec is not None else None
        return game.start_review(limit, spec)

    @app.get("/api/games/{gid}/review")
    def get_review(gid: str, request: Request):
        return manager.get(gid, client_of(request)).review_json()

    @app.post("/api/games/{gid}/graph")
    def graph(gid: str, request: Request, body: GraphBody | None = None):
        body = body or GraphBody()
        game = manager.get(gid, client_of(request))
        limit = parse_limit(body.limit, default=DEFAULT_GRAPH_LIMIT)
        if limit.seconds is not None and limit.seconds > MAX_GRAPH_SECONDS:
            raise ApiError(422, f"limit.seconds: the graph searches every position: at most {MAX_GRAPH_SECONDS:g} s "
                           "each", "limit.seconds")
        return game.set_graph(body.on, limit, body.seat)

    @app.get("/api/games/{gid}/analysis")
    def get_analysis(gid: str, request: Request):
        return manager.get(gid, client_of(request)).analysis_json()

    @app.get("/api/games/{gid}/record")
    def record(gid: str, request: Request):
        rec = manager.get(gid, client_of(request)).record()
        return Response(rec.to_line() + "\n", media_type="application/x-ndjson",
                        headers={"Content-Disposition": 'attachment; filename="splendor-game.jsonl"'})

    @app.get("/api/games/{gid}/replay")
    def replay(gid: str, request: Request, step: int = Query(...), seat: int | None = Query(None)):
        return manager.get(gid, client_of(request)).replay_json(step, seat)

    # -- spectators ---------------------------------------------------------------------------------------

    @app.get("/api/watch/{wid}")
    def watch(wid: str):
        return manager.watch(wid).watch_json()

    @app.get("/api/watch/{wid}/replay")
    def watch_replay(wid: str, step: int = Query(...)):
        return manager.watch(wid).replay_json(step, spectator=True)

    return app
