"""Type stub of the network's feature encoder (ext/splendor_ai/_features.pyx)."""
from typing import Any

from ._engine import Core

#: the layout's version, the number of feature indices, the most nonzero entries of a position
FEATURES: dict[str, int]


def encode_into(core: Core, seat: int, idx: Any, val: Any) -> int: ...
