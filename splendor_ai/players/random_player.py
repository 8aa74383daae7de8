"""Uniformly random legal whole turns: the floor of every strength table."""
from __future__ import annotations

import random

from .base import Decision, Limit, Player, SearchInfo


class RandomPlayer(Player):
    def __init__(self, seed: int = 0):
        self.seed = seed

    def choose(self, view, limit: Limit | None = None) -> Decision:
        rng = random.Random(f"{self.seed}/{view.turn}")
        moves = list(view.legal_moves)
        return Decision(rng.choice(moves), SearchInfo(seed=self.seed))
