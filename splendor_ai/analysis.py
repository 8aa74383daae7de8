"""Analysis and hints: what the search thinks of a position, from one seat's point of view.

`analyse(position, limit)` runs the MCTS search of `splendor_ai.players.mcts` on a `View` and
reports the ranked candidate moves (visits, win rates for the side to move and for every seat,
prior, principal variation, a plain-English description) and a summary of the root. `hint` turns
that into a best move, a one-line reason and the runner-up.

Hidden information: analysis only ever searches a `View`. Given a `State` (the true game, hidden
cards included), `analyse` takes `state.view(seat)` before anything else and never looks at the
state again, so two true states with the same view of the analysing seat give the same analysis
for the same seed (tests/test_hidden_info.py).

The search is driven here rather than through `Player.choose` so that a long search can report
progress: `_mcts.Search.run` continues the same tree when called again, so running it in chunks
gives exactly the result of one run (for an iteration limit). With the same spec and seed, the
ranked moves are the ones `MCTSPlayer.choose` would produce on a fresh tree, so a hint names the
move the AI of that strength would play.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .errors import ConfigError, SplendorError
from .state import State, View
from .validate import check_int, check_number

DEFAULT_SPEC = "mcts"
DEFAULT_TOP_K = 5
#: with a `stop` callback, the search runs in chunks of at most this many seconds and asks it
#: between chunks: the latency of stopping a search early
STOP_CHECK_SECONDS = 0.05


class AnalysisError(SplendorError):
    """A position or request that cannot be analysed (game over, wrong seat, non-search player)."""


@dataclass(frozen=True)
class MoveAnalysis:
    """One candidate move of the side to move, as the search sees it."""

    move: str                          # whole turn, canonical notation
    visits: int
    winrate: float | None              # expected result of the side to move (None: never visited)
    prior: float
    pv: tuple[str, ...]                # the expected line, starting with `move`
    seat_winrates: tuple[float | None, ...]
    description: str | None            # plain English (None when it cannot be described)

    def to_json(self, order: int | None = None) -> dict:
        out = {"move": self.move, "visits": self.visits, "winrate": _num(self.winrate),
               "prior": _num(self.prior), "pv": list(self.pv), "description": self.description,
               "seatWinrates": [_num(v) for v in self.seat_winrates]}
        if order is not None:
            out = {"order": order, **out}
        return out


@dataclass(frozen=True)
class Analysis:
    seat: int                          # the analysing seat (whose view was searched)
    to_move: int
    turn: int
    position: str                      # the analysing seat's view, as a position string
    moves: tuple[MoveAnalysis, ...]    # ranked, best first, at most top_k
    legal_moves: int | None            # count (None when the analysing seat is not to move)
    iterations: int
    visits: int                        # root visits: iterations that reached a candidate move
    seconds: float
    nodes: int
    winrate: float | None              # the side to move's current expected result
    seat_winrates: tuple[float | None, ...]
    spec: str
    seed: int
    done: bool = True                  # False for a progress report during the search

    @property
    def best(self) -> MoveAnalysis:
        return self.moves[0]

    def root_json(self) -> dict:
        return {"seat": self.seat, "toMove": self.to_move, "turn": self.turn,
                "winrate": _num(self.winrate), "seatWinrates": [_num(v) for v in self.seat_winrates],
                "iterations": self.iterations, "visits": self.visits, "seconds": round(self.seconds, 3),
                "nodes": self.nodes, "legalMoves": self.legal_moves, "spec": self.spec,
                "seed": self.seed, "position": self.position}

    def to_json(self) -> dict:
        return {"isDuringSearch": not self.done,
                "moveInfos": [m.to_json(i) for i, m in enumerate(self.moves)],
                "rootInfo": self.root_json()}


@dataclass(frozen=True)
class Hint:
    move: str
    description: str | None
    reason: str                        # one line: why, in search figures
    runner_up: MoveAnalysis | None
    analysis: Analysis

    def to_json(self) -> dict:
        return {"move": self.move, "description": self.description, "reason": self.reason,
                "runnerUp": self.runner_up.to_json() if self.runner_up else None,
                "moveInfos": [m.to_json(i) for i, m in enumerate(self.analysis.moves)],
                "rootInfo": self.analysis.root_json()}


def _num(x):
    return None if x is None or x != x else round(float(x), 4)


def _nan_to_none(x: float) -> float | None:
    return None if x != x else x


def pct(x: float | None) -> str:
    """A win rate as a percentage for people ("n/a" when the move was never visited)."""
    return "n/a" if x is None else f"{100 * x:.0f}%"


def _make_search_player(spec: str, seed: int, caps=None):
    """The MCTS player a spec describes (its parameters drive the search), checked against the
    table of bounds (players/bounds.py) and a front end's `caps`. Analysis needs a searching
    player of hidden information: `mcts` in ISMCTS or PIMC mode."""
    from .players.bounds import short
    from .players.spec import check_spec, make_player
    name, kwargs = check_spec(spec, caps)
    if name != "mcts":
        raise ConfigError(f"spec {short(spec)}: analysis needs a search player, i.e. an mcts(...) spec")
    if kwargs.get("mode") == "perfect":
        raise ConfigError(f"spec {short(spec)}: mode='perfect' searches the true state, which analysis never sees")
    return make_player(spec, seed)


def check_search_spec(spec: str, caps=None) -> str:
    """`spec` stripped if it is a spec analysis can search with (an mcts spec of hidden
    information within the table of bounds and `caps`), else ConfigError (a BoundsError naming
    the parameter when it is out of bounds)."""
    _make_search_player(spec, 0, caps).close()
    return spec.strip()


def as_limit(limit):
    """A `players.Limit` from a Limit, a JSON object ({"iterations": N} and/or {"seconds": S}) or
    None (the spec's own budget)."""
    from .players.base import Limit
    if limit is None or isinstance(limit, Limit):
        return limit
    return Limit.from_json(limit)


def _check_seed(seed) -> int:
    return check_int(seed, "seed", 0, 2 ** 64 - 1, ConfigError, expect="an integer in [0, 2**64)", must=True)


def analyse(position: View | State, limit=None, top_k: int = DEFAULT_TOP_K, spec: str = DEFAULT_SPEC,
            seed: int = 0, seat: int | None = None,
            progress: Callable[[Analysis], None] | None = None,
            report_every: float | None = None,
            stop: Callable[[], bool] | None = None) -> Analysis:
    """Search `position` from the view of `seat` (default: the seat to move) and rank the moves.

    `position` is a View, or a State whose view is taken first (nothing else is read from it).
    `limit` is a `players.Limit` or its JSON object (iterations and/or seconds, checked against
    the table of bounds of players/bounds.py; unset: the spec's own limit). With
    `progress` and `report_every` (seconds), `progress(partial_analysis)` is called about that
    often while the search runs. With `stop`, the search asks `stop()` every
    STOP_CHECK_SECONDS and, once it answers true, ends early with the analysis so far (the
    engine protocol's `terminate`). Running in chunks does not change the result of a search
    under an iteration limit: the same tree is continued."""
    if isinstance(position, State):
        if seat is not None:
            check_int(seat, "seat", 0, position.players - 1, AnalysisError, expect=f"0-{position.players - 1}",
                      must=True)
        view = position.view(seat)          # first: the search never sees the true state
        del position
    elif isinstance(position, View):
        view = position
        if seat is not None and seat != view.seat:
            raise AnalysisError(f"seat {seat}: this is seat {view.seat}'s view; analyse a State to choose the seat")
    else:
        raise TypeError(f"analyse() takes a View or a State, not {type(position).__name__}")
    check_int(top_k, "top_k", 1, None, ConfigError, expect="a positive integer", must=True)
    _check_seed(seed)
    limit = as_limit(limit)
    if report_every is not None:
        check_number(report_every, "report_every", 0, None, ConfigError, lo_open=True,
                     expect="a positive number of seconds", must=True)
    ended = view.result()
    if ended is not None:
        raise AnalysisError(f"the game is over ({ended.reason}): there is no move to analyse")
    return _Search(view, spec, seed, limit).run(top_k, progress, report_every, stop)


def hint(position: View | State, limit=None, spec: str = DEFAULT_SPEC, seed: int = 0,
         seat: int | None = None, top_k: int = DEFAULT_TOP_K, stop: Callable[[], bool] | None = None) -> Hint:
    """The best move for the seat to move, a one-line reason and the runner-up (`stop` as for
    `analyse`: the hint of a search ended early)."""
    view_seat = position.seat if isinstance(position, View) else seat
    if view_seat is not None and view_seat != position.to_move:
        raise AnalysisError(f"seat {view_seat} is not to move (seat {position.to_move} is): a hint is for the "
                            "seat to move")
    a = analyse(position, limit, max(2, top_k), spec, seed, seat, stop=stop)
    best = a.moves[0]
    runner = a.moves[1] if len(a.moves) > 1 else None
    return Hint(best.move, best.description, _reason(a, best, runner), runner, a)


_VERBS = (("takes", "Take"), ("reserves", "Reserve"), ("buys", "Buy"), ("passes", "Pass"))
_CLAUSES = ((" and takes a gold token", " and take a gold token"), (" from their hand", " from your hand"),
            (", then returns ", ", then return "), (", and is visited by noble", ", and get a visit from noble"),
            # the Cities of Splendor decisions (State.describe)
            (", attaching the joker to their ", ", attaching the joker to your "),
            (", reserves noble ", ", reserve noble "), (" for themselves", " for yourself"),
            (", takes card #", ", take card #"), (", places a stronghold", ", place a stronghold"),
            (", moves a stronghold", ", move a stronghold"), (", removes an opponent's", ", remove an opponent's"),
            (", then conquers ", ", then conquer "), (" of their strongholds", " of your strongholds"),
            (", takes an extra ", ", take an extra "), (", and claims ", ", and claim "))


def imperative(description: str) -> str:
    """'Player 1 buys card #4 ..., paying 2 red.' -> 'Buy card #4 ..., paying 2 red' (advice to the
    mover); a sentence of another shape is returned without its final full stop."""
    import re
    text = description.rstrip(".")
    m = re.match(r"Player \d+ (\w+) ", text)
    verbs = dict(_VERBS)
    if not m or m[1] not in verbs:
        return text
    text = verbs[m[1]] + " " + text[m.end():]
    for old, new in _CLAUSES:
        text = text.replace(old, new)
    return text


def _reason(a: Analysis, best: MoveAnalysis, runner: MoveAnalysis | None) -> str:
    what = imperative(best.description) if best.description else best.move
    if a.legal_moves == 1:
        return f"{what} (the only legal move)"
    figures = f"{pct(best.winrate)} win rate, {best.visits} of {a.visits} visits"
    text = f"{what} ({figures})"
    if runner is not None:
        text += f"; runner-up {runner.move} at {pct(runner.winrate)}"
    return text


class _Search:
    """One analysis: the MCTS player's own search (`MCTSPlayer.new_search`), run in chunks when
    reporting progress."""

    def __init__(self, view: View, spec: str, seed: int, limit):
        self.view, self.spec, self.seed = view, spec, seed
        self.player = _make_search_player(spec, seed)
        self.search = self.player.new_search(view, limit)

    def run(self, top_k: int, progress=None, report_every: float | None = None, stop=None) -> Analysis:
        try:
            every = report_every if progress is not None else None   # None: no progress reports
            if every is None and stop is None:
                self.search.run()
                return self._collect(top_k, done=True)
            chunk = min(x for x in (every, STOP_CHECK_SECONDS if stop else None)
                        if x is not None)
            since_report = 0.0
            while not (stop is not None and stop()):
                before = self.search.elapsed
                self.search.run(chunk)
                if self.search.done():
                    break
                since_report += self.search.elapsed - before
                if every is not None and (stop is None or since_report >= 0.9 * every):
                    since_report = 0.0
                    progress(self._collect(top_k, done=False))
            return self._collect(top_k, done=True)
        finally:
            self.player.close()

    def _collect(self, top_k: int, done: bool) -> Analysis:
        view, search = self.view, self.search
        infos = tuple(MoveAnalysis(str(m.move), m.visits, _nan_to_none(m.value), m.prior, m.pv,
                                   tuple(_nan_to_none(v) for v in m.values), self._describe(str(m.move)))
                      for m in search.ranked(top_k))
        visits, seat_wr = search.root_summary()
        seat_wr = tuple(_nan_to_none(v) for v in seat_wr)
        mover_view = view.seat == view.to_move
        return Analysis(
            seat=view.seat, to_move=view.to_move, turn=view.turn, position=view.position(),
            moves=infos, legal_moves=len(view.legal_moves) if mover_view else None,
            iterations=search.iterations_done, visits=visits, seconds=search.elapsed,
            nodes=sum(t.nodes_used for t in search.trees), winrate=seat_wr[view.to_move],
            seat_winrates=seat_wr, spec=self.spec, seed=self.seed, done=done)

    def _describe(self, move: str) -> str | None:
        view = self.view
        try:
            if view.seat == view.to_move:
                return view.describe(move)
            # another seat is to move: its hidden cards are unknown to this view, so describe
            # the move in a world sampled from the view (public facts only, e.g. the payment)
            from .players.mcts import derive_seed
            world = view.resample(derive_seed(self.seed, view.turn, 1))
            return world.describe(move) if move in world.legal_moves else None
        except SplendorError:
            return None
