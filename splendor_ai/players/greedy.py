"""One-ply greedy: the whole turn whose result evaluates best for the mover (the yardstick)."""
from __future__ import annotations

import random

from .. import _policy
from ..state import _expand
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
            if view.is_partial(move) and core.phase != 0 and not core.over:
                # the first step of a two-step turn (docs/RULES.md): scored by its best second
                # step, among those that do not use the card it reveals (unknown to the seat: it
                # shows as an empty slot here)
                value = max(self._score(_after(core, rest), seat) for rest in _expand(core)[0].values())
            else:
                value = self._score(core, seat)
            scored.append((value, rng.random(), move))
        scored.sort(key=lambda t: (t[0], t[1]), reverse=True)
        infos = tuple(MoveInfo(m, 0, v, 0.0) for v, _, m in scored[:10])
        return Decision(scored[0][2], SearchInfo(moves=infos, seed=self.seed))

    def _score(self, core, seat: int) -> float:
        if core.over and core.modules:
            # a module game decided by this turn (a city, a conquest, a free card): its result,
            # which the evaluation's material terms cannot see
            return 1000.0 * (_policy.terminal(core)[seat] - 0.5)
        v = _policy.evaluate(core, self.weights, self.module_weights)
        return v[seat] - max(x for i, x in enumerate(v) if i != seat)


def _after(core, actions):
    core = core.copy()
    for a in actions:
        core.apply(a)
    return core
