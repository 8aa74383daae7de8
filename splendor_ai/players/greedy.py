"""One-ply greedy: the whole turn whose result evaluates best for the mover (the yardstick)."""
from __future__ import annotations

import random

from .. import _policy
from .base import Decision, Limit, MoveInfo, Player, SearchInfo
from .evaluation import DEFAULT_WEIGHTS, MODULE_WEIGHTS


class GreedyPlayer(Player):
    """Scores each legal turn by the mover's evaluation minus the best opponent's, one ply deep.
    The cards drawn into the market are unknown to the seat, so they are left out of the score."""

    def __init__(self, seed: int = 0, weights=DEFAULT_WEIGHTS, module_weights=MODULE_WEIGHTS):
        self.seed = seed
        self.weights = list(weights)
        self.module_weights = list(module_weights)

    def choose(self, view, limit: Limit | None = None) -> Decision:
        rng = random.Random(f"{self.seed}/{view.turn}")
        seat = view.to_move
        table = view.legal_moves._table
        scored = []
        for move, actions in table.items():
            core = view._core.copy()
            for a in actions:
                core.apply(a)
            if core.over and core.modules:
                # a module game decided by this turn (a city, a conquest, a free card): its result,
                # which the evaluation's material terms cannot see
                scored.append((1000.0 * (_policy.terminal(core)[seat] - 0.5), rng.random(), move))
                continue
            v = _policy.evaluate(core, self.weights, self.module_weights)
            scored.append((v[seat] - max(x for i, x in enumerate(v) if i != seat), rng.random(), move))
        scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
        infos = tuple(MoveInfo(m, 0, v, 0.0) for v, _, m in scored[:10])
        return Decision(scored[0][2], SearchInfo(moves=infos, seed=self.seed))
