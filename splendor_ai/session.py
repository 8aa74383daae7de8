"""One game loop for every front end: `GameSession` holds a game's true state, who sits in each
seat (a human, or an AI player built from its spec), the moves played, and the AI players
themselves, kept across moves so that their search trees are reused (the player a tournament
measures is the player a human meets). The terminal, the browser, tournaments (through
`match.play_game`) and the engine protocol drive games through it.

    session = GameSession.new(["human", "mcts(seconds=1)"], seed=7)
    session.play("+wbg")                          # the human seat to move plays (notation or Move)
    session.ai_move(progress=show)                # the AI to move thinks (progress reports) and plays
    session.hint()                                # a hint for the human to move, from its view only
    session.undo()                                # back to the last human turn
    session.record()                              # the game record (docs/RECORDS.md)
    session.save("game.jsonl")                    # written atomically; an existing file is refused

What each seat may see: `view(seat)` is what a front end shows; the true state (`state`) never
leaves the session except as a record. AI players get their seat's `View`; a player flagged
`perfect_information` (mcts(mode='perfect'), experiments only) gets the true state and is refused
in a session with a human seat. Hints and analyses search a human seat's view. Progress reports
(`Thinking`) carry what the AI's search of its own view sees: a front end shows a human only what
that human may know (e.g. no move naming a card hidden from it).

Threads: a front end may run `ai_move` in a worker thread while its request threads read the
game (`view`, `to_json`-style reads under `lock`) and call `undo` or `cancel`. The game changes
only under `lock`; `ai_move` searches without it and plays its move only if the game is still
where it was when the search started (an undo meanwhile discards the move). `undo` cancels a
running search and waits for it to stop (an MCTS search stops within `report_every` seconds;
other players finish their move first).

Autosave: with `autosave=PATH`, the record is written to PATH after every move and undo, through
a temporary file renamed over it (a crash leaves the previous version, never half a file).
"""
from __future__ import annotations

import hashlib
import random
import threading
import time
import warnings
from dataclasses import dataclass
from typing import Callable, Sequence

from .errors import ConfigError, IllegalMoveError, SplendorError
from .move import Move
from .players.base import Decision, Limit, Player, SearchCancelled, SearchInfo
from .records import GameRecord, save_record
from .state import Config, State, View

HUMAN = "human"
#: seconds between progress reports of a search (and how soon a cancel is noticed)
REPORT_EVERY = 0.2


def new_seed() -> int:
    """A deal seed nobody has seen: 64 random bits (a 32-bit seed could be found by dealing
    every seed and comparing the market, which would give away the decks)."""
    return random.SystemRandom().randrange(2 ** 64)


class SessionError(SplendorError):
    """A request the game cannot follow now: a move for an AI seat, a hint for an AI seat, an
    undo with no human move to take back, a move after the end."""


class PlayerFault(Exception):
    """An AI player that crashed, chose an illegal move or overran `time_forfeit`: the move is not
    played and the game is unchanged. `kind` is "crash", "illegal move" or "time-out"."""

    def __init__(self, seat: int, kind: str, message: str, seconds: float):
        super().__init__(f"{kind} by seat {seat}: {message}" if kind != "time-out"
                         else f"time-out by seat {seat} {message}")
        self.seat, self.kind, self.message, self.seconds = seat, kind, message, seconds


@dataclass(frozen=True)
class Thinking:
    """A progress report of an AI's search: the seat, its spec, seconds so far, and the search's
    figures so far (`info.moves` ranked best first, from the AI's own view)."""

    seat: int
    spec: str
    elapsed: float
    info: SearchInfo


@dataclass(frozen=True)
class Turn:
    """One move of the game as the session played it."""

    seat: int
    move: str
    by: str                            # "human" or "ai"
    description: str                   # in the mover's view before the move ("" with describe=False)
    seconds: float | None = None       # an AI's thinking time
    info: SearchInfo | None = None     # an AI's search figures


def seat_seed(seed: int | None, seat: int) -> int:
    """The seed of the AI player in `seat` of a game dealt from `seed` (the terminal's and the
    browser's formula since 0.1.0, so their games replay the same)."""
    return ((seed or 0) + 7919 * seat) % 2 ** 64


def _hint_seed(view: View) -> int:
    """The seed of hint and analysis searches: from the position's turn alone, never from the deal
    seed, so that what a hint shows is a function of the seat's view (two games a seat cannot tell
    apart, dealt from other seeds, give the same hints: tests/test_twin_views.py)."""
    return int.from_bytes(hashlib.sha256(f"splendor-hint:{view.turn}".encode()).digest()[:8], "little")


class GameSession:
    """One game. `seats[i]` is "human" or an AI: a spec string (the session builds the player,
    seeded by `seat_seed`) or a `Player` (used as given: tournaments build their own). Prefer
    the constructors `new`, `from_state`, `from_record` and `load`.

    Options: `seed` (the deal seed, for the record; the AI players' seeds derive from it),
    `start` (the true start position; default: under the state's move stack), `hint_spec` (the
    search of hints and analyses; default: the first mcts seat's spec, else the default AI),
    `autosave` (a path written after every change), `event` (the record's meta.event),
    `allow_perfect_information` (experiments without a human seat), `describe` (each Turn gets
    a plain-English description; matches turn it off)."""

    def __init__(self, state: State, seats: Sequence[str | Player], *, seed: int | None = None,
                 start: str | None = None, hint_spec: str | None = None, autosave=None, event: str = "splendor",
                 allow_perfect_information: bool = False, describe: bool = True):
        from .players.spec import DEFAULT_AI, make_player
        if not isinstance(state, State):
            raise TypeError(f"a session holds the true State, not {type(state).__name__}")
        if len(seats) != state.players:
            raise ConfigError(f"seats: {len(seats)} given for a {state.players}-player game")
        self.lock = threading.RLock()
        self._think_lock = threading.Lock()
        self._cancelled = threading.Event()
        self._state = state
        self.seed = seed
        self.event = event
        self.describe = describe
        self.autosave = autosave
        self.autosave_error: str | None = None
        self.version = 0
        self.history: list[Turn] = []
        self._turn_view: View | None = None     # a human's view at the start of a two-step turn
        self._players: list[Player | None] = []
        self.specs: list[str] = []
        try:
            for s, who in enumerate(seats):
                if isinstance(who, Player):
                    self._players.append(who)
                    self.specs.append(who.spec)
                elif isinstance(who, str) and who.strip().lower() == HUMAN:
                    self._players.append(None)
                    self.specs.append(HUMAN)
                elif isinstance(who, str):
                    self._players.append(make_player(who, seed=seat_seed(seed, s)))
                    self.specs.append(who.strip())
                else:
                    raise ConfigError(f"seats[{s}]: expected 'human', a player spec or a Player, got "
                                      f"{type(who).__name__}")
            self.humans = frozenset(s for s, p in enumerate(self._players) if p is None)
            if self.humans and not allow_perfect_information:
                for s, p in enumerate(self._players):
                    if p is not None and p.perfect_information:
                        raise ConfigError(f"seats[{s}]: {p.spec!r} is a perfect-information player: it would see "
                                          "the hidden cards of the human seats")
            self.hint_spec = hint_spec or next((sp for sp in self.specs if sp.startswith("mcts")), DEFAULT_AI)
            if self.humans:
                from .analysis import check_search_spec
                self.hint_spec = check_search_spec(self.hint_spec)
        except BaseException:
            self.close()
            raise
        if start is None:
            first = state.copy()
            while first.move_stack:
                first.pop()
            start = first.position()
        self.start = start
        for p in self._players:
            if p is not None:
                p.reset()

    # -- making one -----------------------------------------------------------------------------------

    @classmethod
    def new(cls, seats: Sequence[str | Player], *, seed: int | None = None, module: str | None = None,
            config: Config | None = None, first_player: int = 0, **kw) -> "GameSession":
        """A new game dealt from `seed` (default: a random one) for `len(seats)` players, with
        `module` (a Cities of Splendor module) or the rules of `config`."""
        n = len(seats)
        if config is None:
            config = Config(players=n, modules=(module,) if module else ())
        if seed is None:
            seed = new_seed()
        state = State.new(n, seed=seed, first_player=first_player, config=config)
        return cls(state, seats, seed=seed, **kw)

    @classmethod
    def from_state(cls, state: State, seats: Sequence[str | Player], **kw) -> "GameSession":
        """A game from a true position (its move stack, if any, is the game so far)."""
        return cls(state.copy(), seats, **kw)

    @classmethod
    def from_record(cls, record: GameRecord, seats: Sequence[str | Player] | None = None, **kw) -> "GameSession":
        """A game continued from a record (replayed and checked); `seats` default to the record's
        players ("human" stays human)."""
        state = record.replay()
        session = cls(state, list(seats or record.players), seed=record.seed, start=record.start, **kw)
        st = State(record.start)
        for text in record.moves:
            seat = st.to_move
            session.history.append(Turn(seat, text, "human" if seat in session.humans else "ai",
                                        _describe(st.view(seat), text)))
            st.push(text)
        return session

    @classmethod
    def load(cls, path, seats: Sequence[str | Player] | None = None, game: int = 1, **kw) -> "GameSession":
        """The `game`th record of a records file, continued (see from_record)."""
        from .errors import RecordError
        from .records import read_records
        records = list(read_records(path))
        if not records:
            raise RecordError(f"{path}: no game record in the file")
        if not 1 <= game <= len(records):
            raise RecordError(f"{path}: game {game} asked for, the file holds {len(records)}")
        return cls.from_record(records[game - 1], seats, **kw)

    def close(self) -> None:
        """Stop a running search and release the AI players' threads."""
        self._cancelled.set()
        for p in getattr(self, "_players", ()):
            if p is not None:
                p.close()

    def __enter__(self) -> "GameSession":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- reading -------------------------------------------------------------------------------------

    @property
    def state(self) -> State:
        """The true state, hidden cards included: never shown to a player (show `view(seat)`)."""
        return self._state

    @property
    def players(self) -> int:
        return self._state.players

    @property
    def to_move(self) -> int:
        return self._state.to_move

    @property
    def moves(self) -> list[str]:
        """The whole turns played (a human's first step of a two-step turn under way is not one:
        see `partial_move`)."""
        st = self._state
        stack = st.move_stack
        return [str(m) for m in (stack[:-1] if st.partial_move is not None else stack)]

    @property
    def partial_move(self) -> Move | None:
        """The first step of a two-step turn a human seat is in the middle of (docs/RULES.md)."""
        return self._state.partial_move

    def is_over(self) -> bool:
        return self._state.is_over()

    def player(self, seat: int) -> Player | None:
        """The AI player of `seat` (None for a human seat)."""
        return self._players[seat]

    def human_to_move(self) -> bool:
        return not self._state.is_over() and self._state.to_move in self.humans

    def ai_to_move(self) -> bool:
        return not self._state.is_over() and self._state.to_move not in self.humans

    def view(self, seat: int | None = None) -> View:
        """What `seat` sees (default: the human seat to move, else the lowest human seat, else
        the seat to move)."""
        with self.lock:
            if seat is None:
                seat = self.to_move if self.human_to_move() or not self.humans else min(self.humans)
            return self._state.view(seat)

    def can_undo(self) -> bool:
        return self._undo_count() > 0

    # -- changing -------------------------------------------------------------------------------------

    def play(self, move: Move | str) -> Move:
        """The human seat to move plays `move` (notation, checked against its view's legal moves).
        Raises SessionError (not a human's turn, game over) or NotationError / IllegalMoveError;
        nothing changes then. A two-step turn (docs/RULES.md) is played as its first step (`b10`:
        then `partial_move` is set and the same seat plays again, seeing the card revealed) and
        then the rest (`t36` or the whole `b10/t36`), or as the whole turn in one call when its
        view can name it."""
        with self.lock:
            st = self._state
            if st.is_over():
                raise SessionError("the game is over: no more moves")
            seat = st.to_move
            if seat not in self.humans:
                raise SessionError(f"seat {seat} is an AI seat: its move comes from ai_move()")
            view = st.view(seat)
            m = view.parse_move(move.strip() if isinstance(move, str) else str(move))
            if self._turn_view is None:
                self._turn_view = view          # the mover's view at the turn's start, to describe it
            played = st.push(m)
            if st.partial_move is not None:     # the first step of a two-step turn: the same seat goes on
                self._changed()
                return played
            desc = _describe(self._turn_view, played) if self.describe else ""
            self._turn_view = None
            self._played(Turn(seat, str(played), "human", desc))
            return played

    def ai_move(self, limit: Limit | None = None, *, progress: Callable[[Thinking], None] | None = None,
                report_every: float = REPORT_EVERY, cancel: Callable[[], bool] | None = None,
                time_forfeit: float | None = None, interruptible: bool = True) -> Move | None:
        """The AI seat to move thinks and plays. `limit` overrides its spec's budget (None: the
        spec's own). `progress(Thinking)` is called about every `report_every` seconds while an
        MCTS player searches. Returns the move played, or None when the search was cancelled
        (`cancel()` returned True, `cancel_search()` or `undo()` was called) or the game changed
        meanwhile. Raises PlayerFault when the player crashes, returns an illegal move or (with
        `time_forfeit`) overruns the time, SessionError when no AI is to move. With
        `interruptible=False` (and no progress) the player's plain `choose` runs, as in a match."""
        with self._think_lock:
            self._cancelled.clear()
            with self.lock:
                st = self._state
                if st.is_over():
                    raise SessionError("the game is over: no more moves")
                seat = st.to_move
                player = self._players[seat]
                if player is None:
                    raise SessionError(f"seat {seat} is a human seat: its move comes from play()")
                given = st.copy(stack=False) if player.perfect_information else st.view(seat)
                version = self.version
            total = 0.0

            def stop() -> bool:
                return self._cancelled.is_set() or bool(cancel and cancel())
            report = None
            t0 = time.perf_counter()
            if progress is not None:
                def report(info: SearchInfo) -> None:
                    progress(Thinking(seat, player.spec, time.perf_counter() - t0, info))

            def decide(given) -> tuple[Decision, float]:
                t = time.perf_counter()
                try:
                    if interruptible or report is not None:
                        d = player.think(given, limit, progress=report, report_every=report_every, cancel=stop)
                    else:
                        d = player.choose(given, limit)
                except SearchCancelled:
                    raise
                except Exception as e:  # a crashing bot must not take the front end (or a tournament) down
                    raise PlayerFault(seat, "crash", f"{type(e).__name__}: {e}", time.perf_counter() - t) from e
                return d, time.perf_counter() - t

            def check(dt: float, total: float) -> None:    # a step slower than time_forfeit loses
                if time_forfeit is not None and dt > time_forfeit:
                    raise PlayerFault(seat, "time-out", f"({dt:.2f}s)", total)

            try:
                decision, dt = decide(given)
                move, total, infos = decision.move, dt, decision.info
                if (st.partial_move is None and not player.perfect_information
                        and isinstance(given, View) and given.is_partial(move)):
                    # a two-step turn: the rest is chosen with the card the purchase reveals face
                    # up, on a copy (the game takes the whole turn at once, as a record does)
                    check(dt, dt)
                    mid = st.copy(stack=False)
                    try:
                        mid.push(move)
                    except IllegalMoveError as e:
                        raise PlayerFault(seat, "illegal move", str(e), dt) from None
                    decision, dt = decide(mid.view(seat))
                    total += dt
                    move, infos = mid.view(seat).parse_move(str(decision.move)), decision.info
            except SearchCancelled:
                return None
            except IllegalMoveError as e:
                raise PlayerFault(seat, "illegal move", str(e), total) from None
            with self.lock:
                if stop() or self.version != version:
                    return None
                check(dt, total)
                view = st.view(seat) if self.describe else None
                try:
                    played = st.push(move)
                except IllegalMoveError as e:
                    raise PlayerFault(seat, "illegal move", str(e), total) from None
                if st.partial_move is not None:   # a first step alone is not a turn: the player's error
                    st.pop()
                    raise PlayerFault(seat, "illegal move", f"{played} is only the first step of its turn", total)
                self._played(Turn(seat, str(played), "ai", _describe(view, played) if view else "", total, infos))
                return played

    def play_ai(self, limit: Limit | None = None, **kw) -> list[Move]:
        """AI moves until a human seat is to move or the game ends (`ai_move`'s options); stops
        early, returning the moves so far, when a search is cancelled."""
        out = []
        while self.ai_to_move():
            m = self.ai_move(limit, **kw)
            if m is None:
                break
            out.append(m)
        return out

    def cancel_search(self) -> None:
        """Ask a running `ai_move` to stop (it returns None and plays nothing)."""
        self._cancelled.set()

    def _undo_count(self) -> int:
        """Moves to take back to reach the last position where a human seat was to move."""
        trial = self._state.copy()
        n = 0
        while trial.move_stack:
            trial.pop()
            n += 1
            # a human turn's start: not the middle of a two-step turn, unless the game began there
            if trial.to_move in self.humans and (trial.partial_move is None or not trial.move_stack):
                return n
        return 0

    def undo(self) -> list[Move]:
        """Take back the last human move and the AI moves after it (a running search is cancelled
        first). Returns the moves taken back, last first. The AI players forget their trees (they
        followed the moves taken back). Raises SessionError when no human move was played."""
        self._cancelled.set()
        with self._think_lock, self.lock:
            n = self._undo_count()
            if n == 0:
                raise SessionError("nothing to undo: no human move has been played yet")
            partial = self._state.partial_move is not None   # a human's first step: not in the history
            undone = [self._state.pop() for _ in range(n)]
            del self.history[len(self.history) - (n - partial):]
            self._turn_view = None
            for p in self._players:
                if p is not None:
                    p.reset()
            self._changed()
            return undone

    def _played(self, turn: Turn) -> None:
        self.history.append(turn)
        move = self._state.move_stack[-1]
        for p in self._players:
            if p is not None:
                p.observe(move)
        self._changed()

    def _changed(self) -> None:
        self.version += 1
        if self.autosave is not None:
            try:
                save_record(self.autosave, self.record(), overwrite=True)
                self.autosave_error = None
            except (OSError, SplendorError) as e:
                self.autosave_error = f"autosave to {self.autosave}: {e}"
                warnings.warn(self.autosave_error, stacklevel=3)

    # -- help for a human seat ------------------------------------------------------------------------

    def _human_view(self, seat: int | None, what: str) -> View:
        st = self._state
        if st.is_over():
            raise SessionError(f"the game is over: there is no move to {what}")
        if seat is None:
            seat = st.to_move
        if seat not in self.humans:
            raise SessionError(f"seat {seat} is an AI seat: {what} is for a human seat")
        return st.view(seat)

    def hint(self, limit: Limit | dict | None = None, spec: str | None = None, top_k: int = 5):
        """`analysis.hint` for the human seat to move, searching its view only (`hint_spec` unless
        `spec` is given)."""
        from .analysis import hint
        with self.lock:
            view = self._human_view(None, "hint")
            if view.seat != view.to_move:
                raise SessionError("a hint is for the seat to move")
        return hint(view, limit, spec=spec or self.hint_spec, seed=_hint_seed(view), top_k=top_k)

    def analyse(self, seat: int | None = None, limit: Limit | dict | None = None, spec: str | None = None,
                top_k: int = 5, progress=None, report_every: float | None = None):
        """`analysis.analyse` of the position from a human seat's view (default: the human to move)."""
        from .analysis import analyse
        with self.lock:
            view = self._human_view(seat, "analyse")
        return analyse(view, limit, top_k=top_k, spec=spec or self.hint_spec, seed=_hint_seed(view),
                       progress=progress, report_every=report_every)

    # -- records --------------------------------------------------------------------------------------

    def record(self, meta: dict | None = None) -> GameRecord:
        """The game as a record (docs/RECORDS.md): the true start, the moves, the result (None
        while unfinished, with meta.termination "unfinished")."""
        with self.lock:
            st = self._state
            if st.partial_move is not None and st.move_stack:   # records keep whole turns: the last one finished
                # (a game that began in the middle of a turn keeps that start)
                st = st.copy()
                st.pop()
            m = {"event": self.event, "termination": "normal" if st.is_over() else "unfinished"}
            m.update(meta or {})
            return GameRecord.from_state(st, self.seed, list(self.specs), start=self.start, meta=m)

    def save(self, path, overwrite: bool = False) -> GameRecord:
        """Write the record to `path` atomically (a temporary file renamed over it). An existing
        file is refused (FileExistsError) unless `overwrite`."""
        rec = self.record()
        save_record(path, rec, overwrite=overwrite)
        return rec


def _describe(view: View, move: Move | str) -> str:
    try:
        return view.describe(move)
    except SplendorError:
        return str(move)
