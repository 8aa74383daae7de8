"""Training examples: positions encoded for their seat to move, with policy and value targets.

Sources: self-play files (splendor_ai.train.selfplay: the search's visit counts are the policy
target) and game records (splendor_ai.records: the move played is the policy target, at a lower
weight). Both give the game's outcome as the value target, and self-play also the search's mean
result (`q`), which `Examples.value_target` can blend in.

Examples are held as ragged numpy arrays (a few hundred feature pairs and a few dozen legal keys per
position) and saved as one `.npz` per source file, so a training run re-encodes only new data; a
cache whose features version differs is rebuilt.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

import numpy as np

from .. import _features
from ..state import Move, State
from .reference import MAXACTIVE
from .selfplay import read_games

if TYPE_CHECKING:
    from ..records import GameRecord

CACHE_FORMAT = "splendor-examples/2"   # 2: the evaluation's terms among the features


@dataclass
class Examples:
    """N positions: features (CSR: feat_off[i]:feat_off[i+1] into feat_idx / feat_val; the classic
    evaluation's terms included, at indices from NFEAT, which a model without them drops), legal action
    keys with their policy targets (CSR over key_off), value targets per seat counted from the mover
    (`z`: the outcome, `q`: the search's mean result, NaN when unknown), the player count, the module
    index (0 base, 1-4 cities, orient, posts, strongholds), a policy weight and the source game."""

    feat_off: np.ndarray
    feat_idx: np.ndarray
    feat_val: np.ndarray
    key_off: np.ndarray
    keys: np.ndarray
    probs: np.ndarray
    z: np.ndarray
    q: np.ndarray
    players: np.ndarray
    module: np.ndarray
    pweight: np.ndarray
    game: np.ndarray

    def __len__(self) -> int:
        return len(self.z)

    @staticmethod
    def concat(parts: list["Examples"]) -> "Examples":
        parts = [p for p in parts if len(p)]
        if not parts:
            return empty()
        out = {}
        for name in ("feat_idx", "feat_val", "keys", "probs", "z", "q", "players", "module", "pweight", "game"):
            out[name] = np.concatenate([getattr(p, name) for p in parts])
        for name, data in (("feat_off", "feat_idx"), ("key_off", "keys")):
            offs, base = [np.zeros(1, np.int64)], 0
            for p in parts:
                offs.append(getattr(p, name)[1:] + base)
                base += len(getattr(p, data))
            out[name] = np.concatenate(offs)
        return Examples(**out)

    def subset(self, rows: np.ndarray) -> "Examples":
        """The examples at `rows` (any order, repeats allowed)."""
        rows = np.asarray(rows, np.int64)
        fi, fo = _gather(self.feat_off, rows)
        ki, ko = _gather(self.key_off, rows)
        return Examples(fo, self.feat_idx[fi], self.feat_val[fi], ko, self.keys[ki], self.probs[ki], self.z[rows],
                        self.q[rows], self.players[rows], self.module[rows], self.pweight[rows], self.game[rows])

    def value_target(self, q_weight: float) -> np.ndarray:
        """(1 - q_weight) * outcome + q_weight * search value (the outcome alone where q is unknown)."""
        q = np.where(np.isnan(self.q), self.z, self.q)
        return ((1 - q_weight) * self.z + q_weight * q).astype(np.float32)

    def save(self, path, meta: dict) -> None:
        tmp = f"{path}.tmp"
        with open(tmp, "wb") as f:
            np.savez(f, meta=np.array(json.dumps(dict(meta, format=CACHE_FORMAT,
                                                      features=_features.FEATURES["version"]))),
                     **{k: getattr(self, k) for k in self.__dataclass_fields__})
        os.replace(tmp, path)

    @staticmethod
    def load(path) -> tuple["Examples", dict] | None:
        """The examples and meta of a cache file, None when it is missing or of another format."""
        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                if meta.get("format") != CACHE_FORMAT or meta.get("features") != _features.FEATURES["version"]:
                    return None
                return Examples(**{k: z[k] for k in Examples.__dataclass_fields__}), meta
        except (OSError, ValueError, KeyError):
            return None


def empty() -> Examples:
    z = np.zeros((0, 4), np.float32)
    return Examples(np.zeros(1, np.int64), np.zeros(0, np.int16), np.zeros(0, np.float32), np.zeros(1, np.int64),
                    np.zeros(0, np.int16), np.zeros(0, np.float32), z, z.copy(), np.zeros(0, np.int8),
                    np.zeros(0, np.int8), np.zeros(0, np.float32), np.zeros(0, np.int32))


def _gather(off: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Element indices and new offsets of the CSR rows `rows`."""
    lens = off[rows + 1] - off[rows]
    new_off = np.zeros(len(rows) + 1, np.int64)
    np.cumsum(lens, out=new_off[1:])
    starts = np.repeat(off[rows] - new_off[:-1], lens)
    return np.arange(new_off[-1], dtype=np.int64) + starts, new_off


MODULE_INDEX = {None: 0, "cities": 1, "orient": 2, "posts": 3, "strongholds": 4}


class _Builder:
    def __init__(self):
        self.fi, self.fv, self.fo = [], [], [0]
        self.k, self.p, self.ko = [], [], [0]
        self.z, self.q, self.players, self.module, self.pw, self.game = [], [], [], [], [], []
        self.idx = np.zeros(MAXACTIVE, np.int32)
        self.val = np.zeros(MAXACTIVE, np.float32)

    def add(self, core, seat: int, visits: dict[int, float], z, q, module: int, pweight: float, game: int):
        n = _features.encode_into(core, seat, self.idx, self.val, True)
        self.fi.append(self.idx[:n].astype(np.int16))
        self.fv.append(self.val[:n].copy())
        self.fo.append(self.fo[-1] + n)
        legal = sorted({core.action_key(a) for a in core.legal_actions()})
        total = sum(visits.get(k, 0) for k in legal)
        self.k.append(np.array(legal, np.int16))
        self.p.append(np.array([visits.get(k, 0) / total for k in legal], np.float32))
        self.ko.append(self.ko[-1] + len(legal))
        np_ = core.nplayers
        rel = lambda v: [v[(seat + r) % np_] if r < np_ else 0.0 for r in range(4)]   # noqa: E731
        self.z.append(rel(z))
        self.q.append(rel(q) if q is not None else [np.nan] * 4)
        self.players.append(np_)
        self.module.append(module)
        self.pw.append(pweight)
        self.game.append(game)

    def build(self) -> Examples:
        if not self.z:
            return empty()
        return Examples(np.array(self.fo, np.int64), np.concatenate(self.fi), np.concatenate(self.fv),
                        np.array(self.ko, np.int64), np.concatenate(self.k), np.concatenate(self.p),
                        np.array(self.z, np.float32), np.array(self.q, np.float32), np.array(self.players, np.int8),
                        np.array(self.module, np.int8), np.array(self.pw, np.float32), np.array(self.game, np.int32))


def from_selfplay(path) -> Examples:
    """The examples of a self-play file (every sample of every game)."""
    b = _Builder()
    for g in read_games(path):
        by_turn: dict[int, list[dict]] = {}
        for s in g["samples"]:
            by_turn.setdefault(s["turn"], []).append(s)
        state = State(g["start"])
        module = MODULE_INDEX[g["module"]]
        for turn, move in enumerate(g["moves"] + [None]):
            for s in by_turn.get(turn, ()):
                core = state._core.copy()
                for a in s["pre"]:
                    core.apply(a)
                b.add(core, s["seat"], dict(zip(s["keys"], s["visits"])), g["target"], s["q"], module, 1.0, g["seed"])
            if move is not None:
                state.push(move)
    return b.build()


def from_records(path, pweight: float = 0.5) -> Examples:
    """The examples of a game-records file: every decision of every finished game, with the move
    played as the policy target (weight `pweight`) and the outcome as the value target."""
    from ..records import read_records
    from .selfplay import outcome_target
    b = _Builder()
    for gi, rec in enumerate(read_records(path)):
        if rec.result is None:
            continue
        state = State(rec.start)
        n = state.players
        z = outcome_target(rec.result, n)
        module = MODULE_INDEX[rec.config.module]
        for text in rec.moves:
            # the move's engine actions: a whole two-step turn (a Strongholds purchase and what
            # follows it) is one record move but not one entry of the legal-move table
            move, actions = state._resolve(Move.parse(state._whole_text(text)))
            core = state._core.copy()
            for a in actions:
                if len(core.legal_actions()) > 1:
                    b.add(core, core.to_move, {core.action_key(a): 1.0}, z, None, module, pweight, gi)
                core.apply(a)
            state.push(move)
    return b.build()


SEARCH_KINDS = ("mcts", "expectimax")


def select_records(paths, players: int, module: str | None = None,
                   exclude_seeds: tuple[tuple[int, int], ...] = ()) -> Iterator[GameRecord]:
    """The finished games of the records files `paths` (in order, each game once) with `players`
    players and `module` (None: the base game) between search players only (every seat an mcts or
    expectimax spec: a greedy or random seat's moves would be policy targets too), whose deal seed
    lies in none of the inclusive ranges `exclude_seeds` (the deals kept for testing a network
    trained on the rest)."""
    from ..records import read_records
    seen: set[tuple] = set()
    for path in paths:
        for rec in read_records(path):
            if (rec.result is None or rec.config.players != players or rec.config.module != module
                    or any(p.split("(")[0] not in SEARCH_KINDS for p in rec.players)
                    or (rec.seed is not None and any(lo <= rec.seed <= hi for lo, hi in exclude_seeds))):
                continue
            key = (rec.start, tuple(rec.players), tuple(rec.moves))
            if key not in seen:
                seen.add(key)
                yield rec


def cached(source, kind: str, cache_dir) -> Examples:
    """The examples of a source file, from its cache in `cache_dir` when that is up to date (same size
    and modification time of the source, same features version), else built and cached."""
    source = Path(source)
    st = source.stat()
    cache = Path(cache_dir) / f"{source.name}.{kind}.npz"
    got = Examples.load(cache) if cache.exists() else None
    if got is not None and got[1].get("size") == st.st_size and got[1].get("mtime") == st.st_mtime:
        return got[0]
    ex = from_selfplay(source) if kind == "selfplay" else from_records(source)
    Path(cache_dir).mkdir(parents=True, exist_ok=True)
    ex.save(cache, {"source": str(source), "size": st.st_size, "mtime": st.st_mtime})
    return ex
