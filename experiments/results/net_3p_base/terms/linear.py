"""The outcome predicted by one linear function of each seat's 16 classic-evaluation terms (the
evaluation's own form, a softmax over the seats), fitted to the training games of the `fit` run of
report.md's section "What the value head lacks" and scored on its held-out games: the same data
files, cache and split (run from the folder that holds them).

    python experiments/results/net_3p_base/terms/linear.py
"""
from pathlib import Path

import numpy as np
import torch

from splendor_ai.train.loop import _examples
from splendor_ai.train.reference import NFEAT
from splendor_ai.train.trainer import split_by_game

torch.manual_seed(0)
ex = _examples(["records:p3rx.jsonl", "p3re.jsonl"], Path("tf/cache"))
train, held = split_by_game(ex, 0.05)
# the terms are the features from NFEAT on: 16 per seat, counted from the seat to move
x = np.zeros((len(ex), 64), np.float32)
row = np.repeat(np.arange(len(ex)), np.diff(ex.feat_off))
t = ex.feat_idx >= NFEAT
x[row[t], ex.feat_idx[t] - NFEAT] = ex.feat_val[t]
X, Z = torch.from_numpy(x).view(-1, 4, 16), torch.from_numpy(ex.z)
seats = torch.from_numpy(np.arange(4)[None] < ex.players[:, None])
linear, offset = torch.nn.Linear(16, 1), torch.nn.Parameter(torch.zeros(4))
opt = torch.optim.Adam([*linear.parameters(), offset], lr=0.01)


def loss(rows):
    v = (linear(X[rows]).squeeze(-1) + offset).masked_fill(~seats[rows], float("-inf"))
    return -(Z[rows] * torch.log_softmax(v, 1).masked_fill(~seats[rows], 0)).sum(1).mean()


rng = np.random.default_rng(0)
for _ in range(2000):
    batch = loss(torch.from_numpy(rng.choice(train, 4096)))
    opt.zero_grad()
    batch.backward()
    opt.step()
with torch.no_grad():
    print(f"held-out value loss of a linear function of the 16 terms: {loss(torch.from_numpy(held)).item():.4f} "
          f"({len(held)} positions)")
