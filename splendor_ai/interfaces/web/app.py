"""The web app of `splendor serve`: a FastAPI JSON API over `games.GameManager`, and the page.

Routes (all JSON; the full list with examples is in docs/WEB.md):

    GET  /                                   the page (static/index.html, app.js, style.css)
    GET  /api/health, /api/catalog, /api/games
    POST /api/games                          new game            {players, seats, seed, firstPlayer, hintSpec, module}
    POST /api/games/import                   game from a record  {record, humans, game}
    GET  /api/games/{id}[?seat=S]            the game as a human seat sees it
    DELETE /api/games/{id}
    POST /api/games/{id}/move                {move, version}
    POST /api/games/{id}/undo                {version}
    POST /api/games/{id}/hint                {limit, spec}
    POST /api/games/{id}/analysis            {limit, spec, topK, seat}  (202: runs in the background)
    GET  /api/games/{id}/analysis
    GET  /api/games/{id}/record              the game record (JSON Lines), as a download
    GET  /api/games/{id}/replay?step=K       the board after K moves

Every refused request gets a 4xx response `{"error": "...", "status": N, "field": "..."}` and leaves
the game unchanged.
"""
from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException as StarletteHTTPException

from .games import (DEFAULT_AI, DEFAULT_ANALYSIS_LIMIT, DEFAULT_HINT_LIMIT, AI_NAMES, ApiError, GameManager,
                    catalog_json, check_search_spec, hint_json, parse_limit)

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
    first = errors[0] if errors else {"loc": (), "msg": "invalid request", "type": ""}
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


def create_app(manager: GameManager | None = None) -> FastAPI:
    """The app; `manager` holds its games (a new one by default)."""
    from ... import __version__
    manager = manager or GameManager()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        manager.shutdown()

    app = FastAPI(title="splendor_ai", version=__version__, lifespan=lifespan,
                  description="Play Splendor against the AI in the browser: see docs/WEB.md.")
    app.state.manager = manager

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError):
        return JSONResponse(exc.to_json(), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        return _validation_response(exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException):
        detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
        if exc.status_code == 404:
            detail = f"not found: {request.method} {request.url.path}"
        elif exc.status_code == 405:
            detail = f"method {request.method} is not allowed on {request.url.path}"
        return JSONResponse({"error": detail, "status": exc.status_code}, status_code=exc.status_code,
                            headers=getattr(exc, "headers", None))

    # -- the page --------------------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # -- information -------------------------------------------------------------------------------------

    @app.get("/api/health")
    def health():
        return {"ok": True, "version": __version__, "games": len(manager.games)}

    @app.get("/api/catalog")
    def catalog():
        return {**catalog_json(), "aiPresets": AI_PRESETS, "aiPlayers": list(AI_NAMES), "defaultAi": DEFAULT_AI,
                "defaultHintLimit": DEFAULT_HINT_LIMIT, "defaultAnalysisLimit": DEFAULT_ANALYSIS_LIMIT}

    @app.get("/api/games")
    def list_games():
        return {"games": manager.list_json()}

    # -- games ---------------------------------------------------------------------------------------------

    @app.post("/api/games", status_code=201)
    def new_game(body: NewGameBody):
        game = manager.create(body.players, body.seats, body.seed, body.firstPlayer, body.hintSpec, body.module)
        return game.to_json()

    @app.post("/api/games/import", status_code=201)
    def import_game(body: ImportBody):
        game = manager.import_record(body.record, body.humans, body.game)
        return game.to_json()

    @app.get("/api/games/{gid}")
    def get_game(gid: str, seat: int | None = Query(None)):
        return manager.get(gid).to_json(seat)

    @app.delete("/api/games/{gid}")
    def delete_game(gid: str):
        manager.delete(gid)
        return {"deleted": gid}

    @app.post("/api/games/{gid}/move")
    def move(gid: str, body: MoveBody):
        return manager.get(gid).play(body.move, body.version)

    @app.post("/api/games/{gid}/undo")
    def undo(gid: str, body: UndoBody | None = None):
        return manager.get(gid).undo(body.version if body else None)

    @app.post("/api/games/{gid}/hint")
    async def hint(gid: str, body: HintBody | None = None):
        body = body or HintBody()
        game = manager.get(gid)
        limit = parse_limit(body.limit, default=DEFAULT_HINT_LIMIT)
        spec = check_search_spec(body.spec) if body.spec is not None else None
        view, limit, spec, seed = game.hint_inputs(limit, spec)
        loop = asyncio.get_running_loop()
        # the search runs in the pool: the server keeps answering other requests meanwhile
        out = await loop.run_in_executor(manager.executor, hint_json, view, limit, spec, seed)
        return {"gameId": gid, **out}

    @app.post("/api/games/{gid}/analysis", status_code=202)
    def start_analysis(gid: str, body: AnalysisBody | None = None):
        body = body or AnalysisBody()
        game = manager.get(gid)
        limit = parse_limit(body.limit, default=DEFAULT_ANALYSIS_LIMIT)
        spec = check_search_spec(body.spec) if body.spec is not None else None
        if not 1 <= body.topK <= 50:
            raise ApiError(422, f"topK: expected 1-50, got {body.topK}", "topK")
        return game.start_analysis(limit, spec, body.topK, body.seat)

    @app.get("/api/games/{gid}/analysis")
    def get_analysis(gid: str):
        return manager.get(gid).analysis_json()

    @app.get("/api/games/{gid}/record")
    def record(gid: str):
        rec = manager.get(gid).record()
        return Response(rec.to_line() + "\n", media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="splendor-{gid}.jsonl"'})

    @app.get("/api/games/{gid}/replay")
    def replay(gid: str, step: int = Query(...), seat: int | None = Query(None)):
        return manager.get(gid).replay_json(step, seat)

    return app
