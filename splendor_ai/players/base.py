"""The one interface every bot implements, and what a search reports back."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from ..move import Move
from ..state import View


@dataclass(frozen=True)
class Limit:
    """How long a bot may think. Unset fields fall back to the bot's own defaults.

    Every field is checked against the table of bounds (`players.bounds`) when the limit is made:
    `Limit(seconds=1e9)` raises BoundsError naming `seconds`."""

    iterations: int | None = None
    seconds: float | None = None
    dets: int | None = None     # determinizations (PIMC worlds, expectimax samples)
    depth: int | None = None    # expectimax depth

    def __post_init__(self):
        from .bounds import check    # here, not at import: pydantic is loaded only when needed
        check("limit", self.to_json())
        if self.seconds is not None:
            object.__setattr__(self, "seconds", float(self.seconds))

    def to_json(self) -> dict:
        """The fields that are set, e.g. {"iterations": 2000}."""
        return {k: v for k, v in (("iterations", self.iterations), ("seconds", self.seconds),
                                   ("dets", self.dets), ("depth", self.depth)) if v is not None}

    @classmethod
    def from_json(cls, obj, *, where: str = "limit", fields: tuple[str, ...] | None = None,
                  caps: Mapping[str, float] | None = None) -> "Limit":
        """A limit from a JSON object such as {"iterations": 2000} or {"seconds": 1}, checked against
        the table of bounds, then against a front end's tighter `caps` (field -> highest value).
        `fields` restricts the fields accepted (default: all four). Raises BoundsError whose
        `field` is e.g. "limit.seconds" (`where` names the object)."""
        from .bounds import BoundsError, check, short
        allowed = fields or LIMIT_FIELDS
        if not isinstance(obj, dict):
            raise BoundsError(f"{where}: expected an object like {{\"iterations\": 2000}} or {{\"seconds\": 1}}, "
                              f"got {short(obj)}", where)
        for k in obj:
            if k not in allowed:
                raise BoundsError(f"{where}: unknown field {short(k, 30)} (known: {', '.join(allowed)})",
                                  f"{where}.{str(k)[:30]}")
        check("limit", obj, caps, where=f"{where}.")
        return cls(**obj)


LIMIT_FIELDS = ("iterations", "seconds", "dets", "depth")


@dataclass(frozen=True)
class MoveInfo:
    """One candidate at the root: its whole-turn move and what the search thinks of it."""

    move: Move
    visits: int
    value: float                # expected result for the seat to move (win = 1, share = 1/k)
    prior: float
    pv: tuple[str, ...] = ()    # the line expected after it, in move notation
    values: tuple[float, ...] = ()  # expected result of every seat

    def to_json(self, order: int | None = None) -> dict:
        """The engine protocol's `moveInfos` entry (camelCase, KataGo style): `order` (when given),
        move, visits, winrate (null: never visited), prior, pv, seatWinrates."""
        out = {"move": str(self.move), "visits": self.visits, "winrate": _num(self.value),
               "prior": _num(self.prior), "pv": list(self.pv), "seatWinrates": [_num(v) for v in self.values]}
        return out if order is None else {"order": order, **out}

    @classmethod
    def from_json(cls, obj: dict) -> "MoveInfo":
        """The inverse of to_json (floats as rounded there); also reads the version-1 snake_case
        `seat_winrates`."""
        values = obj.get("seatWinrates", obj.get("seat_winrates", []))
        return cls(Move.parse(obj["move"]), obj["visits"], _nan(obj["winrate"]), _nan(obj["prior"]),
                   tuple(obj.get("pv", ())), tuple(_nan(v) for v in values))


def _num(x: float):
    """JSON has no NaN: an unvisited move has no win rate (null)."""
    return None if x is None or x != x else round(x, 4)


def _nan(x):
    return float("nan") if x is None else x


def camel(name: str) -> str:
    """snake_case -> camelCase (`nodes_per_s` -> `nodesPerS`): the JSON casing of every response."""
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def snake(name: str) -> str:
    """camelCase -> snake_case, the inverse of `camel` for the names used here."""
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


@dataclass(frozen=True)
class SearchInfo:
    moves: tuple[MoveInfo, ...] = ()   # ranked, best first
    iterations: int = 0
    seconds: float = 0.0
    seed: int | None = None
    nodes: int = 0
    memory_bytes: int = 0
    extra: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        """camelCase, like the engine protocol and the web API: `moveInfos` (MoveInfo.to_json with
        `order`), iterations, seconds, seed, nodes, memoryBytes and the player's extra figures
        (`extra`, their keys in camelCase: nodesPerS, depthSeconds, ...)."""
        return {"moveInfos": [m.to_json(i) for i, m in enumerate(self.moves)], "iterations": self.iterations,
                "seconds": round(self.seconds, 4), "seed": self.seed, "nodes": self.nodes,
                "memoryBytes": self.memory_bytes, **{camel(k): v for k, v in self.extra.items()}}

    @classmethod
    def from_json(cls, obj: dict) -> "SearchInfo":
        """The inverse of to_json; also reads the version-1 snake_case form (`moves`, `memory_bytes`,
        `seat_winrates`, snake_case extra keys). Extra keys come back in snake_case."""
        known = {"moveInfos", "moves", "iterations", "seconds", "seed", "nodes", "memoryBytes", "memory_bytes"}
        moves = obj.get("moveInfos", obj.get("moves", []))
        return cls(tuple(MoveInfo.from_json(m) for m in moves), obj.get("iterations", 0), obj.get("seconds", 0.0),
                   obj.get("seed"), obj.get("nodes", 0), obj.get("memoryBytes", obj.get("memory_bytes", 0)),
                   {snake(k): v for k, v in obj.items() if k not in known})


@dataclass(frozen=True)
class Decision:
    move: Move
    info: SearchInfo


class SearchCancelled(Exception):
    """A search stopped by its `cancel` callback before it chose a move (`Player.think`)."""


class Player:
    """A bot. It sees only a `View` (one seat's information), never the true state, unless it is
    flagged `perfect_information` (experiments only: it is then handed the true State).

    The one interface of every player, as tournaments and front ends use it (through
    `session.GameSession`): `choose(view, limit)` picks a move; `think(view, limit, progress=,
    cancel=)` does the same with progress reports and cancellation; `observe(move)` is told every
    move played, by any seat; `reset()` forgets what was kept between moves (a new game, an undo);
    `close()` releases threads."""

    #: the spec string the player was built from (records and reports carry it)
    spec: str = "player"
    #: True for a player that must be handed the true State (it sees hidden cards): experiments only
    perfect_information: bool = False

    def choose(self, view: View, limit: Limit | None = None) -> Decision:
        raise NotImplementedError

    def think(self, view: View, limit: Limit | None = None, *,
              progress: Callable[[SearchInfo], None] | None = None, report_every: float = 0.2,
              cancel: Callable[[], bool] | None = None) -> Decision:
        """`choose`, with `progress(SearchInfo)` (the search so far, best first) about every
        `report_every` seconds and `cancel()` polled as often (True: SearchCancelled is raised and
        nothing is chosen). This default, for players that do not search in pieces, checks
        `cancel` before it starts and reports nothing midway; MCTS searches in pieces. The move is
        always the one `choose` makes."""
        if cancel is not None and cancel():
            raise SearchCancelled()
        return self.choose(view, limit)

    def observe(self, move: Move) -> None:
        """A move was played (by any seat). Nothing by default; MCTS follows it down its tree."""

    def reset(self) -> None:
        """Forget anything kept between moves (a new game starts)."""

    def close(self) -> None:
        """Release worker processes or other resources."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"
