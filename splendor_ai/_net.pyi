"""Type stub of the network's compiled forward pass (ext/splendor_ai/_net.pyx)."""
from typing import Any, Iterable, Mapping

from ._engine import Core

#: the weight arrays of a network, in the order of its file
SHAPES: tuple[str, ...]


class Network:
    """Network weights in the layout the kernels read."""

    def __init__(self, arrays: Mapping[str, Any]) -> None: ...
    @property
    def hidden(self) -> tuple[int, int]: ...
    def evaluate(self, core: Core, keys: Iterable[int] | None = None) -> tuple[list[float], list[float]]: ...
    def bench(self, core: Core, reps: int) -> int: ...
