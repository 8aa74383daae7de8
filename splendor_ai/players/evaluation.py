"""The static evaluation shared by MCTS cut-offs, expectimax leaves and the greedy player.

For each seat, in prestige-point units (computed in C by `_policy.eval_state`):

    value = w[0] * prestige points
          + w[1] * bonus cards (permanent discounts)
          + w[2] * noble progress: sum over face-up nobles of 3 * (share of its requirement met)^2
          + w[3] * gem tokens
          + w[4] * gold tokens
          + w[5] * reserved cards: sum of points / (1 + gems still missing after gold)
          + w[6] * the most points the seat could buy right now
          + w[7] * 1 if the seat is to move (tempo)
          (w[8], w[9] unused, kept for the Cities of Splendor terms)

Win chances at a cut-off are a softmax of `eval_scale * value` over the seats. The defaults below
come from the self-play tuning in experiments/tune_eval.py (SPSA on greedy self-play, 300 steps;
experiments/results/tune_eval/report.txt: +142 Elo [+107, +181] over the hand-set start). The
tempo weight is left at 0: a one-ply player cannot see it (after its turn the opponent is always
to move), so its tuned value is noise.
"""
from __future__ import annotations

from .. import _policy
from ..state import State, View

NAMES = ("points", "bonuses", "noble_progress", "gems", "gold", "reserved", "best_buy", "tempo",
         "unused8", "unused9")
DEFAULT_WEIGHTS = (1.0, 2.349, 0.75, 0.269, 0.0, 0.124, 0.688, 0.0, 0.0, 0.0)
DEFAULT_SCALE = 0.6


def evaluate(game: State | View, weights=DEFAULT_WEIGHTS) -> list[float]:
    """The evaluation of every seat of a state or view."""
    return _policy.evaluate(game._core, list(weights))
