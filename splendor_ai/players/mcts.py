"""Determinized Monte Carlo tree search players (the search loop is ext/splendor_ai/_mcts.pyx)."""
from __future__ import annotations

import math
import time
from concurrent.futures import ThreadPoolExecutor

from .. import _mcts, _policy
from ..move import BUY, Move
from ..state import State, View
from .base import Decision, Limit, MoveInfo, Player, SearchInfo
from ..errors import ConfigError
from .bounds import check, default_max_nodes
from .evaluation import DEFAULT_SCALE, check_weights, value_module_weights, value_weights
from .keys import is_decision, line_to_moves, main_key, move_keys
from .network import load_network, network_for

MODES = {"ismcts": 0, "pimc": 1, "perfect": 2}
EVALS = ("classic", "net", "auto")
#: the exploration constant with a network's priors (sharper than the heuristic ones)
NET_C = 1.0
#: the network's share of a leaf's value, the rest a classic playout's (docs/TRAINING.md: at equal
#: iterations the mix measured far stronger than the network alone)
NET_MIX = 0.5
#: the policy head's share of a prior by default, the rest the heuristic one's (docs/TRAINING.md:
#: the mix measured stronger than either alone, experiments/results/net_2p_prior_mix)
NET_PRIOR_SHARE = 0.5


def derive_seed(seed: int, *parts: int) -> int:
    """A 64-bit seed for one search, from the player's seed and the position's turn."""
    x = seed & (2 ** 64 - 1)
    for p in parts:
        x = (x ^ (p + 0x9E3779B97F4A7C15 + (x << 6) + (x >> 2))) & (2 ** 64 - 1)
    return x


class MCTSPlayer(Player):
    """ISMCTS (default), PIMC (`mode="pimc"`, `dets` worlds) or perfect-information MCTS
    (`mode="perfect"`, experiments only: it must be handed the true state).

    Parameters: iterations / seconds (the default limit), c (exploration), c_base (0: c is
    constant; > 0: exploration grows with a node's visits N as c * (1 + log(1 + N / c_base))),
    puct (priors from the heuristic action scores; False = plain UCT), prior_temp, fpu, eps
    (playout randomness), cutoff (playout turns before evaluating; 0 = play to the end), rollout
    ("policy" or "random"), eval_scale, weights and phase_weights (the evaluation at the cut-off;
    each defaults to the fitted one for the game being played, evaluation.value_weights),
    module_weights (the Cities of Splendor terms; default evaluation.value_module_weights),
    reuse (keep the tree between moves), workers (root-parallel searches on threads; the C search
    runs without the GIL, so they use all cores), halving and halving_warm (sequential halving
    at the root, class `Halving`: after a PUCT warm-up of `halving_warm` of the budget, the
    `halving` most visited moves share the rest in rounds that keep the better half; 0 = PUCT
    alone; ISMCTS with one worker only), max_nodes (the node cap of each tree; default 20 million,
    less with many workers: bounds.default_max_nodes). Every parameter is checked against the table
    of bounds (players/bounds.py).

    The evaluation: `eval="classic"` scores leaves by a policy playout cut off after `cutoff` turns
    and the fitted static evaluation, with the heuristic action scores as priors; `eval="net"` uses a
    value and policy network (`net`: a shipped network's name or a path to a network file; default
    the game's shipped network, splendor_ai.players.network): its value at the leaf (`cutoff` 0, the
    default with a network) or at the end of a `cutoff`-turn playout; the priors are by default
    NET_PRIOR_SHARE of the policy head's softmax (temperature `net_temp`) plus the rest of the
    heuristic action scores' (`net_prior_share` sets the share; `priors="net"` alone is the policy
    head's, `priors="classic"` the heuristic ones; c=NET_C with the network's priors);
    `values="classic"` keeps the playouts and the fitted evaluation (with the network's priors);
    `net_mix` (default NET_MIX) values a leaf at `net_mix` times the network's value of it plus the
    rest times a classic playout's from it (with the classic `cutoff`), as AlphaGo mixed its value
    network with rollouts; `net_mix=1` is the network alone (`cutoff` 0 by default).
    `eval="auto"` (the default) is "net" where a shipped network is the default for the game's
    player count and module, else "classic".

    Classic defaults (c=0.8, prior_temp=2, cutoff=8) are the best of the 2-player sweeps against
    plain UCT with random playouts at 2000 iterations (experiments/README.md, "How the MCTS defaults
    were chosen")."""

    def __init__(self, seed: int = 0, iterations: int | None = None, seconds: float | None = None,
                 c: float | None = None, c_base: float = 0.0, puct: bool = True, prior_temp: float = 2.0,
                 fpu: float = 0.1, eps: float = 0.1, cutoff: int | None = None, rollout: str = "policy",
                 eval_scale: float = DEFAULT_SCALE,
                 weights=None, mode: str = "ismcts", dets: int = 8, reuse: bool = True,
                 workers: int = 1, max_nodes: int | None = None, module_weights=None,
                 phase_weights=None, halving: int = 4, halving_warm: float = 0.5, eval: str = "auto",
                 net: str | None = None, priors: str | None = None, values: str | None = None,
                 net_temp: float = 1.0, net_mix: float = NET_MIX, net_prior_share: float | None = None):
        check("mcts", {k: v for k, v in locals().items() if k != "self"})   # the table of bounds
        if net is not None:
            load_network(net)   # a bad name or file fails here, not in the middle of a game
        if eval != "classic" and priors == "classic" and values == "classic":
            raise ConfigError("values='classic' with the heuristic priors leaves the network nothing to do: "
                              "drop priors='classic' or give priors='net', or eval='classic'")
        if net_prior_share is not None and priors == "classic":
            raise ConfigError("net_prior_share: the network's share of the priors, but priors='classic' takes none")
        self.eval, self.net, self.priors, self.values, self.net_temp = eval, net, priors, values, float(net_temp)
        self.net_mix = float(net_mix)
        # priors='net' alone is the policy head's; by default the mix of it with the heuristic priors
        self.net_prior_share = float(net_prior_share if net_prior_share is not None
                                     else 1.0 if priors == "net" else NET_PRIOR_SHARE)
        self._cutoff, self._c = cutoff, c   # None: the default of the evaluation in use
        c = 0.8 if c is None else c
        cutoff = 8 if cutoff is None else cutoff
        if iterations is None and seconds is None:
            iterations = 2000
        if max_nodes is None:
            max_nodes = default_max_nodes(workers)
        check_weights(weights, phase_weights, module_weights)
        self.weights = None if weights is None else tuple(float(w) for w in weights)
        self.phase_weights = None if phase_weights is None else tuple(float(w) for w in phase_weights)
        self.seed = seed
        self.iterations, self.seconds = iterations, seconds
        self.mode, self.dets, self.workers, self.max_nodes = mode, dets, workers, max_nodes
        self.halving, self.halving_warm = halving, float(halving_warm)
        self.reuse = reuse and mode == "ismcts" and workers == 1
        self.perfect_information = mode == "perfect"
        self.params = {"c": float(c), "c_base": float(c_base), "puct": int(bool(puct)), "prior_temp": float(prior_temp),
                       "fpu": float(fpu), "eps": float(eps), "random_rollout": int(rollout == "random"),
                       "cutoff": int(cutoff), "eval_scale": float(eval_scale)}
        self.module_weights = None if module_weights is None else tuple(float(w) for w in module_weights)
        self._pool = ThreadPoolExecutor(workers) if workers > 1 else None
        self.reset()

    def network_for(self, view: View | State) -> str | None:
        """The network this player searches a game like `view`'s with, None for the classic
        evaluation."""
        return network_for(self.eval, self.net, view.players, view.module)

    def search_params(self, view: View | State) -> dict:
        """The C search's parameters for a game like `view`'s: the evaluation weights not given
        are the fitted ones for its player count and module; with a network, its priors and values."""
        modules = (view.module,) if view.module else ()
        weights, phase = value_weights(view.players, modules)
        params = dict(self.params, weights=list(self.weights or weights),
                      phase_weights=list(self.phase_weights or phase),
                      module_weights=list(self.module_weights or value_module_weights(view.players, modules)))
        if self.network_for(view) is not None:
            net_values = self.values != "classic"
            net_priors = self.priors != "classic" and bool(self.params["puct"])
            params.update(net_values=int(net_values), net_priors=int(net_priors), net_temp=self.net_temp,
                          net_mix=self.net_mix if net_values else 1.0, net_prior_share=self.net_prior_share)
            if net_values and self.net_mix == 1 and self._cutoff is None:
                params["cutoff"] = 0
            if net_priors and self._c is None:
                params["c"] = NET_C
        return params

    def reset(self) -> None:
        self.last_search: MCTSSearch | None = None
        self._tree: _mcts.Search | None = None
        # the moves played since the tree's root: each one's keys and its noble (None: none)
        self._since: list[tuple[list[int], int | None]] = []
        self._pending_noble: list[int | None] = []
        self._root_step: list[int] = []   # keys of the first step played before the tree's root

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
        since = list(self._since)
        if self._root_step and since and since[0][0][:len(self._root_step)] == self._root_step:
            # the root was the middle of a two-step turn: its whole turn starts with that step
            since[0] = (since[0][0][len(self._root_step):], since[0][1])
        path = [[]]
        for keys, noble in since:
            path = [p + keys + ([noble] if noble is not None and with_noble else [])
                    for p in path for with_noble in ((True, False) if noble is not None else (False,))]
            if len(path) > 64:
                return None
        if core.phase != 0 and core.step >= 0:
            # the middle of a two-step turn: this player chose its first step at the tree's root
            # or after the moves observed (match.py tells whole turns only, once complete)
            path = [p + [main_key(Move(BUY, card=core.step))] for p in path]
        for p in path:
            if self._tree.advance(p, core):
                return self._tree
        return None

    def choose(self, view: View | State, limit: Limit | None = None) -> Decision:
        search = self.new_search(view, limit, reuse=self.reuse)
        search.run()
        return self._decide(search)

    def think(self, view: View | State, limit: Limit | None = None, *, progress=None, report_every: float = 0.2,
              cancel=None) -> Decision:
        """`choose` run in pieces of `report_every` seconds: after each, `progress(SearchInfo)` gets
        the 5 best moves so far and `cancel()` is asked (True: the search and the kept tree are
        dropped, SearchCancelled is raised). The search is continued, not restarted, so under an
        iteration limit the move and its figures are exactly `choose`'s."""
        from .base import SearchCancelled
        if progress is None and cancel is None:
            return self.choose(view, limit)
        search = self.new_search(view, limit, reuse=self.reuse)
        while True:
            if cancel is not None and cancel():
                self.reset()
                raise SearchCancelled()
            search.run(report_every)
            if search.done():
                break
            if progress is not None:
                progress(search.info(search.ranked(5)))
        return self._decide(search)

    def _decide(self, search: "MCTSSearch") -> Decision:
        infos = search.ranked()
        self.last_search = search   # self-play reads the visit counts behind the decision
        view = search.view
        if self.reuse:
            self._tree = search.trees[0]
            self._since = []
            self._root_step = [main_key(view.partial_move)] if view.partial_move is not None else []
        return Decision(infos[0].move, search.info(infos))

    def new_search(self, view: View | State, limit: Limit | None = None, reuse: bool = False) -> "MCTSSearch":
        """The search this player would run for `view` under `limit`, not yet run: analysis
        drives it in chunks to report progress. `reuse` continues the tree kept from the last
        move (only `choose` does that: the player's own games)."""
        if isinstance(view, State) and not self.perfect_information:
            raise TypeError("a hidden-information player is given a View, never the true State")
        if self.perfect_information and not isinstance(view, State):
            raise TypeError("mode='perfect' searches the true State; it is for experiments only")
        return MCTSSearch(self, view, limit or Limit(), self._reused_tree(view._core) if reuse else None)

    def _complete(self, view, key, line) -> Move:
        """The move that starts with root key `key`: the decisions the tree prefers, then the
        playout policy's for any the tree has not explored, to the end of the turn or of its
        first step (a purchase that reveals a card the rest of the turn may use)."""
        core = view._core.copy()
        actions: list[int] = []
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
            if first and view.partial_move is None and core.step >= 0:
                break   # a first step: its second step is chosen once the card is revealed
            first = False
        table = view.legal_moves._table
        for move, seq in table.items():
            if seq == tuple(actions):
                return move
        raise AssertionError(f"search produced an action sequence {actions} that is not a legal turn")


class MCTSSearch:
    """The C searches behind one decision: one tree, or one per worker (root parallelism), with
    the budget of a `Limit`. `run` can be called again to continue the same trees."""

    def __init__(self, player: MCTSPlayer, view: View | State, limit: Limit, tree=None):
        self.player, self.view = player, view
        self.iterations = limit.iterations or (player.iterations if limit.seconds is None else None)
        self.seconds = limit.seconds or (player.seconds if limit.iterations is None else None)
        dets = limit.dets or player.dets
        self.seed = derive_seed(player.seed, view.turn)
        core, mode = view._core, MODES[player.mode]
        params = player.search_params(view)
        name = player.network_for(view)
        network = load_network(name) if name else None
        self.trees = [tree or _mcts.Search(core, params, self.seed, mode, dets, player.max_nodes, network)]
        for w in range(1, player.workers):
            self.trees.append(_mcts.Search(core, params, derive_seed(self.seed, w), mode, dets,
                                           player.max_nodes, network))
        self.per_worker = None if self.iterations is None else max(1, math.ceil(self.iterations / player.workers))
        self._start_iterations = self.trees[0].iterations  # a reused tree has some already
        self.halving = (Halving(self.trees[0], view, player.halving, player.halving_warm, self.per_worker, self.seconds)
                        if player.halving and len(self.trees) == 1 and player.mode == "ismcts" else None)
        self.elapsed = 0.0

    @property
    def iterations_done(self) -> int:
        return sum(t.iterations for t in self.trees) - self._start_iterations

    def done(self) -> bool:
        if self.halving is not None and self.halving.stage == "done":
            return True
        if self.per_worker is not None and self.trees[0].iterations - self._start_iterations >= self.per_worker:
            return True
        return self.seconds is not None and self.elapsed >= self.seconds

    def run(self, seconds: float | None = None) -> None:
        """Search on, until the limit or for at most `seconds` more (a chunk, for progress)."""
        left = None if self.seconds is None else self.seconds - self.elapsed
        chunk = min(x for x in (seconds, left) if x is not None) if (seconds or left is not None) else None
        iters = 0 if self.per_worker is None else self.per_worker - (self.trees[0].iterations - self._start_iterations)
        if (chunk is not None and chunk <= 0) or (self.per_worker is not None and iters <= 0):
            return
        t0 = time.perf_counter()
        if self.halving is not None:
            self.halving.run(None if chunk is None else t0 + chunk)
            self.elapsed += time.perf_counter() - t0
            return
        run = lambda t: t.run(iters, chunk or 0.0)
        if self.player._pool and len(self.trees) > 1:
            list(self.player._pool.map(run, self.trees))
        else:
            for t in self.trees:
                run(t)
        self.elapsed += time.perf_counter() - t0

    def ranked(self, top_k: int | None = None) -> list[MoveInfo]:
        """The root moves, best first: the move sequential halving kept (when it ran), then by
        visits. When the view's seat is not to move (analysis of
        another seat's turn), moves come from the tree alone, without the automatic decisions."""
        view = self.view
        core, seat = view._core, view.to_move
        mover_view = getattr(view, "seat", seat) == seat
        legal_keys = {core.action_key(a) for a in core.legal_actions()} if mover_view else None
        stats: dict[int, list] = {}
        for t in self.trees:
            for key, visits, wsum, prior in t.root_stats():
                if legal_keys is not None and key not in legal_keys:
                    continue  # a reused tree holds children of cards that never came
                e = stats.setdefault(key, [0, [0.0] * len(wsum), prior])
                e[0] += visits
                e[1] = [a + b for a, b in zip(e[1], wsum)]
        chosen = self.halving.choice() if self.halving else None
        ranked = sorted(stats.items(), key=lambda kv: (kv[0] == chosen, kv[1][0], kv[1][1][seat]), reverse=True)
        infos = []
        for key, (visits, wsum, prior) in ranked[:top_k]:
            nodes = self.trees[0].principal_variation(key)
            line = [k for k, _, _ in nodes] or [key]
            if len(nodes) > 1 and nodes[-1][2] <= 1:
                # the line ends at a leaf searched once: its turn may stop before its decisions
                # (returns, Orient choices...), so the line ends with the turn before it
                start = len(line) - 1
                while start > 0 and is_decision(line[start]):
                    start -= 1
                if start > 0:
                    line = line[:start]
            pv = line_to_moves(line)
            if view.partial_move is not None:   # the line starts in the middle of a turn
                pv[0] = f"{view.partial_move}/{pv[0]}"
            move = self.player._complete(view, key, line) if mover_view else Move.parse(pv[0])
            pv[0] = str(move)
            values = tuple(w / visits if visits else float("nan") for w in wsum)
            infos.append(MoveInfo(move, visits, values[seat], prior, tuple(pv), values))
        if not infos and mover_view:  # no iteration reached the root's children
            move = self.player._complete(view, None, [])
            infos.append(MoveInfo(move, 0, float("nan"), 1.0, (str(move),), (float("nan"),) * view.players))
        return infos

    def root_summary(self) -> tuple[int, tuple[float, ...]]:
        """The visits of the root's moves, and every seat's expected result over them (nan
        before any)."""
        visits, totals = 0, [0.0] * self.view.players
        for t in self.trees:
            for _, v, wsum, _ in t.root_stats():
                visits += v
                totals = [a + b for a, b in zip(totals, wsum)]
        return visits, tuple(x / visits if visits else float("nan") for x in totals)

    def info(self, infos: list[MoveInfo]) -> SearchInfo:
        return SearchInfo(moves=tuple(infos), iterations=self.iterations_done, seconds=self.elapsed, seed=self.seed,
                          nodes=sum(t.nodes_used for t in self.trees),
                          memory_bytes=sum(t.memory_bytes for t in self.trees),
                          extra={"mode": self.player.mode, "workers": self.player.workers,
                                 "eval": self.player.network_for(self.view) or "classic"})


class Halving:
    """Sequential halving at the root of one ISMCTS tree (Karnin et al. 2013; the root of Gumbel
    MuZero). A PUCT warm-up of `warm` of the budget finds the candidates (the `width` most
    visited root moves); then rounds of equal budgets search every surviving candidate alike
    (the tree below each is searched as usual) and keep the better half by value, until one is
    left. Without it PUCT gives the move that looked best early nearly all later visits, so a
    larger budget mostly deepens that move rather than checking its rivals
    (experiments/results/h2h_cbase_2p/report.md; the schedule's gains:
    experiments/results/h2h_halving_*/report.md).

    The schedule is a state machine so that a search run in chunks (analysis with progress)
    does exactly what one run does under an iteration limit. Under a time limit the warm-up
    takes its share of the time and its speed sets the rounds' budget in iterations; when the
    clock stops a round early, the best valued survivor is the choice."""

    def __init__(self, tree, view, width: int, warm: float, iterations: int | None, seconds: float | None):
        self.tree, self.width, self.warm = tree, width, warm
        self.seat = view.to_move
        # the legal root moves (a reused tree also holds moves of cards that never came)
        self.legal = {view._core.action_key(a) for a in view._core.legal_actions()}
        self.start = tree.iterations
        self.budget = iterations              # None: set from the warm-up's speed
        self.seconds = seconds
        self.warm_seconds = 0.0
        self.stage = "warm"
        self.alive: list[int] = []
        self.queue: list[list[int]] = []      # [key (-1: no forcing), iterations still to run]
        self.rounds = self.round = 0

    def done_iterations(self) -> int:
        return self.tree.iterations - self.start

    def values(self) -> dict[int, float]:
        return {key: w[self.seat] / v for key, v, w, _ in self.tree.root_stats() if key in self.legal and v > 0}

    def choice(self) -> int | None:
        """The root move kept so far (None during the warm-up: then the most visited)."""
        if not self.alive:
            return None
        value = self.values()
        return max(self.alive, key=lambda k: value.get(k, 0.0))

    def run(self, deadline: float | None) -> None:
        """Go on with the schedule until it ends or the clock reaches `deadline`."""
        tree = self.tree
        while self.stage != "done":
            left = None if deadline is None else deadline - time.perf_counter()
            if left is not None and left <= 0:
                return
            if self.stage == "warm":
                if self.budget is None:
                    assert self.seconds is not None   # no iteration budget: the time limit sets one
                    t0 = time.perf_counter()
                    want = self.seconds * self.warm - self.warm_seconds
                    tree.run(0, want if left is None else min(want, left))
                    self.warm_seconds += time.perf_counter() - t0
                    if self.warm_seconds < self.seconds * self.warm:
                        continue
                    self.budget = max(1, round(self.done_iterations() / self.warm))
                else:
                    want = max(1, int(self.budget * self.warm)) - self.done_iterations()
                    if want > 0:
                        tree.run(want, left or 0.0)
                        if self.done_iterations() < int(self.budget * self.warm):
                            continue
                self.begin_rounds()
                continue
            key, n = self.queue[0]
            before = tree.iterations
            tree.force_key = key
            try:
                tree.run(n, left or 0.0)
            finally:
                tree.force_key = -1
            self.queue[0][1] -= tree.iterations - before
            if self.queue[0][1] <= 0:
                self.queue.pop(0)
            if not self.queue:
                self.end_round()

    def begin_rounds(self) -> None:
        visits = {key: v for key, v, _, _ in self.tree.root_stats() if key in self.legal and v > 0}
        self.alive = sorted(visits, key=lambda k: -visits[k])[:self.width]
        self.rounds = math.ceil(math.log2(len(self.alive))) if len(self.alive) > 1 else 0
        self.stage = "rounds"
        self.plan()

    def plan(self) -> None:
        """The next round's queue: the budget left, shared over the rounds left and then over
        the survivors (the first few take the remainder, so the whole budget is spent)."""
        assert self.budget is not None   # set by the warm-up before the rounds begin
        left = self.budget - self.done_iterations()
        if self.round == self.rounds:
            self.queue = [[-1, left]] if left > 0 else []
            if not self.queue:
                self.stage = "done"
            return
        budget = max(len(self.alive), left // (self.rounds - self.round))
        self.queue = [[key, budget // len(self.alive) + (i < budget % len(self.alive))]
                      for i, key in enumerate(self.alive)]

    def end_round(self) -> None:
        if self.round == self.rounds:   # the unforced remainder (a single candidate) is spent
            self.stage = "done"
            return
        value = self.values()
        self.alive = sorted(self.alive, key=lambda k: -value.get(k, 0.0))[:max(1, len(self.alive) // 2)]
        self.round += 1
        if self.round == self.rounds:
            self.stage = "done"
        else:
            self.plan()
