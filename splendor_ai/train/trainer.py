"""Training the network on examples: Adam on the value and policy cross-entropies, resumable.

`train` keeps a checkpoint (model, optimiser, step, the batch sampler's state, the loss history) in
its run folder and continues from it when started again, so a run killed at any point loses at most
the steps since the last checkpoint and replays none twice. Batches are drawn with replacement by a
seeded generator: the same examples, settings and seed give the same network.
"""
from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from .dataset import Examples
from .model import Net, batch_tensors, losses


@dataclass(frozen=True)
class TrainSettings:
    h1: int = 128
    h2: int = 64
    batch: int = 1024
    steps: int = 20000
    lr: float = 2e-3
    lr_final: float = 1e-4        # cosine decay from lr to lr_final over the steps
    weight_decay: float = 1e-4
    q_weight: float = 0.5         # value target: (1 - q_weight) * outcome + q_weight * search value
    policy_weight: float = 1.0
    seed: int = 0
    eval_every: int = 500
    threads: int = 1
    terms: bool = False           # the first layer also reads the classic evaluation's terms


def split_by_game(ex: Examples, held_out: float = 0.05, seed: int = 0,
                  train_share: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Row indices of a train / validation split that keeps each game on one side. `train_share`
    < 1 trains on that share of the training games only, drawn after the held-out ones so that the
    held-out games stay the same and a smaller share's games are among a larger one's: the points
    of a learning curve."""
    games = np.unique(ex.game)
    rng = np.random.default_rng(seed)
    val_games = set(rng.choice(games, max(1, int(len(games) * held_out)), replace=False).tolist())
    is_val = np.isin(ex.game, list(val_games))
    train = np.flatnonzero(~is_val)
    if train_share < 1:
        order = rng.permutation(np.unique(ex.game[train]))
        train = train[np.isin(ex.game[train], order[:max(1, round(len(order) * train_share))])]
    return train, np.flatnonzero(is_val)


def evaluate(model: Net, ex: Examples, rows: np.ndarray, settings: TrainSettings, batch: int = 4096) -> dict:
    """Mean value and policy losses over `rows` (the outcome alone as the value target, so figures
    compare across q weights). Where the rows carry search values (self-play and reanalysed files,
    not records) also how far the value head is from them (`search_kl`, the mean Kullback-Leibler
    divergence of its win probabilities from the search's) and the search values' own loss against
    the outcome (`search_loss`, what a value head equal to them would score), so that a value head
    is seen against the targets it learns from."""
    model.eval()
    vsum = psum = klsum = sqsum = 0.0
    n = nq = 0
    with torch.no_grad():
        for i in range(0, len(rows), batch):
            part = rows[i:i + batch]
            b = batch_tensors(ex, part, 0.0, model.nfeat)
            vl, pl = losses(model, b)
            vsum += vl.item() * len(part)
            psum += pl.item() * len(part)
            n += len(part)
            known = ~np.isnan(ex.q[part]).any(1)
            if known.any():
                seats = b[6].numpy()[known]
                logp = torch.log_softmax(model(*b[:3])[0].masked_fill(~b[6], float("-inf")), 1).numpy()[known]
                # the search values floored at 1e-4 a seat, as a win probability is never quite 0
                q = np.where(seats, np.maximum(ex.q[part][known], 1e-4), 0.0)
                q /= q.sum(1, keepdims=True)
                logq = np.log(np.where(seats, q, 1.0))
                klsum += float((q * (logq - np.where(seats, logp, 0.0))).sum())
                sqsum += float(-(ex.z[part][known] * logq).sum())
                nq += int(known.sum())
    model.train()
    out = {"value_loss": vsum / max(n, 1), "policy_loss": psum / max(n, 1)}
    if nq:
        out.update(search_kl=klsum / nq, search_loss=sqsum / nq)
    return out


_SHORT = {"value_loss": "value", "policy_loss": "policy"}   # their names in a training history


def describe(losses_of: dict) -> str:
    """One line of `evaluate`'s figures, as `fit` and `evaluate` print them."""
    v = losses_of
    text = f"value {v['value_loss']:.4f}  policy {v['policy_loss']:.4f}"
    if "search_kl" in v:
        text += f"  search values: divergence {v['search_kl']:.4f}, their value {v['search_loss']:.4f}"
    return text + f"  ({v['positions']} positions)"


def evaluate_by_kind(model: Net, ex: Examples, rows: np.ndarray, settings: TrainSettings) -> dict:
    """`evaluate` per kind of game ("2p base", "3p orient", ...) among `rows`."""
    names = ("base", "cities", "orient", "posts", "strongholds")
    out = {}
    for players in (2, 3, 4):
        for m, name in enumerate(names):
            sel = rows[(ex.players[rows] == players) & (ex.module[rows] == m)]
            if len(sel):
                out[f"{players}p {name}"] = dict(evaluate(model, ex, sel, settings), positions=int(len(sel)))
    return out


def train(ex: Examples, train_rows: np.ndarray, val_rows: np.ndarray, settings: TrainSettings, run_dir,
          init: dict | None = None, progress: bool = True, stop_after: int | None = None) -> tuple[Net, list[dict]]:
    """Train (or continue training) a network; returns it and its loss history. `init` (exported
    arrays of a network of the same shape) starts from that network instead of random weights.
    `stop_after` steps (in this call) checkpoint and return early, as an interruption would."""
    from tqdm import tqdm

    run_dir = Path(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(settings.threads)
    torch.manual_seed(settings.seed)
    model = Net(settings.h1, settings.h2, settings.terms)
    if init is not None:
        load_arrays(model, init)
    opt = torch.optim.AdamW(model.parameters(), lr=settings.lr, weight_decay=settings.weight_decay)
    rng = np.random.default_rng(settings.seed)
    step, history = 0, []
    ckpt = run_dir / "checkpoint.pt"
    if ckpt.exists():
        state = torch.load(ckpt, weights_only=False)
        if state["settings"] != asdict(settings):
            raise ValueError(f"{ckpt}: a checkpoint of other settings ({state['settings']}); use another folder")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        rng.bit_generator.state = state["rng"]
        step, history = state["step"], state["history"]
    bar = tqdm(total=settings.steps, initial=step, desc="train", unit="step", disable=not progress)
    run_v = run_p = 0.0
    start = step
    while step < settings.steps:
        t = step / max(1, settings.steps)
        lr = settings.lr_final + 0.5 * (settings.lr - settings.lr_final) * (1 + math.cos(math.pi * t))
        for g in opt.param_groups:
            g["lr"] = lr
        rows = train_rows[rng.integers(0, len(train_rows), settings.batch)]
        vl, pl = losses(model, batch_tensors(ex, rows, settings.q_weight, model.nfeat))
        opt.zero_grad()
        (vl + settings.policy_weight * pl).backward()
        opt.step()
        step += 1
        run_v = 0.98 * run_v + 0.02 * vl.item() if step > 1 else vl.item()
        run_p = 0.98 * run_p + 0.02 * pl.item() if step > 1 else pl.item()
        bar.update(1)
        bar.set_postfix(v=f"{run_v:.3f}", p=f"{run_p:.3f}")
        early = stop_after is not None and step - start >= stop_after
        if step % settings.eval_every == 0 or step == settings.steps or early:
            entry = {"step": step, "lr": lr, "train_value": run_v, "train_policy": run_p}
            if len(val_rows):
                entry.update({"val_" + _SHORT.get(k, k): v for k, v in evaluate(model, ex, val_rows, settings).items()})
            history.append(entry)
            tmp = run_dir / "checkpoint.pt.tmp"
            torch.save({"settings": asdict(settings), "model": model.state_dict(), "opt": opt.state_dict(),
                        "rng": rng.bit_generator.state, "step": step, "history": history}, tmp)
            os.replace(tmp, ckpt)
            with open(run_dir / "history.json", "w") as f:
                json.dump(history, f, indent=1)
        if early:
            break
    bar.close()
    return model, history


def load_arrays(model: Net, arrays: dict) -> None:
    """Set a model's weights from exported arrays (the compiled layout). Arrays of a narrower
    network (hidden layers h1' <= h1, h2' <= h2) fill the leading units, and the extra units keep
    their random input weights with zero output weights: the widened model computes exactly what the
    narrower network did, and training grows the new units from there (a function-preserving
    widening, as Net2Net's). Arrays without the evaluation's terms load into a model with them
    the same way: the terms' rows start at zero."""
    t = lambda a: torch.from_numpy(np.asarray(a, np.float32))   # noqa: E731
    a1, a2 = np.asarray(arrays["w2"]).shape
    rows = np.asarray(arrays["w1"]).shape[0]
    if a1 > model.h1 or a2 > model.h2:
        raise ValueError(f"a {a1}x{a2} network does not fit a {model.h1}x{model.h2} model")
    if rows > model.nfeat:
        raise ValueError("a network reading the evaluation's terms does not fit a model without them")
    with torch.no_grad():
        model.emb.weight[rows:, :a1].zero_()
        model.emb.weight[:rows, :a1].copy_(t(arrays["w1"]))
        model.b1.zero_()
        model.b1[:a1].copy_(t(arrays["b1"]))
        model.fc2.weight[:, a1:].zero_()
        model.fc2.weight[:a2, :a1].copy_(t(arrays["w2"]).T)
        model.fc2.bias[:a2].copy_(t(arrays["b2"]))
        for head, w, b in ((model.value, "wv", "bv"), (model.policy, "wp", "bp")):
            head.weight.zero_()
            head.weight[:, :a2].copy_(t(arrays[w]))
            head.bias.copy_(t(arrays[b]))


def plot_history(history: list[dict], path) -> None:
    """The losses of a training run by step (training batches and held-out positions) as a PNG."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    steps = [h["step"] for h in history]
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
    for i, head in enumerate(("value", "policy")):
        for part, style in (("train", "-"), ("val", "o-")):
            ys = [h.get(f"{part}_{head}") for h in history]
            ax[i].plot(steps, ys, style, label="held out" if part == "val" else "training batches")
        ax[i].set_title(f"{head} loss (cross-entropy)")
        ax[i].set_xlabel("step")
        ax[i].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
