"""Depth-limited expectimax with chance nodes at card reveals (the search loop is
ext/splendor_ai/_expectimax.pyx, whose docstring describes the algorithm in full).

In short: `dets` worlds are sampled from the seat's view (hidden blind reserves and deck order);
in each world every legal whole turn is searched to `depth` whole turns; a card drawn from a deck
is a chance node over the cards the seat has not seen (all of them when at most `chance_samples`,
else that many sampled with a seeded rng); the root values are averaged over the worlds. Two
players: minimax with alpha-beta, and Star2 (probing, then Star1 windows) at chance nodes. Three
or four: paranoid (default, alpha-beta) or max^n (`algo="maxn"`, no pruning). Leaves: the static
evaluation, my value minus the best opponent's, clamped to [-eval_bound, eval_bound]; finished
games score +-(eval_bound + 2) (less 0.01 a turn, so that a nearer win is preferred).
Moves are ordered by `_policy.score_actions` (after a transposition table's best move); iterative
deepening under a time limit keeps the last depth that finished. Same seed and depth: same move, same values, same node counts.

Scores are in evaluation (prestige-point) units. `MoveInfo.value` turns them into a win chance
like the MCTS cut-offs do (a logistic of `eval_scale` x score; a decided game is 1, 0, or the
share); the raw scores are in `SearchInfo.extra["scores"]`, in the order of `SearchInfo.moves`.
"""
from __future__ import annotations

import math

from .. import _expectimax
from ..state import State, View
from .base import Decision, Limit, MoveInfo, Player, SearchInfo
from .bounds import check
from .evaluation import DEFAULT_SCALE, MODULE_WEIGHTS, VALUE_PHASE, VALUE_WEIGHTS, check_weights
from .keys import is_decision, line_to_moves
from .mcts import derive_seed
from .network import load_network, network_for

ALGOS = {"paranoid": 0, "maxn": 1}


class ExpectimaxPlayer(Player):
    """Parameters: depth (whole turns; a fixed depth) and/or seconds (iterative deepening until
    the time is up, capped at `depth` if given; default: depth 2), dets (worlds sampled from the
    view, default 1), chance_samples (outcomes per card reveal, default 4), algo ("paranoid" or
    "maxn"), exact_root (how many of the best root moves get exact values: an int k (default 4),
    True for all of them, False for the best only; the others get upper bounds, which alpha-beta
    finds several times faster: a turn ending with 10+ tokens can have 500 return choices at the
    root), tt_bits (transposition table of 2^tt_bits entries, 16 bytes each; default 16, 0 = none),
    eval_bound (leaf clamp, default 30), eval_scale (score -> win chance), weights, module_weights
    (the Cities of Splendor terms), phase_weights (each base weight's slope with the game's phase);
    weights and phase_weights default to the fitted VALUE_WEIGHTS / VALUE_PHASE of evaluation.py.
    eval: "classic" (the default: that static evaluation), "net" (the value head of `net`, or of the
    game's shipped network: each seat's win probability times eval_bound) or "auto" (the network
    where one is shipped for the game). The network is not the default here, unlike in `mcts`: a
    leaf costs about 2 microseconds with it against a fraction of one without, and expectimax
    evaluates every leaf of its tree.

    `MoveInfo.visits` is the number of nodes searched below that root move (last depth, all
    worlds); `SearchInfo.extra` has depth (reached), nodes_per_s (per CPU second of the search),
    chance_nodes, depth_seconds, scores, exact_values (False when some listed values are bounds)."""

    def __init__(self, seed: int = 0, depth: int | None = None, seconds: float | None = None,
                 dets: int = 1, chance_samples: int = 4, algo: str = "paranoid",
                 eval_bound: float = 30.0, exact_root: bool | int = 4, tt_bits: int = 16,
                 eval_scale: float = DEFAULT_SCALE, weights=VALUE_WEIGHTS, module_weights=MODULE_WEIGHTS,
                 phase_weights=VALUE_PHASE, eval: str = "classic", net: str | None = None):
        check("expectimax", {k: v for k, v in locals().items() if k != "self"})   # the table of bounds
        if net is not None:
            load_network(net)   # a bad name or file fails here, not in the middle of a game
        self.eval, self.net = eval, net
        if depth is None and seconds is None:
            depth = 2
        if exact_root is True:
            exact_root = 0
        elif exact_root is False:
            exact_root = 1
        check_weights(weights, phase_weights, module_weights)
        # None, as in mcts, asks for the default: here the same VALUE_* set in every game
        weights = VALUE_WEIGHTS if weights is None else weights
        phase_weights = VALUE_PHASE if phase_weights is None else phase_weights
        module_weights = MODULE_WEIGHTS if module_weights is None else module_weights
        self.seed = seed
        self.depth, self.seconds, self.dets = depth, seconds, dets
        self.algo = algo
        self.eval_scale = float(eval_scale)
        self.params = {"algo": ALGOS[algo], "chance_samples": chance_samples,
                       "eval_bound": float(eval_bound), "root_exact": exact_root, "tt_bits": tt_bits,
                       "weights": [float(w) for w in weights],
                       "module_weights": [float(w) for w in module_weights],
                       "phase_weights": [float(w) for w in phase_weights]}

    def choose(self, view: View, limit: Limit | None = None) -> Decision:
        if isinstance(view, State):
            raise TypeError("a hidden-information player is given a View, never the true State")
        limit = limit or Limit()
        depth = limit.depth or (self.depth if limit.seconds is None else None)
        seconds = limit.seconds or (self.seconds if limit.depth is None else None)
        dets = limit.dets or self.dets
        seat = view.to_move
        table = view.legal_moves._table
        moves = list(table)
        seed = derive_seed(self.seed, view.turn)
        name = self.network_for(view)
        self._net_leaves = name is not None
        search = _expectimax.Search(view._core, [table[m] for m in moves], self.params, seed, dets,
                                    load_network(name) if name else None)
        if len(moves) == 1:   # nothing to choose: one shallow search for a value
            depth, seconds = 1, None
        reached = search.run(depth or 0, seconds or 0.0)
        rows = []
        for i, (move, (vals, nodes, pv, exact)) in enumerate(zip(moves, search.results())):
            own = vals[seat]
            assert own is not None   # paranoid values leave the other seats' unset, never the searcher's
            rows.append((own, not exact, i, move, vals, nodes, pv))
        # best first; at equal scores an exact value before a bound, then the legal-move order
        rows.sort(key=lambda r: (-r[0], r[1], r[2]))
        infos, scores = [], []
        for score, _, _, move, vals, nodes, pv in rows:
            rest = list(pv[len(table[move]):])
            while rest and is_decision(rest[0]):
                rest.pop(0)   # the second step of a two-step turn, in one sampled world
            line = [str(move)] + line_to_moves(rest)
            infos.append(MoveInfo(move, nodes, self._chance(score), 0.0, tuple(line),
                                  self._seat_values(vals, seat)))
            scores.append(round(score, 4))
        nodes = search.nodes
        info = SearchInfo(moves=tuple(infos), iterations=0, seconds=search.seconds, seed=seed, nodes=nodes,
                          extra={"algo": self.algo, "depth": reached, "dets": dets,
                                 "chance_samples": self.params["chance_samples"],
                                 "exact_values": all(not r[1] for r in rows),
                                 "chance_nodes": search.chance_nodes, "tt_hits": search.tt_hits,
                                 "nodes_per_s": round(nodes / search.cpu_seconds) if search.cpu_seconds > 0 else None,
                                 "cpu_seconds": round(search.cpu_seconds, 4),
                                 "depth_seconds": [round(t, 4) for t in search.depth_seconds],
                                 "scores": scores})
        return Decision(infos[0].move, info)

    def network_for(self, view: View) -> str | None:
        """The network whose value scores the leaves in a game like `view`'s, None for the static
        evaluation."""
        return network_for(self.eval, self.net, view.players, view.module)

    def _chance(self, score: float) -> float:
        """A search score as a win chance: beyond the leaf clamp only a finished game (a win or a
        loss) can score; inside it, a logistic of the score (a share of a win scores inside), or with
        the network's leaves (score = bound * (my chance - the best other's)) that difference undone
        as for two players."""
        bound = float(self.params["eval_bound"])   # type: ignore[arg-type]
        if abs(score) > bound:
            return float(score > 0)
        if getattr(self, "_net_leaves", False):
            return (score / bound + 1) / 2
        return 1.0 / (1.0 + math.exp(-self.eval_scale * score))

    def _seat_values(self, vals, seat) -> tuple[float, ...]:
        if all(v is not None for v in vals):                 # max^n: every seat's own score
            return tuple(self._chance(v) for v in vals)
        if len(vals) == 2:                                   # two players: zero-sum
            p = self._chance(vals[seat])
            return tuple(p if i == seat else 1 - p for i in range(2))
        return ()
