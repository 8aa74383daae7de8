"""Game records: one finished (or abandoned) game per line of a JSON Lines file.

The format is documented in docs/RECORDS.md (`"format": "splendor-record/1"`, for base games and
module games alike: `config.modules` names the module and `start` is then an SPN2 position). A record holds the
true start position (which fixes the deck order), the moves in canonical notation, the cards each
move revealed from the decks, and the result; `GameRecord.replay()` checks all of them against the
rules. Files are written one line at a time with `append_record`, so a run that crashes loses at
most the line it was writing, and `read_records` skips such a torn last line with a warning.
"""
from __future__ import annotations

import datetime
import json
import os
import warnings
from dataclasses import dataclass, field
from typing import Any, Iterator

from .errors import ConfigError, IllegalMoveError, NotationError, PositionError, RecordError, loads, short
from .move import Move
from .state import Config, Result, State, Termination
from .validate import check_int, ints_in

FORMAT = "splendor-record/1"
REQUIRED = ("format", "config", "seed", "first_player", "players", "start", "moves", "revealed",
            "result")
OPTIONAL = ("annotations", "meta")
RESULT_KEYS = ("reason", "points", "cards", "ranks", "winners")
REASONS = tuple(t.value for t in Termination)
NCARDS = 90          # base cards; a game with the Orient also has ids 90-119
NCARDS_ORIENT = 120


def _result_from_json(obj, players: int) -> Result:
    """A Result from its JSON form (state.Result has no from_json), checked for shape."""
    if not isinstance(obj, dict):
        raise RecordError(f"result: expected an object or null, got {short(obj)}")
    missing = [k for k in RESULT_KEYS if k not in obj]
    if missing:
        raise RecordError(f"result: missing field {short(missing[0])}")
    extra = sorted(set(obj) - set(RESULT_KEYS))
    if extra:
        raise RecordError(f"result: unknown field {short(extra[0])}")
    if obj["reason"] not in REASONS:
        raise RecordError(f"result.reason: expected one of {', '.join(REASONS)}, got {short(obj['reason'])}")
    for k in ("points", "cards", "ranks"):
        v = obj[k]
        if not ints_in(v) or len(v) != players:
            raise RecordError(f"result.{k}: expected a list of {players} integers, got {short(v)}")
    w = obj["winners"]
    if not ints_in(w, 0, players - 1):
        raise RecordError(f"result.winners: expected a list of seats 0-{players - 1}, got {short(w)}")
    return Result(Termination(obj["reason"]), tuple(obj["points"]), tuple(obj["cards"]), tuple(obj["ranks"]),
                  tuple(w))


def _decks(state: State) -> list[list[int]]:
    """The decks of a true state (three, six with the Orient), top card first."""
    return [d["cards"] for d in state.to_json()["decks"]]


def _revealed(before: list[list[int]], after: list[list[int]]) -> list[int]:
    """The cards that left the decks between two positions (from the top), deck by deck: levels
    1-3, then the Orient decks of levels 1-3."""
    out: list[int] = []
    for b, a in zip(before, after):
        k = len(b) - len(a)
        if k < 0 or b[k:] != a:  # cannot happen with the base rules: decks only lose their top
            raise RecordError(f"internal: deck {b} did not become {a} by drawing from the top")
        out += b[:k]
    return out


@dataclass
class GameRecord:
    """One game. `moves` are canonical move strings; `revealed[i]` lists the card ids that left a
    deck during move i (a market refill, a blind reserve); `result` is None for an unfinished game
    (see meta["termination"]). Construction checks the structure; `replay()` checks the rules."""

    config: Config
    seed: int | None
    first_player: int
    players: list[str]
    start: str
    moves: list[str] = field(default_factory=list)
    revealed: list[list[int]] = field(default_factory=list)
    result: Result | None = None
    annotations: list | None = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self):
        if not isinstance(self.config, Config):
            raise RecordError(f"config: expected a Config, got {short(self.config)}")
        n = self.config.players
        if self.seed is not None:
            check_int(self.seed, "seed", 0, 2 ** 64 - 1, RecordError, expect="an integer in [0, 2**64) or null")
        check_int(self.first_player, "first_player", 0, n - 1, RecordError, expect=f"a seat 0-{n - 1}")
        if not isinstance(self.players, (list, tuple)) or not all(isinstance(p, str) for p in self.players):
            raise RecordError(f"players: expected a list of player spec strings, got {short(self.players)}")
        self.players = list(self.players)
        if len(self.players) != n:
            raise RecordError(f"players: {len(self.players)} player specs for a {n}-player game")
        if not isinstance(self.start, str):
            raise RecordError(f"start: expected a position string, got {short(self.start)}")
        try:
            start = State(self.start)
        except PositionError as e:
            raise RecordError(f"start: {e}") from None
        if start.config != self.config:
            raise RecordError(f"start: the position's rules {start.config.to_json()} differ from "
                              f"config {self.config.to_json()}")
        first = start.to_json()["first_player"]
        if first != self.first_player:
            raise RecordError(f"first_player: the record says seat {self.first_player} but the start "
                              f"position says seat {first}")
        if not isinstance(self.moves, (list, tuple)):
            raise RecordError(f"moves: expected a list of move strings, got {short(self.moves)}")
        self.moves = list(self.moves)
        for i, m in enumerate(self.moves):
            if not isinstance(m, str):
                raise RecordError(f"moves[{i}]: expected a move string, got {short(m)}")
            try:
                canon = str(Move.parse(m))
            except NotationError as e:
                raise RecordError(f"moves[{i}]: {e}") from None
            if canon != m:
                raise RecordError(f"moves[{i}]: {m!r} is not in canonical notation (write {canon!r})")
        if not isinstance(self.revealed, (list, tuple)):
            raise RecordError(f"revealed: expected a list (one list of card ids per move), got {short(self.revealed)}")
        if len(self.revealed) != len(self.moves):
            raise RecordError(f"revealed: {len(self.revealed)} entries for {len(self.moves)} moves")
        self.revealed = [list(r) if isinstance(r, (list, tuple)) else r for r in self.revealed]
        ncards = NCARDS_ORIENT if self.config.module == "orient" else NCARDS
        for i, r in enumerate(self.revealed):
            if not ints_in(r, 0, ncards - 1):
                raise RecordError(f"revealed[{i}]: expected a list of card ids 0-{ncards - 1}, got {short(r)}")
        if self.result is not None and not isinstance(self.result, Result):
            raise RecordError(f"result: expected a Result or None, got {short(self.result)}")
        if self.annotations is not None:
            if not isinstance(self.annotations, (list, tuple)):
                raise RecordError(f"annotations: expected a list (one entry per move) or null, got "
                                  f"{short(self.annotations)}")
            self.annotations = list(self.annotations)
            if len(self.annotations) != len(self.moves):
                raise RecordError(f"annotations: {len(self.annotations)} entries for {len(self.moves)} moves")
        if not isinstance(self.meta, dict) or not all(isinstance(k, str) for k in self.meta):
            raise RecordError(f"meta: expected an object with string keys, got {short(self.meta)}")
        # free-form data must write back as it was read: standard JSON only (no NaN, no sets)
        for name in ("annotations", "meta"):
            try:
                json.dumps(getattr(self, name), allow_nan=False)
            except (TypeError, ValueError, RecursionError) as e:
                raise RecordError(f"{name}: not JSON data: {short(str(e), 100)}") from None

    # -- JSON ------------------------------------------------------------------------------------

    def to_json(self) -> dict:
        obj: dict[str, Any] = {
            "format": FORMAT, "config": self.config.to_json(), "seed": self.seed,
            "first_player": self.first_player, "players": list(self.players), "start": self.start,
            "moves": list(self.moves), "revealed": [list(r) for r in self.revealed],
        }
        if self.annotations is not None:
            obj["annotations"] = list(self.annotations)
        obj["result"] = self.result.to_json() if self.result is not None else None
        obj["meta"] = dict(self.meta)
        return obj

    def to_line(self) -> str:
        """The record as one line of JSON (no trailing newline)."""
        try:
            return json.dumps(self.to_json(), separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise RecordError(f"annotations/meta: not JSON-serialisable: {e}") from None

    @classmethod
    def from_json(cls, obj) -> "GameRecord":
        if not isinstance(obj, dict):
            raise RecordError(f"a record must be a JSON object, got {type(obj).__name__}")
        if "format" not in obj:
            raise RecordError("missing field 'format'")
        if obj["format"] != FORMAT:
            raise RecordError(f"format: expected {FORMAT!r}, got {short(obj['format'])}")
        for k in REQUIRED:
            if k not in obj:
                raise RecordError(f"missing field {short(k)}")
        extra = sorted(set(obj) - set(REQUIRED) - set(OPTIONAL))
        if extra:
            raise RecordError(f"unknown field {short(extra[0])} (free-form data belongs in meta)")
        try:
            config = Config.from_json(obj["config"])
        except (ConfigError, TypeError) as e:
            raise RecordError(f"config: {e}") from None
        meta = obj.get("meta", {})
        rec = cls(config, obj["seed"], obj["first_player"], obj["players"], obj["start"],
                  obj["moves"], obj["revealed"], None, obj.get("annotations"),
                  {} if meta is None else meta)
        if obj["result"] is not None:  # checked last: its shape depends on the player count
            rec.result = _result_from_json(obj["result"], config.players)
        return rec

    @classmethod
    def from_line(cls, line: str | bytes) -> "GameRecord":
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as e:
                raise RecordError(f"not UTF-8 text ({e.reason} at byte {e.start}): not a game record") from None
        return cls.from_json(loads(line, RecordError))

    # -- building and checking ---------------------------------------------------------------------

    @classmethod
    def from_state(cls, state: State, seed: int | None, players: list[str], *, start: str | None = None,
                   annotations: list | None = None, meta: dict | None = None) -> "GameRecord":
        """The record of the game `state` has played: its move stack from the start position (the
        position under the whole stack, or `start` when given: the stack must then lead from it to
        `state`). The result is None while the game is not over. meta gets "date" (UTC) and
        "version" unless given."""
        moves = state.move_stack
        if start is None:
            first = state.copy()
            while first.move_stack:
                first.pop()
            start = first.position()
        try:
            st = State(start)
        except PositionError as e:
            raise RecordError(f"start: {e}") from None
        revealed = []
        decks = _decks(st)
        for i, m in enumerate(moves):
            try:
                st.push(m)
            except IllegalMoveError as e:
                raise RecordError(f"moves[{i}]: the state's move stack does not replay from start: {e}") from None
            after = _decks(st)
            revealed.append(_revealed(decks, after))
            decks = after
        if st.position() != state.position():
            raise RecordError("start: the state's move stack does not lead from this start to the state")
        from . import __version__
        full_meta = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
                     "version": __version__}
        full_meta.update(meta or {})
        return cls(state.config, seed, st.to_json()["first_player"], list(players), start,
                   [str(m) for m in moves], revealed, state.result(), annotations, full_meta)

    def replay(self, check_seed: bool = False) -> State:
        """Play the moves from the start position and return the final State (with its move
        stack). Checks that every move is legal and canonical, that each move reveals the cards
        listed in `revealed`, and that the result matches. With check_seed, also checks that
        dealing `seed` gives the start position (the engine's shuffle must not have changed since
        the record was written). Raises RecordError naming the move index / field."""
        if check_seed:
            if self.seed is None:
                raise RecordError("seed: null, so there is no deal to check the start position against")
            dealt = State.new(self.config.players, seed=self.seed, first_player=self.first_player,
                              config=self.config).position()
            if dealt != self.start:
                raise RecordError(f"seed: dealing seed {self.seed} does not give the start position")
        st = State(self.start)
        decks = _decks(st)
        for i, text in enumerate(self.moves):
            ended = st.result()
            if ended is not None:
                raise RecordError(f"moves[{i}]: {text!r} is played after the game ended "
                                  f"({ended.reason}) at move {i}")
            try:
                played = st.push(text)
            except (IllegalMoveError, NotationError) as e:
                raise RecordError(f"moves[{i}]: illegal move: {e}") from None
            if str(played) != text:
                st.pop()
                raise RecordError(f"moves[{i}]: {text!r} is not canonical here (write {str(played)!r})")
            after = _decks(st)
            got = _revealed(decks, after)
            if got != self.revealed[i]:
                raise RecordError(f"revealed[{i}]: the record says {short(self.revealed[i])} but move {short(text)} "
                                  f"revealed {got}")
            decks = after
        res = st.result()
        if self.result is None and res is not None:
            raise RecordError(f"result: the record says null (unfinished) but the game ended "
                              f"({res.reason}) after {len(self.moves)} moves")
        if self.result is not None and res is None:
            raise RecordError(f"result: the record gives a result ({self.result.reason}) but the game "
                              f"is not over after {len(self.moves)} moves")
        if res is not None and self.result is not None and res != self.result:
            raise RecordError(f"result: the record says {self.result.to_json()} but the replay gives "
                              f"{res.to_json()}")
        return st


# -- files -----------------------------------------------------------------------------------------

#: the longest line read as a record: a whole game is a few KB, so a longer line is not a record
#: (and is never read into memory whole)
MAX_LINE_BYTES = 1 << 20


def read_records(path, strict: bool = False) -> Iterator[GameRecord]:
    """The records of a JSON Lines file, in order. Blank lines are ignored. A last line that is not
    JSON (a write cut short by a crash) is skipped with a warning, unless `strict` (a file that
    should hold whole games, e.g. one the user asked to load); any other bad line raises
    RecordError naming its line number and the real cause (a last line that is JSON but not a
    record of this version, e.g. another format version, is an error, not a torn write), as does
    a line that is not UTF-8 text or is longer than MAX_LINE_BYTES. Records are parsed, not
    replayed (call replay())."""
    pending: tuple[int, bytes] | None = None
    with open(path, "rb") as f:
        number = 0
        while True:
            line = f.readline(MAX_LINE_BYTES + 1)
            if not line:
                break
            number += 1
            if len(line) > MAX_LINE_BYTES:
                raise RecordError(f"line {number}: longer than {MAX_LINE_BYTES} bytes: not a game record")
            if not line.strip():
                continue
            if pending is not None:
                yield _parse_line(*pending)
            pending = (number, line)
    if pending is not None:
        number, line = pending
        if strict:
            yield _parse_line(number, line)
            return
        try:
            json.loads(line)
        except (ValueError, RecursionError) as e:   # not JSON (or not UTF-8): a write cut short
            torn = "" if line.endswith(b"\n") else " (no newline: a write cut short)"
            why = (f"not UTF-8 text ({e.reason} at byte {e.start})" if isinstance(e, UnicodeDecodeError)
                   else f"broken JSON: {str(e)[:200]}")
            warnings.warn(f"{path}: line {number}: skipping the corrupt last line{torn}: {why}", stacklevel=2)
            return
        # JSON but not a record of this version: its real cause, as for any other line
        yield _parse_line(number, line)


def _parse_line(number: int, line: bytes | str) -> GameRecord:
    try:
        return GameRecord.from_line(line)
    except RecordError as e:
        raise RecordError(f"line {number}: {e}") from None


def append_record(path, record: GameRecord, fsync: bool = True) -> None:
    """Append one record as a line, in a single write, then flush (and fsync). If the file ends in
    a torn line (a previous writer crashed mid-line), that partial line is cut off first, with a
    warning, so the new record starts on its own line. One writer per file."""
    append_line(path, record.to_line(), fsync)


def append_line(path, line: str, fsync: bool = True) -> None:
    """Append `line` (one line of JSON, no newline) to a JSON Lines file in a single write, then
    flush (and fsync). A last line that must not stay is cut off first, with a warning, and kept
    in PATH.corrupt: a line without its newline (a writer died mid-line), or a complete line that
    is not JSON (readers skip it while it is last, but refuse it once a line follows). The writer
    behind `append_record`, and behind the result files of reviews."""
    data = (line + "\n").encode("utf-8")
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        size = os.fstat(fd).st_size
        cut = _corrupt_tail(fd, size)
        if cut is not None:
            os.lseek(fd, cut, os.SEEK_SET)
            tail = os.read(fd, size - cut)
            copy = f"{os.fspath(path)}.corrupt"
            with open(copy, "ab") as f:
                f.write(tail if tail.endswith(b"\n") else tail + b"\n")
            what = "a torn last line" if not tail.endswith(b"\n") else "a corrupt last line (not JSON)"
            warnings.warn(f"{path}: cutting {what} ({size - cut} bytes, kept in {copy}) before appending",
                          stacklevel=3)
            os.ftruncate(fd, cut)
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
        if fsync:
            os.fsync(fd)
    finally:
        os.close(fd)


def save_record(path, record: GameRecord, overwrite: bool = False) -> None:
    """Write one game to a file of its own, atomically: the record goes to a temporary file in
    the same folder, flushed to disk, which then takes the file's name. An existing file is
    never replaced unless `overwrite` (FileExistsError), and a crash leaves either the old file
    or the new one, never a mix."""
    data = (record.to_line() + "\n").encode("utf-8")
    path = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(path))
    if os.path.isdir(path):
        raise IsADirectoryError(21, "is a folder", path)
    if not overwrite and os.path.lexists(path):
        raise FileExistsError(17, "the file exists", path)
    tmp = os.path.join(folder, f".{name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        if overwrite:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)       # fails if the name was taken meanwhile: never clobbers
            except FileExistsError:
                raise FileExistsError(17, "the file exists", path) from None
            except OSError:              # a file system without hard links
                if os.path.lexists(path):
                    raise FileExistsError(17, "the file exists", path) from None
                os.replace(tmp, path)
    finally:
        if os.path.lexists(tmp):
            os.unlink(tmp)


def _corrupt_tail(fd: int, size: int) -> int | None:
    """Where the file's last line starts when that line must be cut before appending (see
    append_line); None when the file ends well."""
    if not size:
        return None
    os.lseek(fd, size - 1, os.SEEK_SET)
    if os.read(fd, 1) != b"\n":
        return _last_newline_end(fd, size)
    start = _last_newline_end(fd, size - 1)
    if size - 1 - start > MAX_LINE_BYTES:
        return None                     # not read whole: readers refuse it by its length anyway
    os.lseek(fd, start, os.SEEK_SET)
    last = os.read(fd, size - 1 - start)
    if not last.strip():
        return None
    try:
        json.loads(last)
    except (ValueError, RecursionError):
        return start
    return None


def _last_newline_end(fd: int, size: int) -> int:
    """The offset just past the last newline of the file (0 when there is none)."""
    pos = size
    while pos > 0:
        step = min(65536, pos)
        pos -= step
        os.lseek(fd, pos, os.SEEK_SET)
        chunk = os.read(fd, step)
        i = chunk.rfind(b"\n")
        if i >= 0:
            return pos + i + 1
    return 0
