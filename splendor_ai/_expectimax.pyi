"""Type stub of the compiled expectimax search (ext/splendor_ai/_expectimax.pyx)."""
from typing import Any

from ._engine import Core


def _init_hash() -> None: ...


class Search:
    """One expectimax search of a view over the given whole-turn root moves. Not thread-safe."""

    tt_hits: int
    nodes: int
    chance_nodes: int
    depth_done: int
    seconds: float
    cpu_seconds: float
    depth_seconds: list[float]

    def __init__(self, view: Core, moves: list[tuple[int, ...]], params: dict[str, Any], seed: int,
                 dets: int = 1) -> None: ...
    def run(self, max_depth: int = 0, seconds: float = 0.0) -> int: ...
    def results(self) -> list[tuple[list[float | None], int, list[int], bool]]: ...
    @property
    def win_value(self) -> float: ...
    @property
    def worlds(self) -> int: ...
