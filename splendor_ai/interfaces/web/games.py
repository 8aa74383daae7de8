"""The games the web UI serves: each one a true `State` held by the server, shown through one seat's `View`.

This module knows nothing about HTTP: `splendor_ai.interfaces.web.app` maps requests onto it and turns
`ApiError` into JSON error responses. Every game has its own lock; a request checks everything
before it changes anything, so a bad request leaves the game exactly as it was.

Who sees what (docs/WEB.md, "Hidden information"):
- Every game belongs to one client (a browser, known by an unguessable token in a cookie); only
  that client can see, play, hint or delete it, and `GET /api/games` lists only its games. Game ids
  are unguessable too. A game also has a spectator id: its page shows public information only.
- A *closed* game (the default) never sends anything from which a hidden card follows: no deal
  seed, no true position, no record (it holds the deck order), no search seed. The rules the project
  follows (docs/RULES.md, "Hidden information") keep the decks' order and the cards reserved
  blind hidden from the other players for the whole game and say nothing of showing them at its
  end, so a closed game keeps them hidden after it ends too. The AI's search seeds come from a
  secret of the server, never from the deal seed. After an undo the decks' unseen cards are
  shuffled again, so that a card seen and taken back tells nothing about the next draw.
- An *open* game (created as one, or uploaded as a record, whose owner has the whole deal) shows
  everything: seed, true position, every reserved card, the record.

AI moves, hints and analyses are `scheduler.Task`s: they run in time slices on the scheduler's
workers, shared fairly between clients, within limits on count and memory.
"""
from __future__ import annotations

import math
import os
import random
import secrets
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, AbstractSet, Any

from ...cards import CARDS, CITIES, COLOURS, LETTERS, NOBLES, POSTS
from ...errors import ConfigError, IllegalMoveError, NotationError, RecordError, SplendorError
from ...state import MODULES, Config, State, View
from ...players.spec import DEFAULT_AI
from ...validate import check_int, int_in, ints_in
from .scheduler import Busy, Cancelled, Scheduler, Task

if TYPE_CHECKING:
    from ...analysis import _Search

HINT_FALLBACK_SPEC = "mcts(seconds=1)"
AI_NAMES = ("random", "greedy", "mcts", "expectimax")
MAX_SECONDS = 30.0              # a cap on any search the server runs for one request or AI move
MAX_ITERATIONS = 2_000_000
MAX_WORKERS = max(1, min(4, os.cpu_count() or 1))   # threads of one search: no more than the cores
MAX_DEPTH = 4
MAX_SEARCH_NODES = 2_000_000    # tree nodes of one search (about 650 MB): a 10 s search fits
MAX_TREE_NODES = 4_000_000      # tree nodes an AI seat keeps from move to move (one search adds at most the above)
NODES_PER_SECOND = 250_000      # per search thread, to reserve memory for a search limited by time
MAX_GAMES = 200                 # games on the server
MAX_GAMES_PER_CLIENT = 30       # games of one browser (beyond: its least recently used idle one closes)
IDLE_SECONDS = 2 * 3600         # a game nobody looked at for this long is closed
TREES_KEPT_SECONDS = 600        # ... and its AI players' search trees are dropped after this long
TOMBSTONES = 2000               # closed games remembered, to say why they are gone
#: this server's caps, tighter than the table of bounds (players/bounds.py) that every entry point checks
SERVER_CAPS = {"seconds": MAX_SECONDS, "iterations": MAX_ITERATIONS, "workers": MAX_WORKERS, "depth": MAX_DEPTH}
REPORT_EVERY = 0.2              # seconds between progress reports of a search
DEFAULT_HINT_LIMIT = {"seconds": 1.0}
DEFAULT_ANALYSIS_LIMIT = {"seconds": 2.0}
DEFAULT_GRAPH_LIMIT = {"iterations": 3000}   # each position of the live win-rate graph
MAX_GRAPH_SECONDS = 2.0
DEFAULT_REVIEW_LIMIT = {"iterations": 4000}  # each move of a review
MAX_REVIEW_SECONDS = 2.0
_REVIEW_SALT = 0x72657669
_HINT_SALT = 0x68696E74         # keeps the hint searches' seeds apart from the AI seats'


class ApiError(Exception):
    """A request the server refuses: HTTP status, a one-line message naming the problem, and the
    request field at fault when there is one."""

    def __init__(self, status: int, message: str, field: str | None = None, retry_after: int | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field
        self.retry_after = retry_after

    def to_json(self) -> dict:
        out: dict[str, Any] = {"error": self.message, "status": self.status}
        if self.field is not None:
            out["field"] = self.field
        return out

    @classmethod
    def busy(cls, e: Busy) -> "ApiError":
        return cls(503, e.message, retry_after=e.retry_after)


def unprocessable(message: str) -> ApiError:
    """A 422 ApiError (its field is set by the checks of splendor_ai.validate)."""
    return ApiError(422, message)


def player_name(seat: int) -> str:
    return f"Player {seat + 1}"


def derive_seed(seed: int, *parts: int) -> int:
    from ...players.mcts import derive_seed as _derive
    return _derive(seed, *parts)


# -- checking inputs ---------------------------------------------------------------------------------

def _trial_view(players: int = 2, module: str | None = None) -> View:
    cfg = Config(players=players, modules=(module,) if module else ())
    return State.new(players, seed=0, config=cfg).view(0)


def check_ai_spec(spec: str, field: str = "seats", players: int = 2, module: str | None = None) -> str:
    """A usable AI spec (a hidden-information player within the server's caps), stripped. The
    player is built and, for a search, runs one iteration on a start position of the game, so a
    spec that would fail inside the search is refused here, never in the middle of a game."""
    from ...analysis import _make_search_player
    from ...players import Limit, make_player
    from ...players.bounds import short
    from ...players.spec import check_spec
    if not isinstance(spec, str) or not spec.strip():
        raise ApiError(422, f"{field}: expected 'human' or an AI spec such as {DEFAULT_AI!r}", field)
    if len(spec) > 200:
        raise ApiError(422, f"{field}: a player spec is at most 200 characters, got {len(spec)}", field)
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
            player = _make_search_player(spec, 0)     # refuses mode='perfect' (it would see hidden cards)
            try:
                search = player.new_search(_trial_view(players, module), Limit(iterations=1))
                search.run()
            finally:
                player.close()
        else:
            player = make_player(spec, 0)
            perfect = getattr(player, "perfect_information", False)
            player.close()
            if perfect:
                raise ConfigError(f"spec {short(spec)}: a perfect-information player would see hidden cards")
    except ConfigError as e:
        raise ApiError(422, f"{field}: {e}", field) from None
    except (TypeError, ValueError, OverflowError, MemoryError) as e:
        text = str(e)
        raise ApiError(422, f"{field}: this server cannot run {name}(...) with these settings: "
                       f"{text[:160]}", field) from None
    return spec


def check_search_spec(spec: str, field: str = "spec", players: int = 2, module: str | None = None) -> str:
    spec = check_ai_spec(spec, field, players, module)
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


# -- search memory -------------------------------------------------------------------------------------

def search_nodes(player, limit=None) -> int:
    """The most tree nodes a search of `player` under `limit` may use on this server: its
    iterations (a node per iteration), or its seconds at `NODES_PER_SECOND` per thread, within
    `MAX_SEARCH_NODES` and the player's own `max_nodes`. The search is then built with that cap,
    so the reservation is an upper bound."""
    from ...players.mcts import MCTSPlayer
    if not isinstance(player, MCTSPlayer):
        return 0
    it = limit.iterations if limit and limit.iterations else (player.iterations if not (limit and limit.seconds) else None)
    sec = limit.seconds if limit and limit.seconds else (player.seconds if not (limit and limit.iterations) else None)
    bounds = [MAX_SEARCH_NODES, player.max_nodes * player.workers]
    if it:
        bounds.append(it + 1000 * player.workers)
    if sec:
        bounds.append(int(sec * NODES_PER_SECOND * player.workers) + 1000)
    return int(min(bounds))


def cap_ai_player(player) -> None:
    """An AI seat's player keeps its search tree from move to move and searches on in the part
    still in play, so its tree may outgrow one search: it is capped at `MAX_TREE_NODES` (a cap that
    a game's searches of the usual budgets never reach, so the player plays as it does in a
    tournament). A player that keeps no tree gets its search's cap (`search_nodes`)."""
    from ...players.mcts import MCTSPlayer
    if isinstance(player, MCTSPlayer):
        if player.reuse:
            player.max_nodes = min(player.max_nodes, MAX_TREE_NODES)
        else:
            cap_nodes(player, search_nodes(player))


def ai_nodes(player) -> int:
    """What an AI move reserves: the tree the player kept from its last move and the nodes its
    search may add, within the player's cap."""
    from ...players.mcts import MCTSPlayer
    if not isinstance(player, MCTSPlayer):
        return 0
    tree = getattr(player, "_tree", None)
    kept = tree.nodes_used if tree is not None else 0
    return min(kept + search_nodes(player), player.max_nodes * player.workers)


def cap_nodes(player, nodes: int) -> None:
    """Build the player's searches with at most `nodes` tree nodes in all."""
    if nodes:
        player.max_nodes = max(1000, math.ceil(nodes / player.workers))


def _with_max_nodes(spec: str, nodes: int) -> str:
    """`spec` with max_nodes capped at `nodes` per search thread."""
    from ...players.spec import parse_spec
    name, kwargs = parse_spec(spec)
    workers = kwargs.get("workers", 1)
    kwargs["max_nodes"] = min(kwargs.get("max_nodes", nodes), max(1000, math.ceil(nodes / workers)))
    return f"{name}({', '.join(f'{k}={v!r}' for k, v in kwargs.items())})"


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


def board_json(view: View | State) -> dict:
    """Everything `view.seat` sees (of a State, an open game: everything), as JSON: the bank, the
    market, deck sizes, nobles and each seat's holdings (blind reserves of other seats as hidden
    cards, `card: null`), and the module's elements (docs/WEB.md)."""
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
        "players": view.players, "module": module, "viewer": getattr(view, "seat", None), "toMove": view.to_move, "turn": view.turn,
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


def pop_turn(st: State) -> None:
    """Take back the last entry of `st`'s move stack: a whole turn, or the first step of a two-step
    turn under way (docs/RULES.md). A finished two-step turn is one entry; popping it once leaves
    its first step on the board, so that step goes too. The web's log has one entry per entry of
    the stack."""
    was_partial = st.partial_move is not None
    st.pop()
    if not was_partial and st.partial_move is not None:
        st.pop()


def public_view(state: State) -> View:
    """What everyone sees (a spectator): the market, the bank, every seat's public holdings; the
    decks' order and every blind reserve hidden, whoever holds it."""
    from ... import position as pos
    d = pos.from_text(state.view(0).position())
    for s in d["seats"]:
        s["reserved"] = [(None, deck) if deck is not None else (card, deck) for card, deck in s["reserved"]]
    return View.from_position(pos.to_text(d), seat=0)


def redeal_unseen(record, rng: random.Random, vary: AbstractSet[int] = frozenset()) -> State:
    """The game of `record` played again from a start whose decks keep, in order, every card that
    left them during the game, and hold the cards that never left in a new random order. The cards
    in `vary` (cards that left the decks unseen by some seat: reserved blind) are exchanged for
    random cards that never left their deck. Every seat that did not see a varied card sees the
    same game as before. Used after an undo (the decks' unseen order is dealt again) and by the
    tests that compare twin games."""
    from ...records import GameRecord  # noqa: F401  (the record's type)
    start = State(record.start).to_json()
    decks = [list(d["cards"]) for d in start["decks"]]
    drawn: list[list[int]] = [[] for _ in decks]
    deck_of = {c: i for i, d in enumerate(decks) for c in d}
    for cards in record.revealed:
        for c in cards:
            drawn[deck_of[c]].append(c)
    for i, deck in enumerate(decks):
        k = len(drawn[i])
        assert deck[:k] == drawn[i], "a deck is drawn from the top"
        rest = deck[k:]
        rng.shuffle(rest)
        new_top = []
        for c in drawn[i]:
            if c in vary and rest:
                j = rng.randrange(len(rest))
                c, rest[j] = rest[j], c
            new_top.append(c)
        rng.shuffle(rest)
        decks[i] = new_top + rest
    for d, cards in zip(start["decks"], decks):
        d["cards"] = cards
    st = State.from_json(start)
    for m in record.moves:
        st.push(m)
    return st



# -- searches --------------------------------------------------------------------------------------------

def _task_error(future, cancelled: str, cut: int | None = None) -> str | None:
    """What a finished background search's failure tells the page: `cancelled` when it was
    cancelled, a SplendorError's message (its first `cut` characters), else only the kind of an
    internal error; None while it runs or when it succeeded."""
    if not future.done() or future.exception() is None:
        return None
    e = future.exception()
    if isinstance(e, Cancelled):
        return cancelled
    if isinstance(e, SplendorError):
        return str(e)[:cut]
    return f"internal error: {type(e).__name__}"


class AiTask(Task):
    """An AI seat's move, played by the game's `GameSession` with the seat's own player (kept
    across moves, so its search tree is reused: the player a tournament measures). The session's
    `ai_move` runs in a thread of its own; each progress report of its search (every slice) waits
    there for the scheduler's next slice, so the search takes its turns with the other clients'
    like any task. Its progress is shown masked: how long and how far it searched and its overall
    win estimate, never its candidate moves."""

    kind = "ai"

    def __init__(self, client: str, game: "WebGame", version: int, seat: int):
        self.game, self.version, self.seat = game, version, seat
        player = game.session.player(seat)
        self.spec = player.spec
        from ...players.mcts import MCTSPlayer
        mcts = isinstance(player, MCTSPlayer)
        super().__init__(client, ai_nodes(player))
        self.budget = ({"iterations": player.iterations} if mcts and player.iterations
                       else {"seconds": player.seconds} if mcts and player.seconds
                       else {"depth": player.depth} if getattr(player, "depth", None) else {})
        self.iterations = 0
        self.winrate: float | None = None
        self.searched = 0.0
        self.thread: threading.Thread | None = None
        self._go = threading.Event()
        self._paused = threading.Event()
        self._finished = False
        self._error: BaseException | None = None

    def step(self, seconds: float) -> bool:
        if self.thread is None:
            self.thread = threading.Thread(target=self._run, args=(seconds,), name="splendor-ai", daemon=True)
            self.thread.start()
        else:
            self._go.set()
        self._paused.wait()                     # the search reported (its slice is over) or ended
        self._paused.clear()
        if self._error is not None:
            raise self._error
        return self._finished

    def _progress(self, thinking) -> None:
        info = thinking.info
        self.iterations, self.searched = info.iterations, info.seconds
        seen = [(m.visits, m.value) for m in info.moves if m.visits and m.value == m.value]
        total = sum(v for v, _ in seen)
        self.winrate = round(sum(v * x for v, x in seen) / total, 4) if total else None
        self._go.clear()
        self._paused.set()
        self._go.wait()                         # until the scheduler gives this search its next slice

    def _run(self, seconds: float) -> None:
        try:
            self.result = self.game.session.ai_move(progress=self._progress, report_every=seconds,
                                                    cancel=self.cancelled.is_set)
        except BaseException as e:              # reported through the task's future
            self._error = e
        finally:
            self._finished = True
            self._paused.set()

    def cancel(self) -> None:
        super().cancel()
        self._go.set()                          # a search waiting for its slice stops at once

    def close(self) -> None:
        self.cancel()

    def progress(self) -> float:
        b = self.budget
        if b.get("iterations"):
            return min(1.0, self.iterations / b["iterations"])
        if b.get("seconds"):
            return min(1.0, self.searched / b["seconds"])
        return 0.0


class SearchTask(Task):
    """A hint or an analysis: the analysis search (`splendor_ai.analysis`) of one human seat's view,
    in slices, with a progress report about every REPORT_EVERY seconds of search."""

    def __init__(self, client: str, kind: str, view: View, spec: str, seed: int, limit, top_k: int,
                 version: int):
        from ...analysis import _make_search_player
        self.kind, self.view, self.spec, self.seed, self.limit, self.top_k = kind, view, spec, seed, limit, top_k
        self.version = version
        self.step_no: int | None = None    # an analysis of a replayed position: the moves before it
        probe = _make_search_player(spec, 0)
        try:
            nodes = search_nodes(probe, limit)
        finally:
            probe.close()
        super().__init__(client, nodes, urgent=True)
        self.budget = {k: v for k, v in (("iterations", limit.iterations if limit else None),
                                         ("seconds", limit.seconds if limit else None)) if v}
        self.s: _Search | None = None
        self.progress_analysis = None
        self._reported = 0.0

    def step(self, seconds: float) -> bool:
        from ...analysis import _Search
        if self.s is None:
            self.s = _Search(self.view, _with_max_nodes(self.spec, self.nodes), self.seed, self.limit)
        search = self.s.search
        search.run(seconds)
        if search.done():
            self.result = self._public(self.s._collect(self.top_k, done=True))
            return True
        if search.elapsed - self._reported >= REPORT_EVERY:
            self._reported = search.elapsed
            self.progress_analysis = self._public(self.s._collect(self.top_k, done=False))
        return False

    def _public(self, a):
        return replace(a, spec=self.spec)

    def close(self) -> None:
        if self.s is not None:
            self.s.player.close()


class GraphTask(Task):
    """The win-rate graph of a live game from one human seat's own view: an analysis of that seat's
    view before each move (`plies`, in order), one after the other, each reporting the seat's
    expected result to `store(ply, winrate)`."""

    kind = "graph"

    def __init__(self, client: str, plies: list[tuple[int, View]], spec: str, seeds: list[int], limit,
                 store):
        from ...analysis import _make_search_player
        self.plies, self.spec, self.seeds, self.limit, self.store = list(plies), spec, list(seeds), limit, store
        probe = _make_search_player(spec, 0)
        try:
            nodes = search_nodes(probe, limit)
        finally:
            probe.close()
        super().__init__(client, nodes)
        self.s: _Search | None = None

    def step(self, seconds: float) -> bool:
        from ...analysis import _Search
        if self.s is None:
            ply, view = self.plies[0]
            self.s = _Search(view, _with_max_nodes(self.spec, self.nodes), self.seeds[0], self.limit)
        search = self.s.search
        search.run(seconds)
        if not search.done():
            return False
        ply, view = self.plies.pop(0)
        self.seeds.pop(0)
        _, seat_wr = search.root_summary()
        wr = seat_wr[view.seat]
        self.s.player.close()
        self.s = None
        self.store(ply, None if wr != wr else round(wr, 4))
        return not self.plies

    def close(self) -> None:
        if self.s is not None:
            self.s.player.close()


class ReviewTask(Task):
    """The review of a game (`splendor_ai.review`): one move of the chosen seats per step, each
    rated from its mover's own view, reported to `store(turn_review)` as it finishes."""

    kind = "review"

    def __init__(self, client: str, record, seats: list[int], spec: str, limit, seed: int, version: int, store):
        from ...analysis import _make_search_player
        from ...review import review_stream
        probe = _make_search_player(spec, 0)
        try:
            nodes = int(search_nodes(probe, limit) * 1.15)      # the played move's forced search too
        finally:
            probe.close()
        super().__init__(client, nodes)
        self.version, self.seats, self.spec, self.limit, self.seed = version, seats, spec, limit, seed
        self.stream = review_stream(record, limit, spec=_with_max_nodes(spec, nodes), seats=seats, seed=seed)
        self.store = store

    def step(self, seconds: float) -> bool:
        try:
            turn = next(self.stream)
        except StopIteration:
            return True
        self.store(self, turn)
        return False

    def close(self) -> None:
        close = getattr(self.stream, "close", None)     # a generator: stops the review's search
        if close is not None:
            close()


def analysis_json(a) -> dict:
    """An Analysis as the page gets it: the engine's format without the search seed (a seed of the
    server's secret is never sent)."""
    out = a.to_json()
    out["rootInfo"].pop("seed", None)
    return out


def hint_json(a) -> dict:
    from ...analysis import Hint, _reason
    best = a.moves[0]
    runner = a.moves[1] if len(a.moves) > 1 else None
    h = Hint(best.move, best.description, _reason(a, best, runner), runner, a).to_json()
    h["rootInfo"].pop("seed", None)
    return h


# -- the log ------------------------------------------------------------------------------------------

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


def _seats_setup(specs: list[str]) -> list[dict]:
    return [{"seat": s, "name": player_name(s), "kind": "human" if spec == "human" else "ai", "spec": spec}
            for s, spec in enumerate(specs)]


class WebGame:
    """One game: its `GameSession` (the true state, the seats, the AI players kept across moves,
    undo, records), the log as the page shows it, and the searches running for it.

    Locks: `lock` guards the web's side of the game; the session has its own. `lock` is taken
    before the session's, never while waiting on a search (an undo asks the session to stop its
    search outside `lock`)."""

    def __init__(self, manager: "GameManager", gid: str, client: str, state: State, seed: int | None,
                 specs: list[str], hint_spec: str | None = None, start: str | None = None,
                 open_game: bool = False, secret: int | None = None):
        self.manager = manager
        self.id = gid
        self.watch_id = secrets.token_urlsafe(12)
        self.client = client
        self.lock = threading.RLock()
        self.seed = seed
        self.open = open_game
        # the AI's and the hints' search seeds: from the deal seed only where the deal is public
        self.secret = (secret if secret is not None else seed if open_game and seed is not None
                       else secrets.randbits(64))
        self.specs = list(specs)
        self.humans = {s for s, spec in enumerate(specs) if spec == "human"}
        self.hint_spec = hint_spec or self._default_hint_spec()
        self.start = start or self._start_position(state)
        self.first_player = State(self.start).to_json()["first_player"]
        self.session = self._session(state, self._players())
        self.trees_dropped = False
        self.version = 0
        self.log: list[LogEntry] = []
        self.ai_task: AiTask | None = None
        self.ai_error: str | None = None
        self.ai_waiting: str | None = None     # why the AI's search is not running yet (server busy)
        self.analysis_task: SearchTask | None = None
        self.analysis_error: str | None = None
        self.graph_on = False                 # the live win-rate graph of a human seat's own view
        self.graph_seat: int | None = None
        self.graph_limit = None
        self.graph_points: dict[int, float | None] = {}
        self.graph_task: GraphTask | None = None
        self.review_task: ReviewTask | None = None
        self.review_turns: list = []
        self.review_total = 0
        self.touched = time.monotonic()

    # -- setup -------------------------------------------------------------------------------------

    def _default_hint_spec(self) -> str:
        for spec in self.specs:
            if spec != "human" and spec.startswith("mcts"):
                return spec
        return HINT_FALLBACK_SPEC

    @staticmethod
    def _start_position(state: State) -> str:
        first = state.copy()
        while first.move_stack:
            first.pop()
        return first.position()

    def seat_seed(self, seat: int) -> int:
        """The seed of the AI player in `seat`: the session's formula (`session.seat_seed`) on the
        game's secret, which is the deal seed in an open game (so it plays as `GameSession.new`
        and a tournament's player of that seed do) and a secret in a closed one."""
        from ...session import seat_seed
        return seat_seed(self.secret, seat)

    def _players(self) -> list:
        """The seats for the session: "human", or the AI player of the seat's spec, seeded by
        `seat_seed` and built with the node cap its memory reservation allows."""
        from ...players import make_player
        out: list = []
        for s, spec in enumerate(self.specs):
            if spec == "human":
                out.append("human")
                continue
            player = make_player(spec, seed=self.seat_seed(s))
            cap_ai_player(player)
            out.append(player)
        return out

    def _session(self, state: State, players: list):
        from ...session import GameSession
        return GameSession(state, players, seed=self.seed, start=self.start, hint_spec=self.hint_spec,
                           event="splendor serve")

    def drop_trees(self) -> None:
        with self._locked():
            for s in range(self.state.players):
                p = self.session.player(s)
                if p is not None:
                    p.reset()
            self.trees_dropped = True

    @property
    def state(self) -> State:
        """The true state (the session's): never sent in a closed game."""
        return self.session.state

    @contextmanager
    def _locked(self):
        """`lock`, then the session's: the game as of one moment (the session plays an AI's move
        in the search's thread under its own lock)."""
        with self.lock:
            with self.session.lock:
                yield

    def close(self) -> None:
        with self.lock:
            self._cancel_tasks()
        self.session.close()

    def busy(self) -> bool:
        return (self.ai_task is not None or self.graph_task is not None or self.review_task is not None
                or (self.analysis_task is not None and not self.analysis_task.future.done()))

    # -- reading -----------------------------------------------------------------------------------

    def viewer(self, seat: int | None = None) -> int:
        """The seat whose view the page shows: the one asked for (a human seat), else the human
        seat to move, else the lowest human seat."""
        if seat is not None:
            check_int(seat, "seat", 0, self.state.players - 1, unprocessable,
                      expect=f"a seat 0-{self.state.players - 1}")
            if seat not in self.humans and not self.open:
                raise ApiError(403, f"seat {seat} is an AI seat: its view (its hidden cards) is not shown",
                               "seat")
            return seat
        st = self.state
        if st.to_move in self.humans and not st.is_over():
            return st.to_move
        return min(self.humans)

    def _board(self, st: State, viewer: int | None) -> dict:
        """The board as `viewer` sees it (None: a spectator); an open game shows everything."""
        if self.open:
            out = board_json(st)
        else:
            out = board_json(st.view(viewer) if viewer is not None else public_view(st))
        out["viewer"] = viewer
        return out

    def _common(self) -> dict:
        out = {"gameId": self.id, "version": self.version, "open": self.open, "firstPlayer": self.first_player,
               "seatsSetup": _seats_setup(self.specs)}
        if self.open:
            out["seed"] = self.seed
        return out

    def to_json(self, seat: int | None = None) -> dict:
        with self.lock:
            self._sync()
            self.touched = time.monotonic()
            if self.ai_task is None:
                self._maybe_start_ai()             # an AI move the busy server could not start yet
            self._update_graph()
            viewer = self.viewer(seat)
            st = self.state
            out = {**self._common(), "watchId": self.watch_id, "hintSpec": self.hint_spec,
                   **self._board(st, viewer)}
            if self.open:
                out["truePosition"] = st.position()
            human_turn = st.to_move in self.humans and not st.is_over()
            out["yourTurn"] = human_turn and st.to_move == viewer
            # the first step of a two-step turn under way (docs/RULES.md): the legal moves are the
            # whole turns that complete it
            out["partialMove"] = None if st.partial_move is None else str(st.partial_move)
            view = st.view(viewer)
            out["legalMoves"] = ([{"move": str(m), "description": view.describe(m)} for m in view.legal_moves]
                                 if out["yourTurn"] else [])
            out["thinking"] = self._thinking_json()
            out["aiError"] = self.ai_error
            out["log"] = [e.to_json(i + 1) for i, e in enumerate(self.log)]
            out["canUndo"] = self._undo_count() > 0
            out["moveCount"] = len(self.log)
            out["recordAvailable"] = self.open
            out["graph"] = self._graph_json()
            return out

    def _graph_json(self) -> dict:
        return {"on": self.graph_on, "seat": self.graph_seat,
                "points": [{"ply": k, "winrate": w} for k, w in sorted(self.graph_points.items())],
                "running": self.graph_task is not None}

    def watch_json(self) -> dict:
        """The game as a spectator sees it: public information only."""
        with self._locked():
            self._sync()
            st = self.state
            out = {**self._common(), "spectator": True, **self._board(st, None)}
            del out["gameId"]                     # the owner's id stays with the owner
            out["watchId"] = self.watch_id
            out.update({"yourTurn": False, "legalMoves": [], "thinking": self._thinking_json(),
                        "aiError": self.ai_error, "log": [e.to_json(i + 1) for i, e in enumerate(self.log)],
                        "canUndo": False, "moveCount": len(self.log), "recordAvailable": self.open})
            return out

    def _thinking_json(self) -> dict | None:
        """The AI's search, as the page shows it: time, iterations, budget used and the AI's
        overall win estimate (an aggregate of its own view); never its candidate moves, whose
        figures tell what it can do with cards hidden from the others."""
        task = self.ai_task
        if task is None:
            return None
        queued = task.started is None
        return {"seat": task.seat, "player": player_name(task.seat), "spec": task.spec, "budget": task.budget,
                "elapsed": round(time.monotonic() - task.submitted, 1), "iterations": task.iterations,
                "searched": round(task.searched, 1), "progress": round(task.progress(), 3),
                "winrate": task.winrate, "queued": queued, "waiting": self.ai_waiting}

    # -- changing ----------------------------------------------------------------------------------

    def _check_version(self, version: int | None) -> None:
        if version is not None and version != self.version:
            raise ApiError(409, f"version: this page shows an older state of the game (version {version}; "
                           f"it is now at version {self.version}, changed in another tab or by the AI): "
                           "it has been reloaded, look and play again", "version")

    def _next_ai_check(self, st: State) -> None:
        """Refuse (503) a move after which an AI seat would move while the server cannot take its search."""
        if st.is_over() or st.to_move in self.humans:
            return
        try:
            self.manager.scheduler.check(self.client, ai_nodes(self.session.player(st.to_move)))
        except Busy as e:
            raise ApiError.busy(e) from None

    def play(self, text: str, version: int | None = None) -> dict:
        """A human seat plays `text` (notation). Refused (and nothing changes) unless a human seat is
        to move and the move is legal."""
        if not isinstance(text, str):
            raise ApiError(422, "move: expected a move string", "move")
        if len(text) > 200:
            raise ApiError(400, f"move: not a move ({len(text)} characters)", "move")
        with self._locked():
            self._sync()
            self._check_version(version)
            st = self.state
            if st.is_over():
                raise ApiError(409, "the game is over: no more moves (undo, replay or start a new game)")
            if st.to_move not in self.humans:
                raise ApiError(409, f"it is {player_name(st.to_move)}'s turn, an AI seat: wait for its move")
            try:
                # the mover's view decides (its moves are the true state's: docs/RULES.md "Two-step turns")
                move = st.view(st.to_move).parse_move(text.strip())
            except NotationError as e:
                raise ApiError(400, f"move: not a move: {e}", "move") from None
            except IllegalMoveError as e:
                raise ApiError(400, f"move: illegal move: {e}", "move") from None
            trial = st.copy(stack=False)
            trial.push(move)
            self._next_ai_check(trial)
            seat, completing = st.to_move, st.partial_move is not None
            desc = None if completing else st.describe(move)
            played = self.session.play(move)
            self._log(seat, played, "human", completing, desc)
            self._after_change()
            return self.to_json()

    def _log(self, seat: int, played, by: str, completing: bool, desc: str | None = None,
             figures: str | None = None) -> None:
        """The log after a move the session played. The rest of a two-step turn (docs/RULES.md)
        completes its first step's entry: the log counts whole turns as the state's move stack,
        replays, undo and records do."""
        if completing:
            before = self.state.copy()
            pop_turn(before)
            self.log[-1] = LogEntry(seat, str(played), before.describe(played), by, figures)
        else:
            self.log.append(LogEntry(seat, str(played), desc if desc is not None else str(played), by, figures))
        self.version += 1
        self.ai_error = None
        self.touched = time.monotonic()

    def _after_change(self) -> None:
        """After any change: stale analyses stop and the AI moves if it is its turn."""
        self.trees_dropped = False
        if self.analysis_task is not None and self.analysis_task.version != self.version:
            self.analysis_task.cancel()
        self._maybe_start_ai()
        self._update_graph()

    def _undo_count(self) -> int:
        trial = self.state.copy()
        n = 0
        while trial.move_stack:
            pop_turn(trial)
            n += 1
            if trial.to_move in self.humans:
                return n
        return 0

    def undo(self, version: int | None = None) -> dict:
        """Take back the last human move and the AI replies after it (a running AI search is
        cancelled; the AI players forget their trees). In a closed game the decks' unseen cards are
        then dealt again in a new order: the cards the taken-back moves showed must not tell what
        comes next."""
        from ...session import SessionError
        with self.lock:
            self._sync()
            self._check_version(version)
            if self._undo_count() == 0:
                raise ApiError(409, "nothing to undo: no human move has been played yet")
            self._cancel_tasks()
        try:
            self.session.undo()                  # waits for a cancelled search to stop: outside `lock`
        except SessionError as e:
            raise ApiError(409, f"nothing to undo: {e}") from None
        with self.lock:
            del self.log[len(self.state.move_stack):]
            self.graph_points = {k: w for k, w in self.graph_points.items() if k <= len(self.log)}
            if not self.open:
                players = [self.session.player(s) or "human" for s in range(self.state.players)]
                state = redeal_unseen(self._record(), random.Random(secrets.randbits(64)))
                self.start = self._start_position(state)
                self.session = self._session(state, players)
            self.version += 1
            self.ai_error = None
            self._after_change()
            return self.to_json()

    def _cancel_tasks(self) -> None:
        for task in (self.ai_task, self.analysis_task, self.graph_task, self.review_task):
            if task is not None:
                task.cancel()
        self.ai_task = None
        self.graph_task = None
        self.ai_waiting = None

    # -- the AI --------------------------------------------------------------------------------------

    def _maybe_start_ai(self) -> None:
        st = self.state
        if st.is_over() or st.to_move in self.humans or self.ai_task is not None:
            return
        task = AiTask(self.client, self, self.version, st.to_move)
        try:
            self.manager.scheduler.submit(task)
        except Busy as e:
            self.ai_waiting = f"waiting for the server: {e.message}"
            return
        self.ai_waiting = None
        self.ai_task = task
        task.future.add_done_callback(partial(self._ai_done, task))

    def _ai_done(self, task: AiTask, future) -> None:
        from ...session import PlayerFault
        with self.lock:
            self._sync()
            if self.ai_task is not task:
                return
            self.ai_task = None
            e = future.exception()
            if isinstance(e, PlayerFault):
                self.ai_error = f"{player_name(task.seat)}'s AI failed: {str(e)[:200]}"
            elif e is not None and not isinstance(e, Cancelled):
                self.ai_error = f"{player_name(task.seat)}'s AI failed: {type(e).__name__}: {str(e)[:200]}"
            self._after_change()

    def _sync(self) -> None:
        """Log the AI moves the session has played and the log does not show yet (the session
        plays an AI's move in the search's thread; every read and change of the game calls this
        first, under `lock`, so what is sent is always the log and the board of one moment)."""
        with self.session.lock:             # the session pushes a move and records its turn under it
            missing = len(self.state.move_stack) - len(self.log)
            turns = list(self.session.history[-missing:]) if missing > 0 else []
        if not turns:
            return
        for turn in turns:
            info = turn.info
            if info is not None and info.iterations:
                seen = [(m.visits, m.value) for m in info.moves if m.visits and m.value == m.value]
                total = sum(v for v, _ in seen)
                figures = f"{info.iterations:,} iterations, {info.seconds:.1f} s"
                if total:
                    figures = f"its win estimate {round(100 * sum(v * x for v, x in seen) / total)}%, " + figures
            else:
                figures = f"{turn.seconds or 0:.1f} s"
            self.log.append(LogEntry(turn.seat, turn.move, turn.description, turn.by, figures))
            self.version += 1
        self.ai_task = None
        self.ai_error = None
        self._after_change()

    # -- hints and analysis -----------------------------------------------------------------------------

    def _search_seed(self, view: View) -> int:
        return derive_seed(self.secret, _HINT_SALT, view.turn, view.seat)

    def hint_task(self, limit, spec: str | None) -> SearchTask:
        with self._locked():
            self._sync()
            self.touched = time.monotonic()
            st = self.state
            if st.is_over():
                raise ApiError(409, "the game is over: there is no move to hint")
            if st.to_move not in self.humans:
                raise ApiError(409, f"it is {player_name(st.to_move)}'s turn (an AI seat): a hint is for a human "
                               "seat to move")
            view = st.view(st.to_move)      # the hint searches the human's view only
            task = SearchTask(self.client, "hint", view, spec or self.hint_spec, self._search_seed(view), limit,
                              5, self.version)
            try:
                self.manager.scheduler.submit(task)
            except Busy as e:
                raise ApiError.busy(e) from None
            return task

    def _state_at(self, step: int) -> State:
        """The true state after `step` moves of the game."""
        n = len(self.log)
        if not int_in(step, 0, n):
            raise ApiError(422, f"step: expected 0-{n} (the game has {n} moves)", "step")
        st = self.state.copy()
        for _ in range(n - step):
            pop_turn(st)
        return st

    def start_analysis(self, limit, spec: str | None, top_k: int, seat: int | None = None,
                       step: int | None = None) -> dict:
        """Analyse the position now, or after `step` moves (while replaying), from a human seat's
        view (an open game: from any seat's, by default the seat to move)."""
        with self._locked():
            self._sync()
            self.touched = time.monotonic()
            st = self.state if step is None else self._state_at(step)
            if st.is_over():
                raise ApiError(409, "the game is over there: there is no move to analyse")
            if self.open and seat is None:
                viewer = st.to_move
            elif step is not None and seat is None and st.to_move in self.humans:
                viewer = st.to_move
            else:
                viewer = self.viewer(seat)
            view = st.view(viewer)          # a closed game: searched from a human seat's view only
            task = SearchTask(self.client, "analysis", view, spec or self.hint_spec, self._search_seed(view),
                              limit, top_k, self.version)
            task.step_no = step
            old = self.analysis_task
            if old is not None:
                old.cancel()
            try:
                self.manager.scheduler.submit(task)
            except Busy as e:
                raise ApiError.busy(e) from None
            self.analysis_task = task
            self.analysis_error = None
            return self.analysis_json()

    def analysis_json(self) -> dict:
        with self._locked():
            self._sync()
            task = self.analysis_task
            if task is None:
                return {"status": "none"}
            f = task.future
            error = _task_error(f, "cancelled (the game moved on or a new analysis started)")
            status = "error" if error else "done" if f.done() else "running"
            a = task.result if status == "done" else task.progress_analysis
            out = {"status": status, "version": task.version, "stale": task.version != self.version,
                   "step": task.step_no,
                   "seat": task.view.seat, "spec": task.spec, "budget": task.budget,
                   "elapsed": round(time.monotonic() - task.submitted, 1), "error": error}
            if a is not None:
                out.update(analysis_json(a))
                out["isDuringSearch"] = status == "running"
            return out

    # -- the live win-rate graph -------------------------------------------------------------------------

    def set_graph(self, on: bool, limit=None, seat: int | None = None) -> dict:
        """Turn the live win-rate graph on or off: the chosen human seat's expected result before
        every move, each searched from that seat's own view as it was then."""
        with self._locked():
            self._sync()
            self.touched = time.monotonic()
            if not on:
                if self.graph_task is not None:
                    self.graph_task.cancel()
                self.graph_on, self.graph_task = False, None
                return self._graph_json()
            seat = self.viewer(seat)
            if seat not in self.humans:
                raise ApiError(403, f"seat {seat} is an AI seat: the graph is a human seat's own view", "seat")
            if seat != self.graph_seat or limit != self.graph_limit:
                if self.graph_task is not None:
                    self.graph_task.cancel()
                    self.graph_task = None
                self.graph_points = {}
            self.graph_on, self.graph_seat, self.graph_limit = True, seat, limit
            self._update_graph(raise_busy=True)
            return self._graph_json()

    def _update_graph(self, raise_busy: bool = False) -> None:
        if not self.graph_on or self.graph_task is not None:
            return
        n = len(self.log)
        missing = [k for k in range(n + 1) if k not in self.graph_points]
        if not missing:
            return
        st = self.state.copy()
        views = {}
        for k in range(n, -1, -1):
            if k in missing and not st.is_over():
                views[k] = st.view(self.graph_seat)
            if k:
                pop_turn(st)
        plies = [(k, views[k]) for k in sorted(views)]
        for k in missing:
            if k not in views:
                self.graph_points[k] = None      # the game is over there: no search
        if not plies:
            return
        task = GraphTask(self.client, plies, self.hint_spec, [self._search_seed(v) for _, v in plies],
                         self.graph_limit, self._graph_store)
        try:
            self.manager.scheduler.submit(task)
        except Busy as e:
            task.close()
            if raise_busy:
                raise ApiError.busy(e) from None
            return
        self.graph_task = task
        task.future.add_done_callback(lambda _future: self._graph_done(task))

    def _graph_store(self, ply: int, winrate) -> None:
        with self.lock:
            if self.graph_on and ply <= len(self.log):
                self.graph_points[ply] = winrate

    def _graph_done(self, task: GraphTask) -> None:
        with self.lock:
            if self.graph_task is task:
                self.graph_task = None
                if not task.cancelled.is_set():
                    self._update_graph()

    # -- the review -------------------------------------------------------------------------------------

    def review_seats(self) -> list[int]:
        """The seats a review rates: a closed game's human seats only (each move is rated from its
        mover's view, and an AI seat's view holds its hidden cards); an open game's every seat."""
        return list(range(self.state.players)) if self.open else sorted(self.humans)

    def review_seed(self) -> int:
        """The review's search seed: from the game's secret (a closed game), never sent."""
        return derive_seed(self.secret, _REVIEW_SALT)

    def start_review(self, limit, spec: str | None) -> dict:
        with self._locked():
            self._sync()
            self.touched = time.monotonic()
            if not self.open and not self.state.is_over():
                raise ApiError(409, "the game is not over: a review comes after the end (during the game, the "
                               "win-rate graph follows your own view)")
            if not self.log:
                raise ApiError(409, "no move has been played: there is nothing to review")
            seats = self.review_seats()
            record = self._record()
            total = sum(1 for e in self.log if e.seat in seats)
            task = ReviewTask(self.client, record, seats, spec or self.hint_spec, limit, self.review_seed(),
                              self.version, self._review_store)
            if self.review_task is not None:
                self.review_task.cancel()
            try:
                self.manager.scheduler.submit(task)
            except Busy as e:
                task.close()
                raise ApiError.busy(e) from None
            self.review_task, self.review_turns, self.review_total = task, [], total
            return self.review_json()

    def _review_store(self, task: ReviewTask, turn) -> None:
        with self.lock:
            if self.review_task is task and self.version == task.version:
                self.review_turns.append(turn)

    def review_json(self) -> dict:
        """The review so far: status, how many moves are rated, and the `splendor-review/1` report of
        those (docs/REVIEW.md; no seed of the server's secret)."""
        from ...review import Review, Settings
        with self._locked():
            self._sync()
            task = self.review_task
            if task is None:
                return {"status": "none"}
            f = task.future
            error = _task_error(f, "cancelled (the game changed)", cut=300)
            stale = task.version != self.version
            status = "error" if error else "done" if f.done() else "running"
            rec = self._record()
            rv = Review(rec.config, tuple(rec.players), tuple(rec.moves), rec.result, tuple(task.seats),
                        Settings.make(task.spec, task.limit, task.seed), tuple(self.review_turns))
            report = rv.to_json()
            report["settings"].pop("seed", None)
            return {"status": status, "error": error, "stale": stale, "reviewed": len(self.review_turns),
                    "total": self.review_total, "report": report}

    # -- records and replay ------------------------------------------------------------------------------

    def _record(self):
        from ...records import GameRecord
        meta = {"event": "splendor serve", "game": self.id}
        if not self.state.is_over():
            meta["termination"] = "saved unfinished"
        return GameRecord.from_state(self.state, seed=self.seed, players=list(self.specs), start=self.start,
                                     meta=meta)

    def record(self):
        """The whole record (deck order included): open games only."""
        with self._locked():
            self._sync()
            if not self.open:
                raise ApiError(403, "this game is closed: its record holds the decks' order and the cards "
                               "reserved blind, which the rules keep hidden, so it is never sent (start an "
                               "open game to get a game's record)")
            return self._record()

    def replay_json(self, step: int, seat: int | None = None, spectator: bool = False) -> dict:
        """The board after `step` moves, from the viewer's view, with the move played there."""
        with self._locked():
            self._sync()
            n = len(self.log)
            if not int_in(step, 0, n):
                raise ApiError(422, f"step: expected 0-{n} (the game has {n} moves)", "step")
            viewer = None if spectator else self.viewer(seat)
            st = self.state.copy()
            for _ in range(n - step):
                pop_turn(st)
            out = {("watchId" if spectator else "gameId"): self.watch_id if spectator else self.id, "step": step,
                   "moveCount": n, "replay": True, "seatsSetup": _seats_setup(self.specs), **self._board(st, viewer)}
            out["previous"] = self.log[step - 1].to_json(step) if step else None
            out["next"] = self.log[step].to_json(step + 1) if step < n else None
            return out


class GameManager:
    """All games of one server, by id and by owner, and the scheduler their searches run on."""

    def __init__(self, max_games: int = MAX_GAMES, workers: int | None = None,
                 max_games_per_client: int = MAX_GAMES_PER_CLIENT, idle_seconds: float = IDLE_SECONDS,
                 scheduler: Scheduler | None = None):
        self.games: dict[str, WebGame] = {}
        self.by_watch: dict[str, WebGame] = {}
        self.gone: OrderedDict[str, str] = OrderedDict()   # closed game id -> why
        self.lock = threading.Lock()
        self.max_games = max_games
        self.max_games_per_client = max_games_per_client
        self.idle_seconds = idle_seconds
        self.scheduler = scheduler or Scheduler(workers=workers or max(1, min(4, os.cpu_count() or 1)))

    # -- finding games --------------------------------------------------------------------------------

    def get(self, gid: str, client: str) -> WebGame:
        self.expire()
        with self.lock:
            game = self.games.get(gid)
            why = self.gone.get(gid)
        if game is not None and game.client == client:
            return game
        if why is not None and (game is None):
            raise ApiError(410, why, "gameId")
        # another client's game is answered as unknown: ids say nothing about other browsers' games
        raise ApiError(404, f"no game with id {gid[:40]!r} in this browser (games belong to the browser that "
                       "started them; a server restart ends every game)", "gameId")

    def watch(self, watch_id: str) -> WebGame:
        with self.lock:
            game = self.by_watch.get(watch_id)
        if game is None:
            raise ApiError(404, "no game to watch at this link (it ended with a server restart, or was closed)",
                           "watchId")
        return game

    def list_json(self, client: str) -> list[dict]:
        self.expire()
        with self.lock:
            games = [g for g in self.games.values() if g.client == client]
        out = []
        for g in games:
            with g.lock:
                st = g.state
                out.append({"gameId": g.id, "players": st.players, "module": st.module, "turn": st.turn,
                            "over": st.is_over(), "open": g.open, "toMove": st.to_move, "seats": list(g.specs)})
        return out

    # -- limits ----------------------------------------------------------------------------------------

    def _close(self, game: WebGame, why: str) -> None:
        """Drop `game` (the manager's lock held) and remember why."""
        self.games.pop(game.id, None)
        self.by_watch.pop(game.watch_id, None)
        self.gone[game.id] = why
        while len(self.gone) > TOMBSTONES:
            self.gone.popitem(last=False)
        game.close()

    def expire(self) -> None:
        now = time.monotonic()
        for g in list(self.games.values()):
            # an AI keeps its search tree between its moves; a game left alone a while drops them
            if now - g.touched > TREES_KEPT_SECONDS and not g.busy() and not g.trees_dropped:
                g.drop_trees()
        with self.lock:
            for g in [g for g in self.games.values() if now - g.touched > self.idle_seconds and not g.busy()]:
                self._close(g, f"this game was closed after {self.idle_seconds / 3600:g} hours without a move "
                            "or a look (the server keeps idle games that long): start a new game")

    def _add(self, game: WebGame) -> WebGame:
        self.expire()
        with self.lock:
            mine = [g for g in self.games.values() if g.client == game.client]
            if len(mine) >= self.max_games_per_client:
                idle = [g for g in mine if not g.busy()]
                if not idle:
                    raise ApiError(503, f"this browser has {len(mine)} games with searches running: try again "
                                   "when one has finished", retry_after=5)
                self._close(min(idle, key=lambda g: g.touched),
                            f"this game was closed to make room: a browser keeps at most {self.max_games_per_client} "
                            "games, and this was its least recently used one")
            if len(self.games) >= self.max_games:
                raise ApiError(503, f"the server holds its maximum of {self.max_games} games: try again later "
                               "(idle games close after a while)", retry_after=60)
            self.games[game.id] = game
            self.by_watch[game.watch_id] = game
        with game.lock:
            game._maybe_start_ai()
        return game

    def _new_id(self) -> str:
        while True:
            gid = secrets.token_urlsafe(16)
            if gid not in self.games and gid not in self.gone:
                return gid

    # -- making games ------------------------------------------------------------------------------------

    def create(self, client: str, players: int = 2, seats: list[str] | None = None, seed: int | None = None,
               first_player: int = 0, hint_spec: str | None = None, module: str | None = None,
               open_game: bool = False) -> WebGame:
        check_int(players, "players", 2, 4, unprocessable, expect="2, 3 or 4")
        if module is not None and module not in MODULES:
            raise ApiError(422, f"module: unknown module {str(module)[:40]!r}; the modules are "
                           f"{', '.join(MODULES)} (or null for the base game)", "module")
        if seats is None:
            seats = ["human"] + [DEFAULT_AI] * (players - 1)
        if not isinstance(seats, list) or len(seats) != players:
            raise ApiError(422, f"seats: expected {players} entries ('human' or an AI spec), one per seat", "seats")
        specs = []
        for i, s in enumerate(seats):
            if isinstance(s, str) and s.strip().lower() == "human":
                specs.append("human")
            else:
                specs.append(check_ai_spec(s, f"seats[{i}]", players, module))
        if "human" not in specs:
            raise ApiError(422, "seats: at least one seat must be 'human' (the page shows a human seat's view)",
                           "seats")
        if seed is None:
            from ...session import new_seed
            seed = new_seed()
        if not int_in(seed, 0, 2 ** 64 - 1):
            raise ApiError(422, "seed: expected an integer in [0, 2**64)", "seed")
        check_int(first_player, "firstPlayer", 0, players - 1, unprocessable, expect=f"a seat 0-{players - 1}")
        if hint_spec is not None:
            hint_spec = check_search_spec(hint_spec, "hintSpec", players, module)
        state = State.new(players, seed=seed, first_player=first_player,
                          config=Config(players=players, modules=(module,) if module else ()))
        return self._add(WebGame(self, self._new_id(), client, state, seed, specs, hint_spec,
                                 open_game=bool(open_game)))

    def import_record(self, client: str, text, humans: list[int] | None = None, game: int = 1) -> WebGame:
        """A game from a record (JSON Lines text, or one record as an object): replayed and checked.
        Seats recorded as 'human' are human (or those in `humans`); other seats keep their AI spec
        when this server can run it, else get the default AI. The uploader has the whole deal, so
        the game is open."""
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
            check_int(game, "game", 1, len(records), unprocessable, expect=f"1-{len(records)}")
            rec = records[game - 1]
            state = rec.replay()
        except RecordError as e:
            raise ApiError(400, f"record: {str(e)[:300]}", "record") from None
        n = rec.config.players
        if humans is not None:
            if not ints_in(humans, 0, n - 1) or not humans:
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
                specs.append(check_ai_spec(spec, "record", n, rec.config.module))
            except ApiError:
                specs.append(DEFAULT_AI)
        g = WebGame(self, self._new_id(), client, state, rec.seed, specs, start=rec.start, open_game=True,
                    secret=rec.seed if rec.seed is not None else 0)
        # the log: every move described in the position it was played in
        st = State(rec.start)
        for text_move in rec.moves:
            seat = st.to_move
            desc = st.describe(text_move)
            st.push(text_move)
            g.log.append(LogEntry(seat, text_move, desc, "human" if seat in human_seats else "ai"))
        return self._add(g)

    def adopt(self, client: str, state: State, specs: list[str], by: list[str] | None = None,
              secret: int | None = None, open_game: bool = False, seed: int | None = None) -> WebGame:
        """A game already under way (a State with its move stack) added as it is: for tests that
        build games move by move. `by[i]` says who played move i ("human" or "ai")."""
        first = state.copy()
        while first.move_stack:
            first.pop()
        g = WebGame(self, self._new_id(), client, state.copy(), seed, specs, start=first.position(),
                    open_game=open_game, secret=secret)
        for i, m in enumerate(state.move_stack):
            seat = first.to_move
            desc = first.describe(m)
            first.push(m)
            g.log.append(LogEntry(seat, str(m), desc, by[i] if by else ("human" if seat in g.humans else "ai")))
        return self._add(g)

    def delete(self, gid: str, client: str) -> None:
        game = self.get(gid, client)
        with self.lock:
            self.games.pop(game.id, None)
            self.by_watch.pop(game.watch_id, None)
        game.close()

    def shutdown(self) -> None:
        with self.lock:
            games = list(self.games.values())
        for g in games:
            g.close()
        self.scheduler.shutdown()
