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
          + w[8] * 1 if the seat's turn of this round is still to come (it is to move, or moves
                   later in the round): the round is always completed, so a seat that has
                   already moved this round is a turn ahead on the board but not in the game
        Terms 9-15 (computed only when one of them has a weight or a slope):
          + w[9]  * reach: sum over the face-up cards and the seat's own reserved cards of
                    (1 + points) / (1 + gems missing after gold)^2
          + w[10] * cards among those the seat can buy now
          + w[11] * 1 if one buy would bring the seat to 15 points (never with the Cities, where
                    15 points end nothing)
          + w[12] * bonuses, at most 3 counted per colour (a spread engine buys more cards)
          + w[13] * tokens (gold too) beyond 7: near the limit of 10 a take wastes gems
          + w[14] * 1 if the seat holds 3 reserved cards (it can reserve no more, nor get gold)
          + w[15] * face-up nobles the seat lacks at most 2 bonuses for

With a Cities of Splendor module (`State.modules`), module terms are added to the value above,
each read only in its own module (module weights m[0..11]: MODULE_WEIGHTS below, hand-set, or the
set fitted for the module, FITTED):

    + w[6] * (the most points buyable now by the module's rules - the same by the base rules):
             Orient gold cards pay 2 gold, trading-post power 2, the Orient conditions on
             acquiring (jokers, sacrifices), and no card closed by another player's strongholds
    Cities:
    + m[0] * city progress: f^2 for the face-up city nearest to being met, f = (prestige up to
             its minimum + 2 * bonuses up to its requirement, same-colour part included) /
             (minimum prestige + 2 * bonuses asked); 1 once a city is held
    + m[1] * 1 if the seat holds a city. The first city claimed ends the game at the end of the
             round and a city holder wins (15 points end nothing), so this is nearly a win;
             between several holders the prestige terms decide, as the rules do.
    Orient:
    + m[2] * held-noble progress: sum over the seat's reserved nobles of 3 * (share met)^2 (no one
             else can take them; the face-up ones stay in the noble term above)
    + m[3] * unspent gold cards (each pays 2 gold and costs no token space)
             (double bonuses and jokers are in the bonus term: they are bonuses)
    Trading posts (the points of powers 4 and 5 are already in the prestige points):
    + m[4] * progress to the powers not held: sum of value * (share of the requirement met)^2,
             value = 5 (+5 power), coats of arms + 1 (per-arms power), +1 for each power once the
             per-arms power is held, + m[5] * its use (below)
    + m[5] * use of the powers held: 2 for a gem after each purchase, 1 for the extra gem on a
             double take, 1 for gold worth two
    Strongholds:
    - m[6] * sum over market cards holding another player's strongholds of how much the seat wants
             them, want = (1 + points (+1 for a double bonus)) / (1 + gems missing after gold)
    + m[7] * sum over cards holding the seat's strongholds of (count / 3)^2 * want
    + m[8] * sum over cards holding all 3 of the seat's strongholds that it can afford (a conquest
             next turn) of 1 + points
    (m[9..11] unused)

MODULE_WEIGHTS, the module weights of every game without a fitted set, are hand-set. SPSA on
greedy self-play in each module (experiments/tune_eval.py --module <name> --steps 80 --deals 4;
experiments/results/tune_eval_<module>/report.txt) moved none of them significantly (tuned vs start
over 200 games: cities +3 Elo [-45, +52], orient +24 [-24, +73], posts -28 [-77, +20], strongholds
+14 [-34, +63]). With them, mcts(iterations=1000) scored 85% (cities), 60% (orient), 62% (posts)
and 45% (strongholds) over 20 games against the same search with every module weight 0
(experiments/module_strength_check.py). In the modules where a set is fitted to game outcomes
(FITTED below) the fitted module weights replace them.

Phase weights (`phase_weights`, a slope per base term): each base weight w[k] becomes
w[k] + slope[k] * min(the leader's prestige points, 15) / 15, so a term can count differently at
the start and near the end of the game. The module terms m[] do not move (the module's best-buy
correction above is weighted by w[6] at the phase, as the base best buy is).

Win chances at a cut-off are a softmax of `eval_scale * value` over the seats. The sets of
weights:
- DEFAULT_WEIGHTS (no phase), the greedy player's: from the self-play tuning in
  experiments/tune_eval.py (SPSA on greedy self-play, 300 steps;
  experiments/results/tune_eval/report.txt: +142 Elo [+107, +181] over the hand-set start). The
  tempo weight is left at 0: a one-ply player cannot see it (after its turn the opponent is always
  to move), so its tuned value is noise.
- VALUE_WEIGHTS with VALUE_PHASE, the MCTS cut-off's and expectimax's leaves' (expectimax with them:
  +191 Elo [+82, +353] over SPSA's at depth 3, 4 worlds, 40 games): a logistic regression of the game's winner
  on the terms of every position of recorded games (experiments/fit_value.py). SPSA chose weights
  that pick a good one-ply move; a cut-off needs win chances, and at eval_scale 0.6 the SPSA
  weights are far too sure of themselves (held-out log loss 0.740, worse than a coin's 0.693).
  Expectimax's leaves use them in every game; MCTS in the games without a fitted set of their own.
- The sets fitted for one kind of game (FITTED, keyed by player count and module; value_weights()
  and value_module_weights() pick a game's): RICH_WEIGHTS with RICH_PHASE in two-player base
  games (the same fit with terms 9-15 as well, on more games), WEIGHTS_3P / WEIGHTS_4P for three
  and four players and per-module sets with their own module weights (a softmax fit over the
  seats with every term, experiments/fit_value.py --players / --module; see each below). Some
  3-4 player module games take one of these sets, where it gained in games (see FITTED).
  Expectimax keeps VALUE_* and MODULE_WEIGHTS: these sets score positions at the end of
  playouts, and at its leaves they lost (experiments/results/h2h_expectimax_fitted_2p).
"""
from __future__ import annotations

from .. import _policy
from ..errors import ConfigError
from ..state import State, View

NAMES = ("points", "bonuses", "noble_progress", "gems", "gold", "reserved", "best_buy", "tempo",
         "round_turn", "reach", "affordable", "win_now", "spread", "crowd", "reserve_full", "noble_near")
NTERMS = len(NAMES)
DEFAULT_WEIGHTS = (1.0, 2.349, 0.75, 0.269, 0.0, 0.124, 0.688, 0.0, 0.0, 0.0)
DEFAULT_SCALE = 0.6

NO_PHASE = (0.0,) * 10

# The MCTS cut-off's weights: fitted to the outcomes of 2,858 recorded games between search players
# (experiments/fit_value.py, experiments/results/fit_value/report.txt). Each weight moves with the
# game's phase, w + slope * min(leader's points, 15) / 15: early on bonuses and noble progress
# decide, late the points, the best buy and the tempo. Held-out log loss 0.598 against 0.740 for
# DEFAULT_WEIGHTS at the same scale (0.644 at its best scale); mcts(iterations=10000) with them beat
# the same search with DEFAULT_WEIGHTS by +117 Elo [+55, +188]
# (experiments/results/h2h_fitphase_10k_2p/report.md).
VALUE_WEIGHTS = (0.120, 0.928, 0.908, 0.180, 0.289, -0.105, 0.128, 0.252, 0.0, 0.0)
VALUE_PHASE = (1.223, -0.844, 0.292, 0.352, 0.480, 0.182, 0.885, 1.077, 0.0, 0.0)

# The two-player base game's cut-off (since version 0.4.0): the terms above and terms 9-15,
# refitted on the 4,095 two-player base games recorded by 2026-11-30T20:38
# (experiments/results/fit_value_rich/report.txt; held-out log loss 0.591 against 0.601 for
# VALUE's terms refitted on the same games). mcts(iterations=10000) with them beat the same search
# with VALUE_WEIGHTS / VALUE_PHASE by +72 Elo [+28, +118] (240 games), at 40,000 iterations by
# +108 [+39, +185] (100 games). Elsewhere they gained nothing (at 2,000 iterations: 27.5% with 3
# players, 33% is level; 24.2% with 4, 25% is level; the modules 82-0-78, Orient 14-26 and
# Trading Posts 18-22 the worst), so value_weights() gives them to two-player base games only:
# the games they were fitted on.
RICH_WEIGHTS = (0.169, 0.414, 0.971, 0.126, -0.093, -0.155, -0.219, 0.237, 0.0, 0.258, -0.095, -2.198,
                0.342, -0.158, -0.52, 0.114)
RICH_PHASE = (1.062, -0.668, 0.006, 0.325, 0.595, 0.459, 1.006, 1.009, 0.0, -0.224, 0.039, 3.819, 0.006,
              -0.081, -1.312, -0.294)


# Three players (since version 0.4.0): every term, round_turn too, fitted on the 1,320 recorded
# three-player base games between search players (fit_value.py --players 3, a softmax over the
# seats; experiments/results/fit_value_3p/report.txt: held-out log loss 1.004 against 1.029 for
# VALUE_*). mcts(iterations=2000) with them won 40.8% [36.3, 45.4] of 450 games against two copies
# of the same search with VALUE_* (33.3% is level; experiments/results/h2h_fit3_3p), at 10,000
# iterations 42.5% [35.5, 49.8] of 180 (h2h_fit3_10k_3p).
WEIGHTS_3P = (0.148, 0.825, 0.73, 0.152, -0.082, -0.036, -0.13, -0.26, 0.957, 0.234, -0.118, -3.261, -0.068,
              -0.153, -0.228, 0.074)
PHASE_3P = (1.007, -0.916, 0.072, 0.267, 0.617, 0.357, 0.585, 0.22, 1.484, -0.146, -0.083, 5.524, 0.159, 0.079,
            -0.72, 0.006)

# Four players: the same fit on the 1,320 recorded four-player base games (fit_value.py --players 4;
# experiments/results/fit_value_4p/report.txt: held-out log loss 1.218 against 1.319 for VALUE_*;
# round_turn counts most: a seat whose turn of the round is still to come is worth about a point
# more early and three more late). mcts(iterations=2000) with them won 37.4% [33.2, 41.8] of 480
# games against three copies of the same search with VALUE_* (25% is level;
# experiments/results/h2h_fit4_4p), at 10,000 iterations 33.0% [27.9, 38.5] of 300 (h2h_fit4_10k_4p).
WEIGHTS_4P = (0.327, 0.661, 0.662, 0.201, 0.08, 0.184, -0.035, -0.315, 1.152, 0.282, -0.248, -4.025, 0.262,
              -0.128, -1.078, 0.239)
PHASE_4P = (0.91, -0.63, -0.26, 0.202, 0.745, 0.047, 0.468, -0.072, 2.169, -0.182, 0.001, 5.9, -0.327, 0.089,
            1.097, 0.3)

# Two-player module games: every term and the module's own, fitted on the recorded games of that
# module (fit_value.py --module M; 680 games each, 600 of them between mcts at 2,000 and 1,000
# iterations; experiments/results/fit_value_<module>/report.txt). Held-out log loss against VALUE_*
# with MODULE_WEIGHTS: Cities 0.601 against 0.655, Orient 0.574 against 0.610, Trading Posts 0.590
# against 0.614, Strongholds 0.570 against 0.605. mcts(iterations=2000) with them against the same
# search with VALUE_* and MODULE_WEIGHTS (experiments/results/h2h_fit_<module>_2p): Cities +188 Elo
# [+145, +236] (300 games), Orient +33 [+5, +61] (600), Trading Posts +47 [+19, +76] (600),
# Strongholds +111 [+71, +154] (300). The Cities' fit values a claimed city at about 14 points
# (city progress 12.0 at f = 1, claimed 2.3) where the hand-set weights said 31.
WEIGHTS_CITIES = (0.234, 0.381, 0.0, 0.154, 0.089, -0.061, -0.182, 0.168, 0.323, 0.233, -0.029, 0.0, 0.721,
                  -0.113, -0.399, 0.0)
PHASE_CITIES = (0.021, -0.395, 0.0, 0.071, -0.394, 0.265, 0.806, 0.137, 0.826, -0.163, 0.198, 0.0, -0.691,
                -0.004, -1.331, 0.0)
MODULE_CITIES = (12.045, 2.337, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
WEIGHTS_ORIENT = (0.316, 1.001, 0.391, 0.196, 0.195, -0.324, -0.085, 0.045, 0.586, 0.203, -0.122, -5.716,
                  0.43, -0.066, -0.581, 0.018)
PHASE_ORIENT = (1.34, -0.731, -0.028, 0.557, 0.543, 0.517, 1.003, -0.563, 3.48, 0.051, -0.292, 8.169, -0.256,
                -0.206, -0.255, 0.697)
MODULE_ORIENT = (0.0, 0.0, 0.735, 1.39, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
WEIGHTS_POSTS = (0.207, -0.217, 0.617, 0.136, -0.165, -0.398, -0.376, 0.084, 0.534, 0.432, -0.202, -1.917,
                 1.431, -0.142, -0.621, 0.103)
PHASE_POSTS = (0.752, -0.241, 0.248, 0.077, 0.898, 0.444, 1.481, -0.305, 2.57, -0.602, 0.466, 3.291, -1.268,
               -0.043, -0.327, 0.132)
MODULE_POSTS = (0.0, 0.0, 0.0, 0.0, 0.354, 0.59, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
WEIGHTS_STRONGHOLDS = (0.172, 0.569, 0.829, 0.127, 0.139, -0.132, -0.399, 0.167, 0.481, 0.44, -0.19, -2.785,
                       0.676, -0.197, -0.292, 0.132)
PHASE_STRONGHOLDS = (1.356, -0.637, 0.733, 0.369, 0.141, 0.814, 0.71, -0.256, 3.121, -0.186, -0.012, 4.295,
                     -0.717, 0.362, -1.813, -0.182)
MODULE_STRONGHOLDS = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.277, 0.41, 0.0, 0.0, 0.0, 0.0)

# (players, module) -> (weights, phase_weights, module_weights) fitted for that kind of game; other
# games use VALUE_* with the hand-set MODULE_WEIGHTS.
# No 3-4 player module games are recorded to fit on; sets fitted on other games gained in some of
# them (mcts(iterations=2000) against copies of the VALUE_* search; level 33.3% at 3 players, 25%
# at 4; experiments/results/h2h_fit2p_*, h2h_fitmix_*): the two-player Cities set in the
# Cities (52.5% [43.6, 61.2] of 120 games at 3 players, 33.8% [25.9, 42.6] of 120 at 4) and the
# two-player Orient set in the 3-player Orient (40.0% [34.0, 46.3] of 240); in the Strongholds
# the player count's base set with the two-player Strongholds module weights (46.2% [37.6, 55.1],
# 59.6% [50.6, 67.9]). The 4-player Orient and the Trading Posts keep VALUE_*: no set tried there
# separated from level.
Fitted = tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...] | None]
FITTED: dict[tuple[int, str | None], Fitted] = {
    (2, None): (RICH_WEIGHTS, RICH_PHASE, None),
    (3, None): (WEIGHTS_3P, PHASE_3P, None),
    (4, None): (WEIGHTS_4P, PHASE_4P, None),
    (2, "cities"): (WEIGHTS_CITIES, PHASE_CITIES, MODULE_CITIES),
    (2, "orient"): (WEIGHTS_ORIENT, PHASE_ORIENT, MODULE_ORIENT),
    (2, "posts"): (WEIGHTS_POSTS, PHASE_POSTS, MODULE_POSTS),
    (2, "strongholds"): (WEIGHTS_STRONGHOLDS, PHASE_STRONGHOLDS, MODULE_STRONGHOLDS),
    (3, "cities"): (WEIGHTS_CITIES, PHASE_CITIES, MODULE_CITIES),
    (4, "cities"): (WEIGHTS_CITIES, PHASE_CITIES, MODULE_CITIES),
    (3, "orient"): (WEIGHTS_ORIENT, PHASE_ORIENT, MODULE_ORIENT),
    (3, "strongholds"): (WEIGHTS_3P, PHASE_3P, MODULE_STRONGHOLDS),
    (4, "strongholds"): (WEIGHTS_4P, PHASE_4P, MODULE_STRONGHOLDS),
}


def _fitted(players: int, modules: tuple[str, ...]) -> Fitted:
    """A game's FITTED entry; VALUE_* with the hand-set module weights (None) where there is none."""
    if len(modules) > 1:
        return (VALUE_WEIGHTS, VALUE_PHASE, None)
    return FITTED.get((players, modules[0] if modules else None), (VALUE_WEIGHTS, VALUE_PHASE, None))


def value_weights(players: int, modules: tuple[str, ...] = ()) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The fitted (weights, phase_weights) of the search players' evaluation for a game: the set
    fitted on games of its player count and module where there is one (FITTED), VALUE_*
    otherwise."""
    weights, phase, _ = _fitted(players, modules)
    return weights, phase


def value_module_weights(players: int, modules: tuple[str, ...] = ()) -> tuple[float, ...]:
    """The module weights of the search players' evaluation for a game: fitted for its module
    where they were (FITTED), the hand-set MODULE_WEIGHTS otherwise."""
    return _fitted(players, modules)[2] or MODULE_WEIGHTS


MODULE_NAMES = ("city_progress", "city_claimed", "held_noble", "gold_cards", "post_progress", "post_held",
                "sh_blocked", "sh_own", "sh_conquest", "unused9", "unused10", "unused11")
MODULE_WEIGHTS = (6.0, 25.0, 1.0, 0.6, 0.6, 1.0, 0.4, 0.4, 0.4, 0.0, 0.0, 0.0)


def check_weights(weights, phase_weights, module_weights=None) -> None:
    """A player's base weights and phase slopes: None (the player's default: in mcts the set
    fitted for the game, in expectimax VALUE_*) or 10 to NTERMS numbers each (the missing ones are
    0, so the weights of before terms 9-15 still mean what they meant); its module weights: None
    or one number per MODULE_NAMES."""
    for name, ws in (("weights", weights), ("phase_weights", phase_weights)):
        if ws is not None and not 10 <= len(ws) <= NTERMS:
            raise ConfigError(f"{name} must hold 10 to {NTERMS} numbers (see splendor_ai/players/evaluation.py), "
                              f"got {len(ws)}")
    if module_weights is not None and len(module_weights) != len(MODULE_NAMES):
        raise ConfigError(f"module_weights must hold {len(MODULE_NAMES)} numbers (see splendor_ai/players/evaluation.py), "
                          f"got {len(module_weights)}")


def evaluate(game: State | View, weights=DEFAULT_WEIGHTS, module_weights=MODULE_WEIGHTS,
             phase_weights=NO_PHASE) -> list[float]:
    """The evaluation of every seat of a state or view."""
    return _policy.evaluate(game._core, list(weights), list(module_weights), list(phase_weights))
