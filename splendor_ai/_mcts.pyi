"""Type stub of the compiled tree search (ext/splendor_ai/_mcts.pyx)."""
from typing import Any, Iterable

from ._engine import Core


def set_prior_cache(on: bool) -> None: ...


class Search:
    """One search over a view (or a true state in PERFECT mode). Not thread-safe; one per player."""

    cache_hits: int
    cache_misses: int
    iterations: int
    seconds: float
    force_key: int

    def __init__(self, view: Core, params: dict[str, Any], seed: int, mode: int = 0, dets: int = 1,
                 max_nodes: int = 20_000_000) -> None: ...
    def run(self, iterations: int = 0, seconds: float = 0.0) -> int: ...
    def root_stats(self) -> list[tuple[int, int, list[float], float]]: ...
    def principal_variation(self, key: int, max_len: int = 40, min_visits: int = 1) -> list[tuple[int, int, int]]: ...
    def advance(self, keys: Iterable[int], view: Core) -> bool: ...
    @property
    def nodes_used(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...
    @property
    def root_visits(self) -> int: ...
