"""Game review: every turn of a game record rated from the mover's own view (docs/REVIEW.md).

For each turn of the reviewed seats, the position before the move is searched from
`state.view(mover)`, never the true state, so a review says what that player could have known: the
search's best move and its win rate, the played move's win rate, the loss between them, a class
(best, good, inaccuracy, mistake, blunder) and an accuracy. A review of a game adds each seat's
accuracy, the counts of each class and the win-rate series, and at each inaccuracy, mistake and
blunder the top alternatives with their principal variations.

How the played move is rated. The best move and the played move are rated by the same search
tree. After the search of the position (the limit given, or the spec's own budget), the played
move's action is forced at the root (the tree's `force_key`, as sequential halving does in
players/mcts.py) until it holds at least `PLAYED_SHARE` of the search's iterations; its win rate is
then its average result in that tree. This was chosen over searching the position after the
played move because (1) both win rates come from one tree, so their difference is not the noise
of two searches, and (2) the position after the move shows the card that refilled the market,
which the mover did not know when choosing: a rating from it would reward or punish the luck of
the draw, where the tree averages over every card that could come (each iteration samples one).
The cost is at most `PLAYED_SHARE` more iterations a turn. The limitation: the tree's root moves
are actions, so the decisions later in the played turn (returns, the noble, module decisions)
are rated as the search would take them; the played move is rated by its action.

Classes, by the win-rate loss L = best win rate - played win rate (in [0, 1]; a negative
difference, the played move rated above the search's choice, counts as 0): best (L = 0, or the
search's own action), good (L < 0.05), inaccuracy (0.05 <= L < 0.10), mistake (0.10 <= L < 0.15),
blunder (L >= 0.15). These are lichess's thresholds on its win percentage (0.1, 0.2, 0.3 on its
[-1, 1] scale). Accuracy of a move, also lichess's formula on win percentages (L in percentage
points): 103.1668 * exp(-0.04354 * L) - 3.1669 + 1, clamped to [0, 100]; a seat's accuracy is the
plain mean over its reviewed moves that had a choice (lichess weights its mean by volatility and
mixes in a harmonic mean; here every move counts alike). A move that was the only legal one is
marked `forced` and left out of the accuracy.

Entry points: `review_position` (one position and the move played there), `review_stream` (one
record, turn by turn as each finishes: the engine protocol's `review` request), `review` (one
record), `review_records` (many records in parallel on local processes or Ray, resumable through
a JSON Lines file of finished turns), `plot` (the win-rate graph as PNG), `sparkline` (the same
in one line of text), `Review.to_json` / `from_json` (the `splendor-review/1` report),
`add_arguments` / `run_cli` (the `splendor review` command).

Hidden information: a turn's review is a function of the mover's view at that turn, the move
played, the spec, the limit and the seed; the report names no seed of the game, no start
position and no card a reviewed seat did not see (tests/test_review.py's twin records). A
review of several seats holds each seat's view at its turns: give a player only the review of
its own seat.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Sequence

from .errors import ConfigError, RecordError, SplendorError, short
from .move import Move
from .records import GameRecord, append_line, read_records
from .state import Config, Result, State, View
from .validate import check_int, int_in, ints_in, is_int

FORMAT = "splendor-review/1"
TURN_FORMAT = "splendor-review-turn/1"
#: the classes, best first, with the smallest win-rate loss of each (lichess's thresholds)
CLASSES = ("best", "good", "inaccuracy", "mistake", "blunder")
THRESHOLDS = {"good": 0.0, "inaccuracy": 0.05, "mistake": 0.10, "blunder": 0.15}
#: the marks of the classes in a game log, as chess annotators write them
MARKS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
#: the played move is searched until it holds at least this share of the search's iterations
PLAYED_SHARE = 0.1
DEFAULT_TOP_K = 3


class ReviewError(SplendorError):
    """A review that cannot be made: a bad record, seat, spec or limit."""


# -- one move ------------------------------------------------------------------------------------------

def classify(loss: float, best: bool = False) -> str:
    """The class of a move from its win-rate loss (in [0, 1]); `best`: it is the search's own
    choice."""
    if best or loss <= 0:
        return "best"
    if loss >= THRESHOLDS["blunder"]:
        return "blunder"
    if loss >= THRESHOLDS["mistake"]:
        return "mistake"
    if loss >= THRESHOLDS["inaccuracy"]:
        return "inaccuracy"
    return "good"


def move_accuracy(loss: float) -> float:
    """Lichess's accuracy of a move from its win-rate loss (in [0, 1]), in percent."""
    points = 100 * max(0.0, loss)
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * points) - 3.166924740191411 + 1
    return round(min(100.0, max(0.0, raw)), 2)


def _r4(x: float | None) -> float | None:
    return None if x is None or x != x else round(float(x), 4)


@dataclass(frozen=True)
class TurnReview:
    """One reviewed turn: the mover's position (its view), the move played and the search's verdict.

    Win rates are the mover's expected result (a win 1, a shared draw 1/k), rounded to 4 places;
    `loss`, `klass` and `accuracy` are computed from the rounded figures (so a report read back
    is the same report). `alternatives` (the search's top moves with their lines) are kept at
    inaccuracies, mistakes and blunders only. `terminated`: the search was stopped before its
    limit (the engine protocol's `terminate`), so the figures are those of a shorter search."""

    turn: int                           # index of the move in the record (0 = the first move)
    seat: int
    position: str                       # the mover's view before the move (hidden cards as ?)
    played: str
    best: str
    best_winrate: float | None
    played_winrate: float | None
    best_visits: int
    played_visits: int
    legal_moves: int
    iterations: int                     # the search's iterations, the played move's forced ones too
    seat_winrates: tuple[float | None, ...]   # every seat's expected result, from the mover's view
    pv: tuple[str, ...]                 # the line the search expects after its best move
    played_description: str | None = None
    best_description: str | None = None
    alternatives: tuple[dict, ...] = ()  # MoveInfo.to_json of the search's top moves
    terminated: bool = False            # the search was ended early (the figures are of its iterations so far)
    loss: float = field(init=False)
    klass: str = field(init=False)
    accuracy: float | None = field(init=False)
    forced: bool = field(init=False)

    def __post_init__(self):
        for name in ("best_winrate", "played_winrate"):
            object.__setattr__(self, name, _r4(getattr(self, name)))
        object.__setattr__(self, "seat_winrates", tuple(_r4(v) for v in self.seat_winrates))
        same = self.played == self.best or _action(self.played) == _action(self.best)
        if same or self.best_winrate is None or self.played_winrate is None:
            loss = 0.0
        else:
            loss = max(0.0, round(self.best_winrate - self.played_winrate, 4))
        forced = self.legal_moves == 1
        object.__setattr__(self, "loss", loss)
        object.__setattr__(self, "klass", classify(loss, same))
        object.__setattr__(self, "forced", forced)
        object.__setattr__(self, "accuracy", None if forced else move_accuracy(loss))
        if self.klass not in MARKS:
            object.__setattr__(self, "alternatives", ())
        else:
            object.__setattr__(self, "alternatives", tuple(self.alternatives))

    @property
    def mark(self) -> str:
        """'?!', '?' or '??' after an inaccuracy, a mistake or a blunder; '' otherwise."""
        return MARKS.get(self.klass, "")

    def to_json(self) -> dict:
        return {"turn": self.turn, "seat": self.seat, "played": self.played, "best": self.best,
                "class": self.klass, "mark": self.mark, "loss": self.loss, "accuracy": self.accuracy,
                "forced": self.forced, "bestWinrate": self.best_winrate, "playedWinrate": self.played_winrate,
                "bestVisits": self.best_visits, "playedVisits": self.played_visits, "legalMoves": self.legal_moves,
                "iterations": self.iterations, "seatWinrates": list(self.seat_winrates), "pv": list(self.pv),
                "playedDescription": self.played_description, "bestDescription": self.best_description,
                "alternatives": [dict(a) for a in self.alternatives], "position": self.position,
                **({"terminated": True} if self.terminated else {})}

    @classmethod
    def from_json(cls, obj: dict) -> "TurnReview":
        try:
            return cls(turn=obj["turn"], seat=obj["seat"], position=obj["position"], played=obj["played"],
                       best=obj["best"], best_winrate=obj["bestWinrate"], played_winrate=obj["playedWinrate"],
                       best_visits=obj["bestVisits"], played_visits=obj["playedVisits"],
                       legal_moves=obj["legalMoves"], iterations=obj["iterations"],
                       seat_winrates=tuple(obj["seatWinrates"]), pv=tuple(obj["pv"]),
                       played_description=obj.get("playedDescription"), best_description=obj.get("bestDescription"),
                       alternatives=tuple(obj.get("alternatives", ())), terminated=obj.get("terminated") is True)
        except (KeyError, TypeError) as e:
            raise ReviewError(f"a turn of the review: missing or malformed field {e}") from None


def _action(move: str) -> int | None:
    """The tree key of a move's main action (what the search rates)."""
    from .players.keys import main_key
    try:
        return main_key(Move.parse(move))
    except SplendorError:
        return None


def _root(search) -> dict[int, tuple[int, tuple[float, ...]]]:
    """key -> (visits, every seat's mean result) of the root's moves, over the search's trees."""
    out: dict[int, list] = {}
    for t in search.trees:
        for key, visits, wsum, _ in t.root_stats():
            e = out.setdefault(key, [0, [0.0] * len(wsum)])
            e[0] += visits
            e[1] = [a + b for a, b in zip(e[1], wsum)]
    return {k: (v, tuple(w / v if v else float("nan") for w in ws)) for k, (v, ws) in out.items()}


class ReviewStopped(Exception):
    """A turn's review stopped by its `stop` callback before its search made one iteration: there
    is no figure to report (the engine protocol's `terminate` of a turn that had not started)."""


def _run(search, stop) -> bool:
    """Run `search` to its end, or in chunks of STOP_CHECK_SECONDS that ask `stop()` in between
    (the chunks continue the same trees, so the result is that of one run). Returns whether
    `stop()` ended it early."""
    from .analysis import STOP_CHECK_SECONDS
    if stop is None:
        search.run()
        return False
    while not search.done():
        if stop():
            return True
        before = search.iterations_done
        search.run(STOP_CHECK_SECONDS)
        if search.iterations_done == before:   # nothing more to search (e.g. its clock ran out)
            break
    return False


def review_position(view: View, played: Move | str, limit=None, *, spec: str | None = None, seed: int = 0,
                    top_k: int = DEFAULT_TOP_K, turn: int | None = None,
                    stop: Callable[[], bool] | None = None) -> TurnReview:
    """Rate `played` in `view` (the mover's own view: `state.view(state.to_move)`): the search of
    `spec` (default: the default AI) under `limit` (a Limit or its JSON; default: the spec's own
    budget), then the played move forced to `PLAYED_SHARE` of the search (module docstring).
    With `stop`, the search runs in chunks and ends early once `stop()` is true: the turn is then
    rated from the iterations made so far (the played move forced to its share of those, so it
    takes at most a tenth of the time already spent) and marked `terminated`; stopped before its
    first iteration, it raises ReviewStopped. The chunks do not change the result of a search
    that is not stopped: the same trees are continued."""
    from .analysis import _check_seed, _make_search_player, as_limit
    from .players.keys import main_key
    from .players.spec import DEFAULT_AI
    if not isinstance(view, View):
        raise TypeError(f"review_position() takes the mover's View, not {type(view).__name__}")
    if view.seat != view.to_move:
        raise ReviewError(f"seat {view.seat} is not to move (seat {view.to_move} is): a move is rated from its "
                          "mover's view")
    if view.is_over():
        raise ReviewError("the game is over: there is no move to rate")
    check_int(top_k, "top_k", 1, 50, ConfigError)
    _check_seed(seed)
    move = view.parse_move(played) if isinstance(played, str) else played
    if move not in view.legal_moves:
        raise ReviewError(f"{move}: not a legal move of seat {view.seat} here")
    limit = as_limit(limit)
    player = _make_search_player(spec or DEFAULT_AI, seed)
    try:
        search = player.new_search(view, limit)
        terminated = _run(search, stop)
        if terminated and search.iterations_done == 0:
            raise ReviewStopped
        ranked = search.ranked(top_k)
        _, seat_wr = search.root_summary()
        best = ranked[0]
        pkey, bkey = main_key(move), main_key(best.move)
        stats = _root(search)
        if pkey != bkey:
            want = math.ceil(PLAYED_SHARE * max(search.iterations_done, sum(v for v, _ in stats.values())))
            have = stats.get(pkey, (0, ()))[0]
            if have < want:
                tree = search.trees[0]
                tree.force_key = pkey
                try:
                    tree.run(want - have, 0.0)
                finally:
                    tree.force_key = -1
                stats = _root(search)
        seat = view.to_move
        pvisits, pvalues = stats.get(pkey, (0, (float("nan"),) * view.players))
        iterations = search.iterations_done
    finally:
        player.close()
    same = pkey == bkey
    return TurnReview(
        turn=view.turn if turn is None else turn, seat=seat, position=view.position(), played=str(move),
        best=str(best.move), best_winrate=best.value, played_winrate=best.value if same else pvalues[seat],
        best_visits=best.visits, played_visits=best.visits if same else pvisits, legal_moves=len(view.legal_moves),
        iterations=iterations, seat_winrates=tuple(seat_wr), pv=tuple(best.pv),
        played_description=_describe(view, move), best_description=_describe(view, best.move),
        alternatives=tuple(m.to_json(i) for i, m in enumerate(ranked)), terminated=terminated)


def _describe(view: View, move: Move) -> str | None:
    try:
        return view.describe(move)
    except SplendorError:
        return None


# -- settings -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Settings:
    """How a review searches: the spec (an mcts spec; default the default AI), the limit (None:
    the spec's own budget), the seed and how many alternatives are kept."""

    spec: str
    limit: Any = None                    # a players.Limit or None
    seed: int = 0
    top_k: int = DEFAULT_TOP_K

    @classmethod
    def make(cls, spec: str | None = None, limit=None, seed: int = 0, top_k: int = DEFAULT_TOP_K) -> "Settings":
        """Settings checked now (the spec and limit against the table of bounds), so a bad one
        fails before any search."""
        from .analysis import _check_seed, as_limit, check_search_spec
        from .players.spec import DEFAULT_AI
        spec = check_search_spec(spec or DEFAULT_AI)
        _check_seed(seed)
        check_int(top_k, "top_k", 1, 50, ConfigError)
        return cls(spec, as_limit(limit), seed, top_k)

    def to_json(self) -> dict:
        return {"spec": self.spec, "limit": self.limit.to_json() if self.limit else None, "seed": self.seed,
                "topK": self.top_k, "playedShare": PLAYED_SHARE}

    @classmethod
    def from_json(cls, obj: dict) -> "Settings":
        return cls.make(obj["spec"], obj.get("limit"), obj.get("seed", 0), obj.get("topK", DEFAULT_TOP_K))

    def key(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))


def _seats(seats, players: int) -> tuple[int, ...]:
    """None or "all": every seat; an int or a list of ints: those seats."""
    if seats is None or seats == "all":
        return tuple(range(players))
    if is_int(seats):
        seats = [seats]
    if not ints_in(list(seats) if isinstance(seats, tuple) else seats, 0, players - 1) or not seats:
        raise ReviewError(f"seat: expected 'all' or seats 0-{players - 1}, got {short(seats)}")
    return tuple(sorted(set(seats)))


def _turns(record: GameRecord) -> list[int]:
    """The mover of each move of a record (replayed: a record that does not replay raises
    RecordError)."""
    st = State(record.start)
    movers = []
    for m in record.moves:
        movers.append(st.to_move)
        st.push(m)
    return movers


def _view_before(record: GameRecord, turn: int) -> View:
    st = State(record.start)
    for m in record.moves[:turn]:
        st.push(m)
    return st.view(st.to_move)          # the mover's view: the search never sees the true state


# -- one record -------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SeatSummary:
    seat: int
    player: str
    accuracy: float | None              # mean accuracy of the moves with a choice (None: none)
    average_loss: float | None
    moves: int
    classes: dict                       # class -> count
    winrates: tuple[tuple[int, float | None], ...]   # (turn, the seat's win rate before its move)

    def to_json(self) -> dict:
        return {"seat": self.seat, "player": self.player, "accuracy": self.accuracy,
                "averageLoss": self.average_loss, "moves": self.moves, "classes": dict(self.classes),
                "winrates": [{"turn": t, "winrate": w} for t, w in self.winrates]}


@dataclass(frozen=True)
class Review:
    """The review of one game: the game's public facts, the settings, the reviewed turns in move
    order and a summary per reviewed seat."""

    config: Config
    players: tuple[str, ...]
    moves: tuple[str, ...]
    result: Result | None
    seats: tuple[int, ...]
    settings: Settings
    turns: tuple[TurnReview, ...]

    def seat_summary(self, seat: int) -> SeatSummary:
        mine = [t for t in self.turns if t.seat == seat]
        rated = [t for t in mine if not t.forced]
        accs = [t.accuracy for t in rated if t.accuracy is not None]
        acc = round(sum(accs) / len(accs), 2) if accs else None
        loss = round(sum(t.loss for t in rated) / len(rated), 4) if rated else None
        classes = {c: sum(t.klass == c for t in mine) for c in CLASSES}
        return SeatSummary(seat, self.players[seat], acc, loss, len(mine), classes,
                           tuple((t.turn, t.best_winrate) for t in mine))

    @property
    def summaries(self) -> list[SeatSummary]:
        return [self.seat_summary(s) for s in self.seats]

    def to_json(self) -> dict:
        """The `splendor-review/1` report (docs/REVIEW.md)."""
        return {"format": FORMAT,
                "game": {"config": self.config.to_json(), "players": list(self.players), "moves": list(self.moves),
                         "result": self.result.to_json() if self.result else None},
                "settings": {**self.settings.to_json(), "seats": list(self.seats)},
                "seats": [s.to_json() for s in self.summaries],
                "turns": [t.to_json() for t in self.turns]}

    @classmethod
    def from_json(cls, obj) -> "Review":
        """A report read back; the seat summaries are recomputed from the turns and must agree."""
        from .records import _result_from_json
        if not isinstance(obj, dict) or obj.get("format") != FORMAT:
            raise ReviewError(f"format: expected {FORMAT!r}, got {obj.get('format') if isinstance(obj, dict) else obj!r}")
        try:
            game, settings = obj["game"], obj["settings"]
            config = Config.from_json(game["config"])
            result = None if game["result"] is None else _result_from_json(game["result"], config.players)
            review = cls(config, tuple(game["players"]), tuple(game["moves"]), result, tuple(settings["seats"]),
                         Settings.from_json(settings), tuple(TurnReview.from_json(t) for t in obj["turns"]))
        except (KeyError, TypeError) as e:
            raise ReviewError(f"missing or malformed field {e}") from None
        except (ConfigError, RecordError) as e:
            raise ReviewError(str(e)) from None
        if [s.to_json() for s in review.summaries] != obj.get("seats"):
            raise ReviewError("seats: the summaries do not match the turns")
        return review


def _review_of(record: GameRecord, seats: tuple[int, ...], settings: Settings,
               turns: Iterable[TurnReview]) -> Review:
    return Review(record.config, tuple(record.players), tuple(record.moves), record.result, seats, settings,
                  tuple(sorted(turns, key=lambda t: t.turn)))


def _check_record(record) -> GameRecord:
    if not isinstance(record, GameRecord):
        raise TypeError(f"expected a GameRecord, got {type(record).__name__}")
    record.replay()                     # RecordError naming the move when it does not replay
    return record


def review_stream(record: GameRecord, limit=None, *, spec: str | None = None, seats=None, seed: int = 0,
                  top_k: int = DEFAULT_TOP_K, turns: Iterable[int] | None = None,
                  stop: Callable[[int], bool] | None = None) -> Iterator[TurnReview]:
    """The turns of `seats` (None or "all": every seat; an int; a list) of one record, reviewed one
    after the other in this process and yielded as each finishes (for a front end that streams
    them, e.g. the engine protocol's `review` request). Stop iterating to stop the review.
    Everything is checked before the first search. `turns` keeps only those move indices;
    `stop(turn)` is asked before each turn and between chunks of its search: once true, the
    turn's search ends and the turn is yielded with its figures so far, marked `terminated`
    (a turn stopped before its first iteration is left out), and the stream goes on with the
    next turn (which `stop` may skip as well)."""
    settings = Settings.make(spec, limit, seed, top_k)
    _check_record(record)
    chosen = _seats(seats, record.config.players)
    wanted = None if turns is None else set(turns)
    for turn, mover in enumerate(_turns(record)):
        if mover in chosen and (wanted is None or turn in wanted):
            if stop is not None and stop(turn):
                continue
            try:
                yield _turn(record, turn, settings, None if stop is None else (lambda t=turn: stop(t)))
            except ReviewStopped:
                continue


def _turn(record: GameRecord, turn: int, settings: Settings, stop=None) -> TurnReview:
    return review_position(_view_before(record, turn), record.moves[turn], settings.limit, spec=settings.spec,
                           seed=settings.seed, top_k=settings.top_k, turn=turn, stop=stop)


def review(record: GameRecord, limit=None, *, spec: str | None = None, seats=None, seed: int = 0,
           top_k: int = DEFAULT_TOP_K, progress: Callable[[TurnReview], None] | None = None) -> Review:
    """The review of one record, in this process (`progress(turn)` after each turn)."""
    settings = Settings.make(spec, limit, seed, top_k)
    chosen = _seats(seats, _check_record(record).config.players)
    turns = []
    for t in review_stream(record, settings.limit, spec=settings.spec, seats=chosen, seed=seed, top_k=top_k):
        turns.append(t)
        if progress:
            progress(t)
    return _review_of(record, chosen, settings, turns)


# -- many records, in parallel, resumable --------------------------------------------------------------

def record_key(record: GameRecord, settings: Settings) -> str:
    """What identifies a record's turns in a results file: the record and the settings (a digest:
    the file holds it, never the reports)."""
    return hashlib.sha256((record.to_line() + "\n" + settings.key()).encode()).hexdigest()[:32]


def _task(args: tuple[str, int, dict]) -> dict:
    """A worker's job: one turn of one record (the record's line, the turn, the settings)."""
    line, turn, settings = args
    return _turn(GameRecord.from_line(line), turn, Settings.from_json(settings)).to_json()


def load_results(path) -> dict[tuple[str, int], dict]:
    """The finished turns of a results file: (record key, turn) -> turn JSON. A last line that is
    not JSON (a write cut short) is skipped with a warning; any other bad line raises ReviewError
    naming it."""
    out: dict[tuple[str, int], dict] = {}
    if path is None or not os.path.exists(path):
        return out
    try:
        with open(path, encoding="utf-8") as f:
            lines = [(i, ln) for i, ln in enumerate(f, 1) if ln.strip()]
    except UnicodeDecodeError as e:
        raise ReviewError(f"{path}: not a UTF-8 results file ({e.reason} at byte {e.start})") from None
    except IsADirectoryError:
        raise ReviewError(f"{path}: is a directory, not a results file") from None
    for k, (number, line) in enumerate(lines):
        try:
            obj = json.loads(line)
        except ValueError as e:
            if k == len(lines) - 1:     # a write cut short: cut (and kept aside) by the next append
                warnings.warn(f"{path}: line {number}: skipping the corrupt last line (broken JSON: {e})",
                              stacklevel=2)
                continue
            raise ReviewError(f"{path}: line {number}: broken JSON: {e}") from None
        try:
            if not isinstance(obj, dict) or obj.get("format") != TURN_FORMAT:
                raise ValueError(f"expected a {TURN_FORMAT!r} line")
            TurnReview.from_json(obj["review"])
            out[(obj["key"], obj["turn"])] = obj["review"]
        except (ValueError, KeyError, TypeError, ReviewError) as e:
            raise ReviewError(f"{path}: line {number}: {e}") from None
    return out


def review_records(records: Sequence[GameRecord], limit=None, *, spec: str | None = None, seats=None,
                   seed: int = 0, top_k: int = DEFAULT_TOP_K, jobs: int = 1, ray: str | None = None,
                   path=None, progress: bool = True) -> list[Review]:
    """Review many records: their turns run on `jobs` local processes (1: in this process) or as
    Ray tasks (`ray`: an address, "local" or "auto"), with a tqdm progress bar. With `path`, each
    finished turn is appended to that JSON Lines file as it ends, and the turns found there
    already (same record, same settings) are not searched again: a killed review started again
    continues. Returns the reviews in the order of `records`."""
    from .tournament.errors import ExperimentError
    settings = Settings.make(spec, limit, seed, top_k)
    check_int(jobs, "jobs", 1, None, ConfigError, expect="a positive integer")
    plans = []
    for rec in records:
        _check_record(rec)
        chosen = _seats(seats, rec.config.players)
        plans.append((rec, record_key(rec, settings), chosen,
                      [t for t, mover in enumerate(_turns(rec)) if mover in chosen]))
    done = load_results(path)
    finished: dict[tuple[str, int], TurnReview] = {}
    todo, queued = [], set()
    for rec, key, _, turns in plans:
        for t in turns:
            if (key, t) in done:
                finished[(key, t)] = TurnReview.from_json(done[(key, t)])
            elif (key, t) not in queued:       # the same record twice is searched once
                queued.add((key, t))
                todo.append((key, t, rec))

    def keep(key: str, turn: int, obj: dict) -> None:
        finished[(key, turn)] = TurnReview.from_json(obj)
        if path is not None:
            append_line(path, json.dumps({"format": TURN_FORMAT, "key": key, "turn": turn, "review": obj},
                                         separators=(",", ":"), allow_nan=False))

    from tqdm import tqdm
    total = len(queued) + len({k for k in finished})
    bar = tqdm(total=total, initial=total - len(todo), desc="review", unit="turn", disable=not progress,
               dynamic_ncols=True)
    try:
        if todo and jobs == 1 and not ray:
            for key, t, rec in todo:
                keep(key, t, _turn(rec, t, settings).to_json())
                bar.update(1)
        elif todo:
            from .tournament.runner import make_executor
            cpus = check_search_cpus(settings.spec)
            executor = make_executor(_task, jobs=None if ray and jobs == 1 else jobs, ray=ray, cpus=cpus)
            queue = list(reversed(todo))
            inflight: dict = {}
            clean = False
            try:
                while queue or inflight:
                    while queue and len(inflight) < executor.capacity:
                        key, t, rec = queue.pop()
                        inflight[executor.submit((rec.to_line(), t, settings.to_json()))] = (key, t)
                    for h, obj in executor.wait(inflight):
                        key, t = inflight.pop(h)
                        keep(key, t, obj)
                        bar.update(1)
                clean = True
            except ExperimentError as e:
                raise ReviewError(str(e)) from None
            finally:
                executor.close(kill=not clean)
    finally:
        bar.close()
    return [_review_of(rec, chosen, settings, [finished[(key, t)] for t in turns])
            for rec, key, chosen, turns in plans]


def check_search_cpus(spec: str) -> int:
    """CPUs one turn's search needs: its `workers`."""
    from .players.spec import parse_spec
    w = parse_spec(spec)[1].get("workers", 1)
    return w if int_in(w, 2) else 1


# -- showing a review ------------------------------------------------------------------------------------

SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float | None], lo: float = 0.0, hi: float = 1.0) -> str:
    """One character per value, from ▁ (lo) to █ (hi); a space for None. E.g. a seat's win rates."""
    out = []
    for v in values:
        if v is None or v != v:
            out.append(" ")
            continue
        x = (min(hi, max(lo, v)) - lo) / (hi - lo) if hi > lo else 0.0
        out.append(SPARKS[min(len(SPARKS) - 1, int(x * len(SPARKS)))])
    return "".join(out)


COLOURS = {"inaccuracy": "#e6b800", "mistake": "#f08c00", "blunder": "#d62728"}


def plot(review: Review, path, title: str | None = None) -> None:
    """The win-rate graph of a review as a PNG (matplotlib): each reviewed seat's win rate before
    each of its moves (from its own view), over the moves of the game, with its inaccuracies,
    mistakes and blunders marked."""
    try:
        import matplotlib
    except ImportError:
        raise ReviewError("the win-rate graph needs matplotlib: pip install 'splendor_ai[experiments]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 3.6), dpi=110)
    try:
        for s in review.seats:
            mine = [(t.turn + 1, w, t.klass) for t in review.turns if t.seat == s and (w := t.best_winrate) is not None]
            ax.plot([x for x, _, _ in mine], [y for _, y, _ in mine], marker=".", linewidth=1.5,
                    label=f"Player {s + 1} ({review.players[s]})")
            for klass, colour in COLOURS.items():
                xs = [x for x, _, k in mine if k == klass]
                if xs:
                    ax.scatter(xs, [y for _, y, k in mine if k == klass], s=40, color=colour, zorder=3,
                               edgecolors="black", linewidths=0.5,
                               label=f"{klass} ({MARKS[klass]})" if s == review.seats[0] else None)
        ax.axhline(1 / review.config.players, color="grey", linewidth=0.8, linestyle="--")
        ax.set_ylim(0, 1)
        ax.set_xlim(0.5, max(1, len(review.moves)) + 0.5)
        ax.set_xlabel("move")
        ax.set_ylabel("win rate (own view)")
        ax.set_title(title or f"Review: {' vs '.join(review.players)}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc="upper left", ncol=2)
        fig.tight_layout()
        fig.savefig(path, format="png")
    finally:
        plt.close(fig)


#: how the marked classes are coloured in the terminal, and their column headings there
STYLES = {"inaccuracy": "yellow", "mistake": "dark_orange", "blunder": "bold red"}
SHORT = {"inaccuracy": "inacc."}


def summary(review: Review, width: int = 60):
    """The review as rich renderables (a `rich.console.Group`), for `splendor review`: a line
    naming the game and the search, then for each reviewed player a table of its accuracy and the
    count of each class, a table of its inaccuracies, mistakes and blunders (the move played and
    its win rate, the better move, its win rate and the line the search expects after it, the
    loss in win-rate points) and its win-rate sparkline (the last `width` of its moves)."""
    from rich import box
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text
    res = review.result
    outcome = ("unfinished" if res is None else
               f"{res.reason}: " + ", ".join(f"Player {s + 1} {p}" for s, p in enumerate(res.points)))
    parts: list = [Text(f"{' vs '.join(review.players)} ({len(review.moves)} moves; {outcome})", style="bold"),
                   Text(f"search: {review.settings.spec}" + (f", limit {json.dumps(review.settings.limit.to_json())}"
                                                             if review.settings.limit else ""), style="dim")]
    for s in review.summaries:
        counts = Table(title=f"Player {s.seat + 1} ({s.player})", title_justify="left", title_style="bold",
                       box=box.SIMPLE_HEAD, pad_edge=False)
        for name in ("moves", "accuracy", "avg loss", *(f"{SHORT.get(c, c)} {MARKS.get(c, '')}".strip()
                                                       for c in CLASSES)):
            counts.add_column(name, justify="right", no_wrap=True)
        counts.add_row(str(s.moves), "n/a" if s.accuracy is None else f"{s.accuracy:.1f}%",
                       "n/a" if s.average_loss is None else f"{100 * s.average_loss:.1f} pts",
                       *(Text(str(s.classes[c]), style=STYLES.get(c, "") if s.classes[c] else "")
                         for c in CLASSES))
        parts.append(counts)
        marked = [t for t in review.turns if t.seat == s.seat and t.klass in MARKS]
        if marked:
            table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
            table.add_column("move", justify="right", no_wrap=True)
            table.add_column("played", no_wrap=True)
            table.add_column("better move", no_wrap=True)
            table.add_column("loss", justify="right", no_wrap=True)
            table.add_column("the line after the better move", overflow="fold")
            for t in marked:
                table.add_row(Text(f"{t.turn + 1}{t.mark}", style=STYLES[t.klass]),
                              f"{t.played} {_pct(t.played_winrate)}", f"{t.best} {_pct(t.best_winrate)}",
                              f"{100 * t.loss:.0f} pts", " ".join(t.pv[:6]))
            parts.append(table)
        else:
            parts.append(Text("  no inaccuracy, mistake or blunder", style="dim"))
        rates = [w for _, w in s.winrates][-width:]
        known = [w for w in rates if w is not None]
        parts.append(Text.assemble(("  win rate ", "dim"), sparkline(rates),
                                   f"  {_pct(known[0])} to {_pct(known[-1])}" if known else "", "\n"))
    return Group(*parts)


def summary_text(review: Review, width: int = 60, columns: int = 100) -> str:
    """`summary(review)` as plain text, `columns` wide."""
    import io
    from rich.console import Console
    out = io.StringIO()
    Console(file=out, width=columns, no_color=True, highlight=False, emoji=False).print(summary(review, width))
    return out.getvalue().rstrip("\n")


def _pct(x) -> str:
    return "n/a" if x is None else f"{100 * x:.0f}%"


# -- the command -----------------------------------------------------------------------------------------

def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `splendor review` (docs/REVIEW.md)."""
    from .players.spec import DEFAULT_AI
    p.add_argument("records", nargs="+", metavar="RECORD", help="game record files (docs/RECORDS.md); every "
                   "game in them is reviewed")
    p.add_argument("--game", type=int, metavar="N", help="only the Nth game of each file")
    p.add_argument("--seat", default="all", metavar="N|all", help="the seat to review (default: all)")
    lim = p.add_mutually_exclusive_group()
    lim.add_argument("--seconds", type=float, metavar="S", help="search time per move")
    lim.add_argument("--iterations", type=int, metavar="N", help="search iterations per move")
    p.add_argument("--spec", default=DEFAULT_AI, help=f"the search player (default {DEFAULT_AI!r})")
    p.add_argument("--seed", type=int, default=0, help="search seed (default 0)")
    p.add_argument("--top", type=int, default=DEFAULT_TOP_K, metavar="K",
                   help=f"alternatives kept at each mistake (default {DEFAULT_TOP_K})")
    par = p.add_mutually_exclusive_group()
    par.add_argument("-j", "--jobs", type=int, default=1, metavar="N", help="turns reviewed at once on local "
                     "processes (default 1)")
    par.add_argument("--ray", metavar="ADDRESS", help="run the turns as Ray tasks ('local', 'auto' or HOST:PORT)")
    p.add_argument("--resume", metavar="FILE", help="append each finished turn to FILE (JSON lines); a review "
                   "started again with the same FILE and settings skips the turns found there")
    p.add_argument("--json", action="store_true", help="print the splendor-review/1 report (one line per game)")
    p.add_argument("--plot", metavar="FILE.png", help="write the win-rate graph (FILE-2.png... for further games)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


def run_cli(args) -> int:
    """`splendor review`: review the records the arguments name, print the summaries (or the JSON
    reports) and write the plots. Bad input raises CLIError or a SplendorError (exit status 2)."""
    from .errors import CLIError
    from .players.base import Limit
    seat = args.seat
    if seat != "all":
        try:
            seat = int(seat)
        except ValueError:
            raise CLIError(f"--seat: expected a seat number or 'all', got {seat!r}") from None
    limit = Limit(iterations=args.iterations, seconds=args.seconds)
    records = []
    for path in args.records:
        try:
            found = list(read_records(path))
        except UnicodeDecodeError as e:
            raise CLIError(f"{path}: not a UTF-8 records file ({e.reason} at byte {e.start})") from None
        except IsADirectoryError:
            raise CLIError(f"{path}: is a directory, not a records file") from None
        except RecordError as e:
            raise CLIError(f"{path}: {e}") from None
        if not found:
            raise CLIError(f"{path}: no game record in the file")
        if args.game is not None:
            if not 1 <= args.game <= len(found):
                raise CLIError(f"--game {args.game}: {path} holds {len(found)} game(s)")
            found = [found[args.game - 1]]
        records += found
    reviews = review_records(records, limit if limit.to_json() else None, spec=args.spec, seats=seat,
                             seed=args.seed, top_k=args.top, jobs=args.jobs, ray=args.ray, path=args.resume,
                             progress=not args.no_progress)
    from rich.console import Console
    console = Console(highlight=False)
    for i, r in enumerate(reviews):
        if args.json:
            print(json.dumps(r.to_json(), separators=(",", ":"), allow_nan=False))
        else:
            console.print(summary(r))
        if args.plot:
            stem, ext = os.path.splitext(args.plot)
            plot(r, args.plot if i == 0 else f"{stem}-{i + 1}{ext or '.png'}")
    return 0
