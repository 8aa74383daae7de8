"""The network's forward pass in numpy: the oracle the compiled one (splendor_ai._net) is tested
against, and the reader of the weight layout documented in ext/splendor_ai/_net.pxd."""
from __future__ import annotations

import numpy as np

from .. import _features

MAXACTIVE = _features.FEATURES["maxactive"]
NFEAT = _features.FEATURES["nfeat"]
NFEAT_TERMS = _features.FEATURES["nfeat_terms"]   # with the classic evaluation's terms


def sparse_features(core, seat: int, terms: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The (index, value) pairs the encoder writes for `core` as `seat` may know it (with the
    evaluation's terms when `terms`)."""
    idx = np.zeros(MAXACTIVE, np.int32)
    val = np.zeros(MAXACTIVE, np.float32)
    n = _features.encode_into(core, seat, idx, val, terms)
    return idx[:n].copy(), val[:n].copy()


def dense_features(core, seat: int, terms: bool = False) -> np.ndarray:
    x = np.zeros(NFEAT_TERMS if terms else NFEAT, np.float32)
    idx, val = sparse_features(core, seat, terms)
    np.add.at(x, idx, val)
    return x


def forward(arrays, core, keys) -> tuple[np.ndarray, np.ndarray]:
    """(win probability of every seat, in seat order; policy logits of `keys`) for the seat to move."""
    n, mover = core.nplayers, core.to_move
    x = dense_features(core, mover, arrays["w1"].shape[0] == NFEAT_TERMS).astype(np.float64)
    h1 = np.maximum(0, arrays["b1"] + x @ arrays["w1"])
    h2 = np.maximum(0, arrays["b2"] + h1 @ arrays["w2"])
    v = (arrays["wv"] @ h2 + arrays["bv"])[:n]
    p = np.exp(v - v.max())
    p /= p.sum()
    values = np.empty(n)
    for r in range(n):
        values[(mover + r) % n] = p[r]
    keys = np.asarray(keys, dtype=np.int64)
    logits = arrays["wp"][keys] @ h2 + arrays["bp"][keys]
    return values, logits
