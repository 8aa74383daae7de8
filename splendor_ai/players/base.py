"""The one interface every bot implements, and what a search reports back."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..move import Move
from ..state import View


@dataclass(frozen=True)
class Limit:
    """How long a bot may think. Unset fields fall back to the bot's own defaults."""

    iterations: int | None = None
    seconds: float | None = None
    dets: int | None = None     # determinizations (PIMC worlds, expectimax samples)
    depth: int | None = None    # expectimax depth


@dataclass(frozen=True)
class MoveInfo:
    """One candidate at the root: its whole-turn move and what the search thinks of it."""

    move: Move
    visits: int
    value: float                # expected result for the seat to move (win = 1, share = 1/k)
    prior: float
    pv: tuple[str, ...] = ()    # the line expected after it, in move notation
    values: tuple[float, ...] = ()  # expected result of every seat

    def to_json(self) -> dict:
        return {"move": str(self.move), "visits": self.visits, "winrate": _num(self.value),
                "prior": _num(self.prior), "pv": list(self.pv), "seat_winrates": [_num(v) for v in self.values]}


def _num(x: float):
    """JSON has no NaN: an unvisited move has no win rate (null)."""
    return None if x != x else round(x, 4)


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
        return {"moves": [m.to_json() for m in self.moves], "iterations": self.iterations,
                "seconds": round(self.seconds, 4), "seed": self.seed, "nodes": self.nodes,
                "memory_bytes": self.memory_bytes, **self.extra}


@dataclass(frozen=True)
class Decision:
    move: Move
    info: SearchInfo


class Player:
    """A bot. It sees only a `View` (one seat's information), never the true state."""

    #: the spec string the player was built from (records and reports carry it)
    spec: str = "player"

    def choose(self, view: View, limit: Limit | None = None) -> Decision:
        raise NotImplementedError

    def reset(self) -> None:
        """Forget anything kept between moves (a new game starts)."""

    def close(self) -> None:
        """Release worker processes or other resources."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.spec}>"
