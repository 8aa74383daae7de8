"""The games the web UI serves: each one a true `State` held by the server, shown through one seat's `View`.

This module knows nothing about HTTP: `splendor_ai.interfaces.web.app` maps requests onto it and turns
`ApiError` into JSON error responses. Every game has its own lock; a request checks everything
before it changes anything, so a bad request leaves the game exactly as it was.

AI moves, analyses and hints search in a thread pool (the C search releases the GIL), never on
the request thread. An AI move is a `Job`: its progress (iterations, the moves it leans to, masked
so that nothing hidden from the viewer leaks) is part of the game's JSON while it runs; when it
ends it plays its move only if the game is still where it was when the search started (an undo
meanwhile cancels it).

Hidden information: the JSON of a game is the `View` of one human seat; hints and analyses search
that seat's view. The true state leaves the server only as a game record (download), which a
player asks for to save the game.
"""
from __future__ import annotations

import random
import secrets
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

from ...cards import CARDS, CITIES, COLOURS, LETTERS, NOBLES, POSTS
from ...errors import ConfigError, IllegalMoveError, NotationError, RecordError, SplendorError
from ...state import MODULES, Config, State, View

from ...players.spec import DEFAULT_AI
HINT_FALLBACK_SPEC = "mcts(seconds=1)"
AI_NAMES = ("random", "greedy", "mcts", "expectimax")
MAX_SECONDS = 30.0              # a cap on any search the server runs for one request or AI move
MAX_ITERATIONS = 2_000_000
MAX_WORKERS = 4
MAX_DEPTH = 4
MAX_GAMES = 100
#: this server's caps, tighter than the table of bounds (players/bounds.py) that every entry point checks
SERVER_CAPS = {"seconds": MAX_SECONDS, "iterations": MAX_ITERATIONS, "workers": MAX_WORKERS, "depth": MAX_DEPTH}
REPORT_EVERY = 0.2              # seconds between progress reports of a search
DEFAULT_HINT_LIMIT = {"seconds": 1.0}
DEFAULT_ANALYSIS_LIMIT = {"seconds": 2.0}


class ApiError(Exception):
    """A request the server refuses: HTTP status, a one-line message naming the problem, and the
    request field at fault when there is one."""

    def __init__(self, status: int, message: str, field: str | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field

    def to_json(self) -> dict:
        out: dict[str, Any] = {"error": self.message, "status": self.status}
        if self.field is not None:
            out["field"] = self.field
        return out


class _Cancelled(Exception):
    pass


def player_name(seat: int) -> str:
    return f"Player {seat + 1}"


# -- checking inputs ---------------------------------------------------------------------------------

def check_ai_spec(spec: str, field: str = "seats") -> str:
    """A usable AI spec (a hidden-information player within the server's search caps), stripped."""
    from ...analysis import check_search_spec as check_search
    from ...players import make_player
    from ...players.bounds import short
    from ...players.spec import check_spec
    if not isinstance(spec, str) or not spec.strip():
        raise ApiError(422, f"{field}: expected 'human' or an AI spec such as {DEFAULT_AI!r}", field)
    spec = spec.strip()
    try:
        name, _ = check_spec(spec, SERVER_CAPS)     # the table of bounds, then this server's caps
    except ConfigError as e:
        raise ApiError(422, f"{field}: {e}", field) from None
    if name not in AI_NAMES:
        raise ApiError(422, f"{field}: unknown player {short(name)}; the AI players are {', '.join(AI_NAMES)} "
                       "(or 'human')", field)
    try:
        if name == "mcts":
            check_search(spec)     # refuses mode='perfect' (it would see hidden cards)
        else:
            player = make_player(spec, 0)
            perfect = getattr(player, "perfect_information", False)
            player.close()
            if perfect:
                raise ConfigError(f"spec {short(spec)}: a perfect-information player would see hidden cards")
    except ConfigError as e:
        raise ApiError(422, f"{field}: {e}", field) from None
    return spec


def check_search_spec(spec: str, field: str = "spec") -> str:
    spec = check_ai_spec(spec, field)
    if not spec.startswith("mcts"):
        raise ApiError(422, f"{field}: hints and analysis need an mcts(...) search spec, got {spec!r}", field)
    return spec


def parse_limit(obj, field: str = "limit", default: dict | None = None):
    """A `Limit` from {"iterations": N, "seconds": S} (either or both), within the server's caps."""
    from ...players.base import Limit
    if obj is None:
        obj = default
    if obj is None:
        return None
    if not isinstance(obj, dict) or not obj:
        raise ApiError(422, f"{field}: expected an object with iterations and/or seconds", field)
    from ...players.bounds import BoundsError
    try:   # the table of bounds (players/bounds.py), then this server's caps
        return Limit.from_json(obj, where=field, fields=("iterations", "seconds"), caps=SERVER_CAPS)
    except BoundsError as e:
        raise ApiError(422, str(e), e.field) from None


# -- what the page sees --------------------------------------------------------------------------------

POST_LABELS = ("+1 gem after each purchase", "+1 gem of another colour when taking 2 of one",
               "each gold pays for 2 gems of a colour", "5 points", "1 point per trading post held")
MODULE_TITLES = {"cities": "The Cities", "orient": "The Orient", "posts": "The Trading Posts",
                 "strongholds": "The Strongholds"}


def catalog_json() -> dict:
    """The public tables the page draws from: every card (the 90 base cards and the 30 Orient cards,
    with their abilities), the nobles, the cities and the trading-post powers, and the modules."""
    return {
        "colours": list(COLOURS), "letters": LETTERS,
        "cards": [{"id": c.id, "level": c.level, "bonus": c.bonus,
                   "bonusLetter": LETTERS[c.bonus] if c.bonus is not None else None,
                   "bonusCount": c.bonus_count, "points": c.points, "cost": list(c.cost), "orient": c.orient,
                   "abilities": list(c.abilities), "sacrifice": c.sacrifice} for c in CARDS],
        "nobles": [{"id": n.id, "points": n.points, "requirement": list(n.requirement)} for n in NOBLES],
        "cities": [{"id": c.id, "tile": c.tile, "side": c.side, "prestige": c.prestige,
                    "requirement": list(c.requirement), "sameColour": c.same_colour} for c in CITIES],
        "posts": [{"id": p.id, "requirement": list(p.requirement), "nobles": p.nobles, "power": p.power,
                   "label": POST_LABELS[p.id], "effect": p.effect} for p in POSTS],
        "modules": [{"name": m, "title": MODULE_TITLES[m]} for m in MODULES],
    }


def board_json(view: View) -> dict:
    """Everything `view.seat` sees, as JSON: the bank, the market, deck sizes, nobles and each seat's
    holdings (blind reserves of other seats as hidden cards, `card: null`), and the module's
    elements (docs/WEB.md)."""
    module = view.module
    seats = []
    for i, s in enumerate(view.seats):
        seat = {
            "seat": i, "tokens": list(s.tokens), "tokenCount": sum(s.tokens), "bonuses": list(s.bonuses),
            "cards": list(s.cards), "points": s.points, "nobles": list(s.nobles),
            "reserved": [{"card": c, "level": lv, "blind": b, "orient": o}
                         for c, lv, b, o in zip(s.reserved, s.reserved_levels, s.reserved_blind,
                                                s.reserved_orient or (False,) * len(s.reserved))],
        }
        if module == "cities":
            seat["cities"] = list(s.cities)
        elif module == "orient":
            seat["jokers"] = [{"card": c, "colour": col} for c, col in s.jokers]
            seat["heldNobles"] = list(s.held_nobles)
        elif module == "posts":
            seat["posts"] = list(s.posts)
        elif module == "strongholds":
            seat["strongholds"] = s.strongholds
        seats.append(seat)
    result = view.result()
    out = {
        "players": view.players, "module": module, "viewer": view.seat, "toMove": view.to_move, "turn": view.turn,
        "finalRound": view.final_round, "over": view.is_over(),
        "result": result.to_json() if result else None,
        "bank": list(view.bank), "market": [list(row) for row in view.market],
        "decks": list(view.deck_sizes), "nobles": list(view.nobles), "seats": seats,
        "position": view.position(),
    }
    if module == "cities":
        out["cities"] = list(view.cities)
    elif module == "orient":
        out["discard"] = list(view.discard)
    elif module == "strongholds":
        out["strongholds"] = [{"card": c, "seat": seat, "count": n} for c, (seat, n) in view.strongholds.items()]
    return out


def _visible_cards(view: View) -> set[int]:
    seen = {c for row in view.market for c in row if c is not None}
    for s in view.seats:
        seen.update(s.cards)
        seen.update(c for c in s.reserved if c is not None)
    seen.update(view.discard)
    return seen


def _mask_move(move: str, visible: set[int]) -> str | None:
    """A move as a viewer may see it: None when it names a card hidden from the viewer."""
    import re
    for m in re.finditer(r"(?:^|/)(?:b|r|f|d|t|x|m)([0-9]+)(?::([0-9]+))?", move):
        if int(m[1]) not in visible or (m[2] is not None and int(m[2]) not in visible):
            return None
    return move


# -- jobs ------------------------------------------------------------------------------------------------

@dataclass
class Job:
    """A search running in the pool for one game: an AI move or an analysis."""

    kind: str                      # "ai" or "analysis"
    version: int                   # the game's version when it started
    seat: int
    spec: str
    budget: dict
    started: float = field(default_factory=time.monotonic)
    cancelled: threading.Event = field(default_factory=threading.Event)
    progress: Any = None
    result: Any = None
    error: str | None = None
    done: bool = False
    future: Future | None = None

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def check(self) -> None:
        if self.cancelled.is_set():
            raise _Cancelled


@dataclass
class LogEntry:
    seat: int
    move: str
    description: str
    by: str                        # "human" or "ai"
    figures: str | None = None     # for an AI move: its search figures

    def to_json(self, number: int) -> dict:
        return {"n": number, "seat": self.seat, "player": player_name(self.seat), "move": self.move,
                "description": self.description, "by": self.by, "figures": self.figures}


class WebGame:
    """One game: the true state, the seats' roles, the log, and the searches running for it. An
    `mcts` AI seat searches through `analysis` (which reports progress); other AI seats get a fresh
    bot from their spec for every move."""

    def __init__(self, manager: "GameManager", gid: str, state: State, seed: int, specs: list[str],
                 hint_spec: str | None = None, start: str | None = None):
        self.manager = manager
        self.id = gid
        self.lock = threading.RLock()
        self.state = state
        self.seed = seed
        self.specs = list(specs)
        self.humans = {s for s, spec in enumerate(specs) if spec == "human"}
        self.hint_spec = hint_spec or self._default_hint_spec()
        self.start = start or self._start_position()
        self.version = 0
        self.log: list[LogEntry] = []
        self.ai_job: Job | None = None
        self.ai_error: str | None = None
        self.analysis_job: Job | None = None
        self.touched = time.monotonic()

    # -- setup -------------------------------------------------------------------------------------

    def _default_hint_spec(self) -> str:
        for spec in self.specs:
            if spec != "human" and spec.startswith("mcts"):
                return spec
        return HINT_FALLBACK_SPEC

    def _start_position(self) -> str:
        first = self.state.copy()
        while first.move_stack:
            first.pop()
        return first.position()

    def seat_seed(self, seat: int) -> int:
        return (self.seed + 7919 * seat) % 2 ** 64

    def close(self) -> None:
        with self.lock:
            self._cancel_jobs()

    # -- reading -----------------------------------------------------------------------------------

    def viewer(self, seat: int | None = None) -> int:
        """The seat whose view the page shows: the one asked for (a human seat), else the human
        seat to move, else the lowest human seat."""
        if seat is not None:
            if not 0 <= seat < self.state.players:
                raise ApiError(422, f"seat: expected a seat 0-{self.state.players - 1}, got {seat}", "seat")
            if seat not in self.humans:
                raise ApiError(403, f"seat {seat} is an AI seat: its view (its hidden cards) is not shown",
                               "seat")
            return seat
        st = self.state
        if st.to_move in self.humans and not st.is_over():
            return st.to_move
        return min(self.humans)

    def to_json(self, seat: int | None = None) -> dict:
        with self.lock:
            self.touched = time.monotonic()
            viewer = self.viewer(seat)
            st = self.state
            view = st.view(viewer)
            out = {"gameId": self.id, "version": self.version, "seed": self.seed,
                   "seatsSetup": [{"seat": s, "name": player_name(s), "kind": "human" if spec == "human" else "ai",
                                   "spec": spec} for s, spec in enumerate(self.specs)],
                   "hintSpec": self.hint_spec, **board_json(view)}
            human_turn = st.to_move in self.humans and not st.is_over()
            out["yourTurn"] = human_turn and st.to_move == viewer
            out["legalMoves"] = ([{"move": str(m), "description": view.describe(m)} for m in view.legal_moves]
                                 if out["yourTurn"] else [])
            out["thinking"] = self._thinking_json(view) if self.ai_job is not None else None
            out["aiError"] = self.ai_error
            out["log"] = [e.to_json(i + 1) for i, e in enumerate(self.log)]
            out["canUndo"] = self._undo_count() > 0
            out["moveCount"] = len(self.log)
            return out

    def _thinking_json(self, view: View) -> dict:
        job = self.ai_job
        out = {"seat": job.seat, "player": player_name(job.seat), "spec": job.spec, "budget": job.budget,
               "elapsed": round(job.elapsed(), 3), "iterations": None, "winrate": None, "top": []}
        p = job.progress
        if p is not None:
            visible = _visible_cards(view)
            out["iterations"] = p.iterations
            out["winrate"] = None if p.winrate is None else round(p.winrate, 4)
            for m in p.moves[:3]:
                shown = _mask_move(m.move, visible)
                out["top"].append({"move": shown, "visits": m.visits,
                                   "winrate": None if m.winrate is None else round(m.winrate, 4),
                                   "description": m.description if shown else "a move with a card hidden from you"})
        return out

    # -- changing ----------------------------------------------------------------------------------

    def _check_version(self, version: int | None) -> None:
        if version is not None and version != self.version:
            raise ApiError(409, f"version: the game has changed (version {self.version}, the request was made "
                           f"at version {version}); reload it", "version")

    def play(self, text: str, version: int | None = None) -> dict:
        """A human seat plays `text` (notation). Refused (and nothing changes) unless a human seat is
        to move and the move is legal."""
        if not isinstance(text, str):
            raise ApiError(422, f"move: expected a move string, got {text!r}", "move")
        with self.lock:
            self._check_version(version)
            st = self.state
            if st.is_over():
                raise ApiError(409, "the game is over: no more moves (undo, replay or start a new game)")
            if st.to_move not in self.humans:
                raise ApiError(409, f"it is {player_name(st.to_move)}'s turn, an AI seat: wait for its move")
            try:
                # the mover's view decides (its moves are the true state's: docs/MODULES.md "Refills")
                move = st.view(st.to_move).parse_move(text.strip())
            except NotationError as e:
                raise ApiError(400, f"move: not a move: {e}", "move") from None
            except IllegalMoveError as e:
                raise ApiError(400, f"move: illegal move: {e}", "move") from None
            self._push(move, "human")
            self._after_change()
            return self.to_json()

    def _push(self, move, by: str, figures: str | None = None) -> None:
        st = self.state
        seat = st.to_move
        desc = st.describe(move)
        played = st.push(move)
        self.log.append(LogEntry(seat, str(played), desc, by, figures))
        self.version += 1
        self.ai_error = None

    def _after_change(self) -> None:
        """After any change: stale analyses are dropped and the AI moves if it is its turn."""
        if self.analysis_job is not None and self.analysis_job.version != self.version:
            self.analysis_job.cancelled.set()
        self._maybe_start_ai()

    def _undo_count(self) -> int:
        trial = self.state.copy()
        n = 0
        while trial.move_stack:
            trial.pop()
            n += 1
            if trial.to_move in self.humans:
                return n
        return 0

    def undo(self, version: int | None = None) -> dict:
        """Take back the last human move and the AI replies after it (a running AI search is
        cancelled)."""
        with self.lock:
            self._check_version(version)
            n = self._undo_count()
            if n == 0:
                raise ApiError(409, "nothing to undo: no human move has been played yet")
            self._cancel_jobs()
            for _ in range(n):
                self.state.pop()
                self.log.pop()
            self.version += 1
            self.ai_error = None
            self._after_change()
            return self.to_json()

    def _cancel_jobs(self) -> None:
        for job in (self.ai_job, self.analysis_job):
            if job is not None:
                job.cancelled.set()
        self.ai_job = None

    # -- the AI --------------------------------------------------------------------------------------

    def _maybe_start_ai(self) -> None:
        st = self.state
        if st.is_over() or st.to_move in self.humans or self.ai_job is not None:
            return
        seat = st.to_move
        spec = self.specs[seat]
        from ...players.spec import parse_spec
        _, kwargs = parse_spec(spec)
        budget = {k: kwargs[k] for k in ("iterations", "seconds", "depth") if k in kwargs}
        if spec.startswith("mcts") and not budget:
            budget = {"iterations": 2000}
        job = Job("ai", self.version, seat, spec, budget)
        self.ai_job = job
        view = st.view(seat)
        job.future = self.manager.submit(self._ai_task, job, view)

    def _ai_task(self, job: Job, view: View) -> None:
        from ...analysis import analyse, pct
        try:
            if job.spec.startswith("mcts"):
                def report(a):
                    job.progress = a
                    job.check()
                a = analyse(view, None, top_k=5, spec=job.spec, seed=self.seat_seed(job.seat),
                            progress=report, report_every=REPORT_EVERY)
                job.progress = a
                move = a.best.move
                figures = f"{a.iterations} iterations, {a.seconds:.1f} s"
                if a.best.winrate is not None:
                    figures = f"{pct(a.best.winrate)} win rate for it, " + figures
            else:
                # a fresh bot for every move (a cancelled search may still be running on the old
                # one), seeded by seat and turn so that a game replays the same after an undo
                from ...players import make_player
                from ...players.mcts import derive_seed
                player = make_player(job.spec, seed=derive_seed(self.seat_seed(job.seat), view.turn))
                try:
                    t0 = time.perf_counter()
                    decision = player.choose(view)
                finally:
                    player.close()
                move = str(decision.move)
                figures = f"{time.perf_counter() - t0:.1f} s"
            job.check()
        except _Cancelled:
            return
        except Exception as e:  # a failing bot must not take the server down; the page shows it
            with self.lock:
                if self.ai_job is job:
                    self.ai_job = None
                    self.ai_error = f"{player_name(job.seat)}'s AI failed: {type(e).__name__}: {e}"
            return
        finally:
            job.done = True
        with self.lock:
            if self.ai_job is not job or job.cancelled.is_set() or self.version != job.version:
                return
            self.ai_job = None
            try:
                self._push(move, "ai", figures)
            except SplendorError as e:  # a bug in a bot; do not corrupt the game
                self.ai_error = f"{player_name(job.seat)}'s AI chose an illegal move: {e}"
                return
            self._after_change()

    # -- hints and analysis -----------------------------------------------------------------------------

    def hint_inputs(self, limit, spec: str | None) -> tuple[View, Any, str, int]:
        with self.lock:
            st = self.state
            if st.is_over():
                raise ApiError(409, "the game is over: there is no move to hint")
            if st.to_move not in self.humans:
                raise ApiError(409, f"it is {player_name(st.to_move)}'s turn (an AI seat): a hint is for a human "
                               "seat to move")
            view = st.view(st.to_move)      # the hint searches the human's view only
            return view, limit, spec or self.hint_spec, self.seed

    def start_analysis(self, limit, spec: str | None, top_k: int, seat: int | None = None) -> dict:
        with self.lock:
            st = self.state
            if st.is_over():
                raise ApiError(409, "the game is over: there is no position to analyse")
            viewer = self.viewer(seat)
            view = st.view(viewer)          # searched from the human seat's view only
            if self.analysis_job is not None:
                self.analysis_job.cancelled.set()
            spec = spec or self.hint_spec
            budget = {"iterations": limit.iterations, "seconds": limit.seconds} if limit else {}
            job = Job("analysis", self.version, viewer, spec, {k: v for k, v in budget.items() if v})
            self.analysis_job = job
            job.future = self.manager.submit(self._analysis_task, job, view, limit, top_k)
            return self.analysis_json()

    def _analysis_task(self, job: Job, view: View, limit, top_k: int) -> None:
        from ...analysis import analyse

        def report(a):
            job.progress = a
            job.check()
        try:
            job.result = analyse(view, limit, top_k=top_k, spec=job.spec, seed=self.seed, progress=report,
                                 report_every=REPORT_EVERY)
        except _Cancelled:
            job.error = "cancelled (the game moved on or a new analysis started)"
        except SplendorError as e:
            job.error = str(e)
        except Exception as e:
            job.error = f"internal error: {type(e).__name__}: {e}"
        finally:
            job.done = True

    def analysis_json(self) -> dict:
        with self.lock:
            job = self.analysis_job
            if job is None:
                return {"status": "none"}
            a = job.result or job.progress
            status = "error" if job.error else "done" if job.done else "running"
            out = {"status": status, "version": job.version, "stale": job.version != self.version,
                   "seat": job.seat, "spec": job.spec, "budget": job.budget, "elapsed": round(job.elapsed(), 3),
                   "error": job.error}
            if a is not None:
                out.update(a.to_json())
                out["isDuringSearch"] = status == "running"
            return out

    # -- records and replay ------------------------------------------------------------------------------

    def record(self):
        from ...records import GameRecord
        with self.lock:
            meta = {"event": "splendor serve", "game": self.id}
            if not self.state.is_over():
                meta["termination"] = "saved unfinished"
            return GameRecord.from_state(self.state, seed=self.seed, players=list(self.specs), start=self.start,
                                         meta=meta)

    def replay_json(self, step: int, seat: int | None = None) -> dict:
        """The board after `step` moves, from the viewer's view, with the move played there."""
        with self.lock:
            n = len(self.log)
            if not 0 <= step <= n:
                raise ApiError(422, f"step: expected 0-{n} (the game has {n} moves), got {step}", "step")
            viewer = self.viewer(seat)
            st = self.state.copy()
            for _ in range(n - step):
                st.pop()
            out = {"gameId": self.id, "step": step, "moveCount": n, "replay": True,
                   "seatsSetup": [{"seat": s, "name": player_name(s), "kind": "human" if spec == "human" else "ai",
                                   "spec": spec} for s, spec in enumerate(self.specs)],
                   **board_json(st.view(viewer))}
            out["previous"] = self.log[step - 1].to_json(step) if step else None
            out["next"] = self.log[step].to_json(step + 1) if step < n else None
            return out


class GameManager:
    """All games of one server, by id, and the thread pool their searches run in."""

    def __init__(self, max_games: int = MAX_GAMES, workers: int = 8):
        self.games: dict[str, WebGame] = {}
        self.lock = threading.Lock()
        self.max_games = max_games
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="splendor-search")

    def submit(self, fn: Callable, *args) -> Future:
        return self.executor.submit(fn, *args)

    def get(self, gid: str) -> WebGame:
        with self.lock:
            game = self.games.get(gid)
        if game is None:
            raise ApiError(404, f"no game with id {gid!r} (it may have ended with a server restart)", "gameId")
        return game

    def list_json(self) -> list[dict]:
        with self.lock:
            games = list(self.games.values())
        out = []
        for g in games:
            with g.lock:
                st = g.state
                out.append({"gameId": g.id, "players": st.players, "module": st.module, "turn": st.turn,
                            "over": st.is_over(),
                            "toMove": st.to_move, "seats": list(g.specs)})
        return out

    def _add(self, game: WebGame) -> WebGame:
        with self.lock:
            if len(self.games) >= self.max_games:
                idle = [g for g in self.games.values() if g.ai_job is None and
                        (g.analysis_job is None or g.analysis_job.done)]
                if not idle:
                    raise ApiError(503, f"too many games at once ({self.max_games}), all busy: try again later")
                oldest = min(idle, key=lambda g: g.touched)
                del self.games[oldest.id]
                oldest.close()
            self.games[game.id] = game
        with game.lock:
            game._maybe_start_ai()
        return game

    def _new_id(self) -> str:
        while True:
            gid = secrets.token_hex(6)
            if gid not in self.games:
                return gid

    def create(self, players: int = 2, seats: list[str] | None = None, seed: int | None = None,
               first_player: int = 0, hint_spec: str | None = None, module: str | None = None) -> WebGame:
        if not isinstance(players, int) or isinstance(players, bool) or players not in (2, 3, 4):
            raise ApiError(422, f"players: expected 2, 3 or 4, got {players!r}", "players")
        if seats is None:
            seats = ["human"] + [DEFAULT_AI] * (players - 1)
        if not isinstance(seats, list) or len(seats) != players:
            raise ApiError(422, f"seats: expected {players} entries ('human' or an AI spec), one per seat", "seats")
        specs = []
        for i, s in enumerate(seats):
            if isinstance(s, str) and s.strip().lower() == "human":
                specs.append("human")
            else:
                specs.append(check_ai_spec(s, f"seats[{i}]"))
        if "human" not in specs:
            raise ApiError(422, "seats: at least one seat must be 'human' (the page shows a human seat's view)",
                           "seats")
        if seed is None:
            seed = random.SystemRandom().randrange(2 ** 32)
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2 ** 64:
            raise ApiError(422, f"seed: expected an integer in [0, 2**64), got {seed!r}", "seed")
        if not isinstance(first_player, int) or isinstance(first_player, bool) or not 0 <= first_player < players:
            raise ApiError(422, f"firstPlayer: expected a seat 0-{players - 1}, got {first_player!r}", "firstPlayer")
        if hint_spec is not None:
            hint_spec = check_search_spec(hint_spec, "hintSpec")
        if module is not None and module not in MODULES:
            raise ApiError(422, f"module: unknown module {module!r}; the modules are {', '.join(MODULES)} (or null "
                           "for the base game)", "module")
        state = State.new(players, seed=seed, first_player=first_player,
                          config=Config(players=players, modules=(module,) if module else ()))
        return self._add(WebGame(self, self._new_id(), state, seed, specs, hint_spec))

    def import_record(self, text, humans: list[int] | None = None, game: int = 1) -> WebGame:
        """A game from a record (JSON Lines text, or one record as an object): replayed and checked.
        Seats recorded as 'human' are human (or those in `humans`); other seats keep their AI spec
        when this server can run it, else get the default AI."""
        from ...records import GameRecord
        try:
            if isinstance(text, dict):
                records = [GameRecord.from_json(text)]
            elif isinstance(text, str):
                lines = [ln for ln in text.splitlines() if ln.strip()]
                records = []
                for i, line in enumerate(lines, 1):
                    try:
                        records.append(GameRecord.from_line(line))
                    except RecordError as e:
                        raise RecordError(f"line {i}: {e}") from None
            else:
                raise ApiError(422, "record: expected the record file's text or a record object", "record")
            if not records:
                raise RecordError("no game record in the text")
            if not isinstance(game, int) or isinstance(game, bool) or not 1 <= game <= len(records):
                raise ApiError(422, f"game: expected 1-{len(records)}, got {game!r}", "game")
            rec = records[game - 1]
            state = rec.replay()
        except RecordError as e:
            raise ApiError(400, f"record: {e}", "record") from None
        n = rec.config.players
        if humans is not None:
            if (not isinstance(humans, list) or not humans
                    or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < n for s in humans)):
                raise ApiError(422, f"humans: expected a non-empty list of seats 0-{n - 1}", "humans")
            human_seats = set(humans)
        else:
            human_seats = {s for s, spec in enumerate(rec.players) if spec.strip().lower() == "human"} or {0}
        specs = []
        for s, spec in enumerate(rec.players):
            if s in human_seats:
                specs.append("human")
                continue
            try:
                specs.append(check_ai_spec(spec))
            except ApiError:
                specs.append(DEFAULT_AI)
        seed = rec.seed if rec.seed is not None else 0
        g = WebGame(self, self._new_id(), state, seed, specs, start=rec.start)
        # the log: every move described in the position it was played in
        st = State(rec.start)
        for text_move in rec.moves:
            seat = st.to_move
            desc = st.describe(text_move)
            st.push(text_move)
            g.log.append(LogEntry(seat, text_move, desc, "human" if seat in human_seats else "ai"))
        return self._add(g)

    def delete(self, gid: str) -> None:
        with self.lock:
            game = self.games.pop(gid, None)
        if game is None:
            raise ApiError(404, f"no game with id {gid!r}", "gameId")
        game.close()

    def shutdown(self) -> None:
        with self.lock:
            games = list(self.games.values())
        for g in games:
            g.close()
        self.executor.shutdown(wait=False, cancel_futures=True)


def hint_json(view: View, limit, spec: str, seed: int) -> dict:
    """Run a hint search (in a pool thread) on a human seat's view."""
    from ...analysis import hint
    try:
        h = hint(view, limit, spec=spec, seed=seed, top_k=5)
    except SplendorError as e:
        raise ApiError(409, f"hint: {e}") from None
    return h.to_json()
