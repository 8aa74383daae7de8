"""Determinized Monte Carlo tree search players (the search loop is ext/splendor_ai/_mcts.pyx)."""
from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

from .. import _mcts, _policy
from ..errors import ConfigError
from ..move import Move
from ..state import State, View
from .base import Decision, Limit, MoveInfo, Player, SearchInfo
from .evaluation import DEFAULT_SCALE, DEFAULT_WEIGHTS
from .keys import is_decision, line_to_moves, move_keys

MODES = {"ismcts": 0, "pimc": 1, "perfect": 2}


def derive_seed(seed: int, *parts: int) -> int:
    """A 64-bit seed for one search, from the player's seed and the position's turn."""
    x = seed & (2 ** 64 - 1)
    for p in parts:
        x = (x ^ (p + 0x9E3779B97F4A7C15 + (x << 6) + (x >> 2))) & (2 ** 64 - 1)
    return x


class MCTSPlayer(Player):
    """ISMCTS (default), PIMC (`mode="pimc"`, `dets` worlds) or perfect-information MCTS
    (`mode="perfect"`, experiments only: it must be handed the true state).

    Parameters: iterations / seconds (the default limit), c (exploration), puct (priors from the
    heuristic action scores; False = plain UCT), prior_temp, fpu, eps (playout randomness),
    cutoff (playout turns before evaluating; 0 = play to the end), rollout ("policy" or
    "random"), eval_scale, weights, reuse (keep the tree between moves), workers (root-parallel
    searches on threads; the C search runs without the GIL, so they use all cores)."""

    def __init__(self, seed: int = 0, iterations: int | None = None, seconds: float | None = None,
                 c: float = 1.5, puct: bool = True, prior_temp: float = 0.5, fpu: float = 0.1,
                 eps: float = 0.1, cutoff: int = 0, rollout: str = "policy", eval_scale: float = DEFAULT_SCALE,
                 weights=DEFAULT_WEIGHTS, mode: str = "ismcts", dets: int = 8, reuse: bool = True,
                 workers: int = 1, max_nodes: int = 20_000_000):
        if mode not in MODES:
            raise ConfigError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        if rollout not in ("policy", "random"):
            raise ConfigError(f"rollout must be 'policy' or 'random', got {rollout!r}")
        if iterations is None and seconds is None:
            iterations = 2000
        for name, v in (("iterations", iterations), ("seconds", seconds)):
            if v is not None and (not isinstance(v, (int, float)) or v <= 0):
                raise ConfigError(f"{name} must be positive, got {v!r}")
        if not isinstance(workers, int) or workers < 1:
            raise ConfigError(f"workers must be a positive integer, got {workers!r}")
        if len(weights) != 10:
            raise ConfigError("weights must hold 10 numbers (see splendor_ai/players/evaluation.py)")
        self.seed = seed
        self.iterations, self.seconds = iterations, seconds
        self.mode, self.dets, self.workers, self.max_nodes = mode, dets, workers, max_nodes
        self.reuse = reuse and mode == "ismcts" and workers == 1
        self.perfect_information = mode == "perfect"
        self.params = {"c": float(c), "puct": int(bool(puct)), "prior_temp": float(prior_temp),
                       "fpu": float(fpu), "eps": float(eps), "random_rollout": int(rollout == "random"),
                       "cutoff": int(cutoff), "eval_scale": float(eval_scale),
                       "weights": [float(w) for w in weights]}
        self._pool = ThreadPoolExecutor(workers) if workers > 1 else None
        self.reset()

    def reset(self) -> None:
        self._tree = None
        self._since: list[int] = []   # keys of the moves played since the tree's root
        self._pending_noble: list[int | None] = []

    def close(self) -> None:
        if self._pool:
            self._pool.shutdown()

    def observe(self, move: Move) -> None:
        """Tell the player a move was played (by anyone), for tree reuse."""
        if self._tree is not None:
            keys, noble = move_keys(move)
            self._since.append((keys, noble))

    def _reused_tree(self, core):
        if not (self.reuse and self._tree is not None):
            return None
        # the noble of a move is a tree key only where it was a choice; try it, then without
        path = [[]]
        for keys, noble in self._since:
            path = [p + keys + ([noble] if noble is not None and with_noble else [])
                    for p in path for with_noble in ((True, False) if noble is not None else (False,))]
            if len(path) > 64:
                return None
        for p in path:
            if self._tree.advance(p, core):
                return self._tree
        return None

    def choose(self, view: View | State, limit: Limit | None = None) -> Decision:
        if isinstance(view, State) and not self.perfect_information:
            raise TypeError("a hidden-information player is given a View, never the true State")
        if self.perfect_information and not isinstance(view, State):
            raise TypeError("mode='perfect' searches the true State; it is for experiments only")
        limit = limit or Limit()
        iterations = limit.iterations or (self.iterations if limit.seconds is None else None)
        seconds = limit.seconds or (self.seconds if limit.iterations is None else None)
        dets = limit.dets or self.dets
        seed = derive_seed(self.seed, view.turn)
        core = view._core
        mode = MODES[self.mode]
        searches = []
        tree = self._reused_tree(core)
        if tree is None:
            tree = _mcts.Search(core, self.params, seed, mode, dets, self.max_nodes)
        searches.append(tree)
        for w in range(1, self.workers):
            searches.append(_mcts.Search(core, self.params, derive_seed(seed, w), mode, dets, self.max_nodes))
        per_worker = None if iterations is None else max(1, math.ceil(iterations / self.workers))
        run = lambda s: s.run(per_worker or 0, seconds or 0.0)
        if self._pool:
            list(self._pool.map(run, searches))
        else:
            run(tree)
        stats: dict[int, list] = {}
        legal_keys = {core.action_key(a) for a in core.legal_actions()}
        for s in searches:
            for key, visits, wsum, prior in s.root_stats():
                if key not in legal_keys:  # a reused tree holds children of cards that never came
                    continue
                e = stats.setdefault(key, [0, [0.0] * len(wsum), prior])
                e[0] += visits
                e[1] = [a + b for a, b in zip(e[1], wsum)]
        seat = view.to_move
        ranked = sorted(stats.items(), key=lambda kv: (kv[1][0], kv[1][1][seat]), reverse=True)
        infos = []
        for key, (visits, wsum, prior) in ranked:
            line = [k for k, _, _ in tree.principal_variation(key)]
            move = self._complete(view, key, line)
            pv = line_to_moves(line) or [str(move)]
            pv[0] = str(move)
            values = tuple(w / visits if visits else float("nan") for w in wsum)
            infos.append(MoveInfo(move, visits, values[seat], prior, tuple(pv), values))
        if not infos:  # no iteration reached the root's children (a one-iteration budget)
            move = self._complete(view, None, [])
            infos.append(MoveInfo(move, 0, float("nan"), 1.0, (str(move),)))
        total_iters = sum(s.iterations for s in searches)
        info = SearchInfo(moves=tuple(infos), iterations=total_iters, seconds=max(s.seconds for s in searches),
                          seed=seed, nodes=sum(s.nodes_used for s in searches),
                          memory_bytes=sum(s.memory_bytes for s in searches),
                          extra={"mode": self.mode, "workers": self.workers})
        if self.reuse:
            self._tree = tree
            self._since = []
        return Decision(infos[0].move, info)

    def _complete(self, view, key, line) -> Move:
        """The whole turn that starts with root key `key`: the decisions the tree prefers, then
        the playout policy's for any the tree has not explored."""
        core = view._core.copy()
        seat = core.to_move
        actions = []
        todo = list(line[1:]) if key is not None else []
        first = True
        while first or (core.phase != 0 and not core.over):
            legal = core.legal_actions()
            by_key = {core.action_key(a): a for a in legal}
            if first and key is not None:
                a = by_key[key]
            elif todo and is_decision(todo[0]) and todo[0] in by_key:
                a = by_key[todo.pop(0)]
            else:
                a = _policy.policy_action(core, derive_seed(self.seed, view.turn, len(actions)), 0.0)
            core.apply(a)
            actions.append(a)
            first = False
        table = view.legal_moves._table
        for move, seq in table.items():
            if seq == tuple(actions):
                return move
        raise AssertionError(f"search produced an action sequence {actions} that is not a legal turn")
