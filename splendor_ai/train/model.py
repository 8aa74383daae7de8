"""The network in PyTorch, for training only (the `train` extra); its weights export to the layout the
compiled forward pass reads (ext/splendor_ai/_net.pxd), so what is trained is what the search runs.
"""
from __future__ import annotations

import numpy as np
import torch
from torch import nn

from .dataset import Examples
from .reference import NFEAT, NFEAT_TERMS

NKEYS = 1178
NSEATS = 4


class Net(nn.Module):
    """Sparse features -> ReLU(h1) -> ReLU(h2) -> value logits per seat (from the mover) and policy
    logits per action key. The first layer is an EmbeddingBag: the sum of the rows of the active
    features weighted by their values, exactly the compiled kernel's sparse layer. With `terms` it
    also reads the classic evaluation's terms of every seat (_features.encode_terms)."""

    def __init__(self, h1: int = 128, h2: int = 64, terms: bool = False):
        super().__init__()
        self.h1, self.h2, self.terms = h1, h2, terms
        self.nfeat = NFEAT_TERMS if terms else NFEAT
        self.emb = nn.EmbeddingBag(self.nfeat, h1, mode="sum")
        self.b1 = nn.Parameter(torch.zeros(h1))
        self.fc2 = nn.Linear(h1, h2)
        self.value = nn.Linear(h2, NSEATS)
        self.policy = nn.Linear(h2, NKEYS)
        nn.init.normal_(self.emb.weight, 0.0, 0.05)

    @classmethod
    def of(cls, arrays: dict) -> "Net":
        """A model of the shape of exported arrays (its weights not set: trainer.load_arrays)."""
        h1, h2 = np.asarray(arrays["w2"]).shape
        return cls(h1, h2, terms=np.asarray(arrays["w1"]).shape[0] == NFEAT_TERMS)

    def trunk(self, idx, off, val):
        h1 = torch.relu(self.emb(idx, off, per_sample_weights=val) + self.b1)
        return torch.relu(self.fc2(h1))

    def forward(self, idx, off, val):
        h2 = self.trunk(idx, off, val)
        return self.value(h2), self.policy(h2)

    def export(self) -> dict[str, np.ndarray]:
        """The weights in the compiled layout (float32)."""
        f = lambda t: np.ascontiguousarray(t.detach().cpu().numpy(), dtype=np.float32)   # noqa: E731
        return {"w1": f(self.emb.weight), "b1": f(self.b1), "w2": f(self.fc2.weight.T), "b2": f(self.fc2.bias),
                "wv": f(self.value.weight), "bv": f(self.value.bias), "wp": f(self.policy.weight),
                "bp": f(self.policy.bias)}


def batch_tensors(ex: Examples, rows: np.ndarray, q_weight: float, nfeat: int = NFEAT):
    """The tensors of one batch: features (EmbeddingBag input; those at indices from `nfeat`, the
    evaluation's terms for a model without them, left out), legal keys padded with -1, their target
    probabilities, the value target, the seat mask and the policy weights."""
    sub = ex.subset(rows)
    fidx, foff, fval = sub.feat_idx.astype(np.int64), sub.feat_off, sub.feat_val
    keep = fidx < nfeat
    if not keep.all():
        row_of = np.repeat(np.arange(len(rows)), np.diff(foff))
        foff = np.concatenate([[0], np.cumsum(np.bincount(row_of[keep], minlength=len(rows)))])
        fidx, fval = fidx[keep], fval[keep]
    idx = torch.from_numpy(fidx)
    off = torch.from_numpy(foff[:-1])
    val = torch.from_numpy(fval)
    lens = np.diff(sub.key_off)
    width = int(lens.max()) if len(lens) else 1
    keys = np.full((len(rows), width), -1, np.int64)
    probs = np.zeros((len(rows), width), np.float32)
    col = np.arange(len(sub.keys)) - np.repeat(sub.key_off[:-1], lens)
    row = np.repeat(np.arange(len(rows)), lens)
    keys[row, col] = sub.keys
    probs[row, col] = sub.probs
    seats = np.arange(NSEATS)[None, :] < sub.players[:, None]
    return (idx, off, val, torch.from_numpy(keys), torch.from_numpy(probs),
            torch.from_numpy(sub.value_target(q_weight)), torch.from_numpy(seats), torch.from_numpy(sub.pweight))


def losses(model: Net, batch) -> tuple[torch.Tensor, torch.Tensor]:
    """(value loss, policy loss) of a batch: cross-entropies against the target distributions, the
    value's softmax over the seats in the game, the policy's over the legal keys."""
    idx, off, val, keys, probs, z, seats, pweight = batch
    v, p = model(idx, off, val)
    v = v.masked_fill(~seats, float("-inf"))
    vloss = -(z * torch.log_softmax(v, dim=1).masked_fill(~seats, 0.0)).sum(1).mean()
    legal = keys >= 0
    lg = torch.gather(p, 1, keys.clamp(min=0)).masked_fill(~legal, float("-inf"))
    logp = torch.log_softmax(lg, dim=1).masked_fill(~legal, 0.0)
    ploss = (-(probs * logp).sum(1) * pweight).sum() / pweight.sum().clamp(min=1e-6)
    return vloss, ploss
