"""Type stub of the network's feature encoder (ext/splendor_ai/_features.pyx)."""
from typing import Any

from ._engine import Core

#: the layout's version, the number of feature indices (without and with the evaluation's terms),
#: the most nonzero entries of a position, the terms' scales
FEATURES: dict[str, Any]


def encode_into(core: Core, seat: int, idx: Any, val: Any, terms: bool = False) -> int: ...
