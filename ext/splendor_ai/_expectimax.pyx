# cython: language_level=3
"""Depth-limited expectimax over a seat's information set, entirely in C (nogil).

The search (splendor_ai/players/expectimax.py documents the player around it):

- Worlds: `dets` full states are sampled from the view with `determinize` (the opponents' hidden
  blind reserves and the deck order). Every root move is searched in every world and its value
  is the average over the worlds.
- Depth counts whole turns. A turn is its main action followed by the same player's decisions
  (token returns, noble choice); those decisions are max nodes of that player (min nodes for an
  opponent under paranoid) and cost no depth. Leaves are turn boundaries (or finished games).
- Chance nodes: an action that draws from a deck (the refill after buying or reserving a face-up
  card, a blind reserve) is a chance node. Its outcomes are the cards the searching seat cannot
  see, for that deck: the world's deck plus the blind reserves of that deck held by the other
  seats. They are listed in card-id order (so they depend only on what the seat sees), enumerated
  when there are at most `chance_samples` of them, otherwise `chance_samples` of them are drawn
  without replacement; the children are averaged with equal weights. An outcome is applied by
  swapping the card onto the deck top (from the deck, or out of an opponent's blind reserve, which
  takes the old top card instead) in a copy of the state, then applying the action.
  With a Cities of Splendor module, a turn goes on after a draw (its decisions may use the new
  card: a Strongholds purchase's stronghold action may go onto the card that refilled its slot,
  docs/RULES.md "Two-step turns"), so the depth after each outcome is counted from that outcome;
  an Orient free card (its slot is refilled at once) and the action that resolves a conquest's
  refill (after the conquest's stronghold action) are chance nodes too (the Orient decks and
  slots 5-6 work like the regular ones).
  The sampling rng of a chance node is seeded from a hash of (seed, world, the state, the action),
  so the sampled tree is a function of the state: it does not depend on the search order or the
  path (alpha-beta windows, iterative deepening, transpositions and pruning never change a
  value), and the same seed and depth give the same values.
- Values are from the searching seat's point of view. Leaves: the static evaluation
  (`_policy.eval_state`), or with a network its win probability of every seat times eval_bound (the
  leaf's seat to move sees the sampled world as that seat would), my value minus the best opponent's
  (for two players: minus the opponent's), clamped to [-eval_bound, eval_bound]. Finished games: +-win_value (win_value = eval_bound + 2,
  less 0.01 per turn from the root so that nearer wins and farther losses are preferred; a share
  of a win or a draw is win_value * (2 * share - 1)). Every value lies in [-U, U], U = eval_bound + 2.
- Paranoid (the default; plain minimax for two players): the seat maximises, every opponent
  minimises; alpha-beta (fail-soft) with moves ordered by `_policy.score_actions`, best first, and
  Star2 pruning at chance nodes (Ballard's *-minimax) using the bounds [-U, U]: a probing pass
  searches only the first move after each outcome, which bounds the outcome's value from one side
  (from below at the searching seat's nodes, from above at an opponent's) and may already prove
  a cut-off; then the outcomes are searched in turn with Star1 windows, computed from the exact
  values so far and the probe bounds (or +-U) of the rest. `star2 = 0` leaves Star1 alone.
- Max^n (`algo = maxn`): a value vector per node, each seat's leaf value being its evaluation minus
  the best other seat's; every player maximises its own entry (ties: the earlier move in the
  ordering); no pruning.
- The root moves are whole turns (the action sequences of the view's legal moves). With
  `root_exact = 0` each one is searched with the full window, so every root move gets an exact
  value (for ranking and analysis). With `root_exact = k > 0` the root is alpha-beta too (a
  multi-PV search): moves are tried best first by the last depth, the worlds are treated as
  equally likely outcomes of a chance node (Star1), and a move that cannot beat the k-th best one
  before it gets an upper bound instead of its value. The k best moves (so the chosen move) and
  their values are the same as with exact values, found several times faster: a position with
  10 tokens in hand can have 500 whole turns at the root, each return choice a separate move.
- Transposition table (`tt_bits`, default 16: 2^16 entries of 16 bytes; 0 = none): alpha-beta
  nodes store their value with its bound type and their best move, keyed by a hash of the whole
  state and the world; an entry cuts the search only at the same depth, so values stay exactly
  those of the plain search. Transpositions are common where a player must return tokens
  (+wbg/-g and +wbk/-k end in the same state). Its best move is tried first (also across the
  iterations of iterative deepening). A principal variation stops where a transposition ended it.
- Iterative deepening: depth 1, 2, ... until `max_depth` or the deadline; an unfinished depth is
  thrown away (depth 1 always finishes). The next depth is not started when the time it would take,
  estimated from the growth of the last two depths, exceeds twice what is left.
"""
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, int16_t, int32_t, uint64_t
from posix.time cimport CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID, clock_gettime, timespec

from splendor_ai._engine cimport (
    A_BUY_HAND, A_BUY_SLOT, A_RES_DECK, A_RES_SLOT, DECKCAP, END_POINTS, MAXLEGAL, MAXP, NLEV,
    NREG, NSLOT, PH_MAIN, PH_RETURN, Core, Rng, State, Tables, action_key, apply_action, determinize,
    get_tables, legal_actions, rng_below, rng_next, rng_seed)
from splendor_ai._engine cimport A_BASE_END, A_CONQUER, A_FREE, A_SACRIFICE, NDECK, TASK_REFILL
from splendor_ai._policy cimport Weights, eval_state, fill_weights, score_actions, terminal_values
from splendor_ai._net cimport Net, Network, net_eval

cdef const Tables* T = get_tables()

cdef enum:
    ALGO_PARANOID = 0
    ALGO_MAXN = 1
    MAXDETS = 64
    MAXPLY = 256      # actions on one path: depth (turns) x at most 5 actions a turn
    MAXSEQ = 24       # actions of one whole turn: main + at most 3 returns + noble (+ module decisions)
    MAXDEPTH = 40
    MAXCHANCE = 64
    MAXTOP = 64       # root_exact: at most this many moves with exact values (0: all of them)

cdef double INF = 1e30

cdef enum:
    TT_EXACT = 1
    TT_LOWER = 2      # the value is a lower bound (the search failed high)
    TT_UPPER = 3      # an upper bound (failed low)

ctypedef struct TTEntry:
    uint64_t key
    float value
    int16_t move      # action id of the best move found, -1 if none
    int8_t depth      # turns left at the node
    int8_t flag       # 0: empty


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline double cpu_now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef inline uint64_t mix(uint64_t h, uint64_t x) noexcept nogil:
    """A 64-bit hash step (splitmix64 finaliser of h combined with x)."""
    cdef uint64_t z = h ^ (x + <uint64_t>0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2))
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef size_t RET_MIN_WORD = 0
cdef uint64_t RET_MIN_MASK = 0


def _init_hash():
    """Where State.ret_min sits, so the hash can leave it out outside the return phase."""
    global RET_MIN_WORD, RET_MIN_MASK
    cdef State probe
    cdef size_t off = <size_t>(<char*>&probe.ret_min - <char*>&probe)
    cdef uint64_t one = 1
    # little-endian byte order (x86-64, aarch64): byte b of a word is bits 8b..8b+7
    if (<char*>&one)[0] != 1:
        raise ImportError("_expectimax assumes a little-endian machine")
    RET_MIN_WORD = off // 8
    RET_MIN_MASK = ~((<uint64_t>0xFF) << (8 * (off % 8)))


_init_hash()


cdef inline uint64_t state_hash(const State* s) noexcept nogil:
    """A 64-bit hash of the whole state (a State holds a uint64_t, so it is 8-byte aligned and
    sized; bytes past a deck's top and padding are kept canonical by memcpy-only copies).
    `ret_min` only means something during returns (the engine leaves the last returned colour in
    it), so it is left out otherwise: +wbg/-g and +wbk/-k then end in the same hash."""
    cdef const uint64_t* w = <const uint64_t*>s
    cdef size_t i
    cdef uint64_t x, h = <uint64_t>0x243F6A8885A308D3ULL
    for i in range(sizeof(State) // 8):
        x = w[i]
        if i == RET_MIN_WORD and s.phase != PH_RETURN:
            x &= RET_MIN_MASK
        h = (h ^ x) * <uint64_t>0x9E3779B97F4A7C15ULL
        h ^= h >> 29
    return h


cdef inline int draw_deck(const State* s, int a) noexcept nogil:
    """The deck an action draws from, or -1 when it draws nothing."""
    cdef int i, lv, sl
    if a >= A_RES_SLOT and a < A_RES_DECK:
        i = a - A_RES_SLOT
    elif a >= A_RES_DECK and a < A_BUY_SLOT:
        i = a - A_RES_DECK
        return i if s.deck_len[i] > 0 else -1
    elif a >= A_BUY_SLOT and a < A_BUY_HAND:
        i = a - A_BUY_SLOT
    else:
        return -1
    lv = i // NSLOT
    sl = i % NSLOT
    i = lv if sl < NREG else NLEV + lv
    return i if s.deck_len[i] > 0 else -1


cdef int module_draw_deck(const State* s, int a) noexcept nogil:
    """Cities of Splendor decisions that draw a card: an Orient free card refills its slot at once;
    a conquest's slot is refilled after the conquest's stronghold action, so whichever action
    resolves a pending TASK_REFILL draws (found by applying it to a copy). Returns the deck, or
    -1 (also when one action would draw twice: then the world's deck order stands)."""
    cdef int i, lv, sl, d, found = -1
    # a conquest may refill within the action itself (when its stronghold action has no option)
    cdef bint refill = a == A_CONQUER
    cdef State c
    if a >= A_FREE and a < A_SACRIFICE:
        i = a - A_FREE
        lv = i // NSLOT
        sl = i % NSLOT
        i = lv if sl < NREG else NLEV + lv
        if s.deck_len[i] == 0:
            return -1
        for d in range(s.ntodo):   # a free card's chain might reach a pending refill too
            if s.todo[d] == TASK_REFILL:
                refill = True
        if not refill:
            return i
    for d in range(s.ntodo):
        if s.todo[d] == TASK_REFILL:
            refill = True
    if not refill:
        return -1
    memcpy(&c, s, sizeof(State))
    apply_action(&c, a)
    for d in range(NDECK):
        if c.deck_len[d] != s.deck_len[d]:
            if found >= 0 or c.deck_len[d] != s.deck_len[d] - 1:
                return -1
            found = d
    return found


cdef class Search:
    """One expectimax search of a view over the given whole-turn root moves. Not thread-safe."""
    cdef State root
    cdef State worlds[MAXDETS]
    cdef uint64_t world_hash[MAXDETS]
    cdef uint64_t whash      # world_hash of the world being searched
    cdef TTEntry* tt
    cdef uint64_t tt_mask
    cdef public long tt_hits
    cdef int nworlds, nroot, seat, nplayers, algo, chance_k, root_exact, star2
    cdef int* order          # root moves in search order (root_exact > 0: best first by the last depth)
    cdef int* nexact         # worlds in which a root move's value is exact, last finished depth
    cdef int* cur_nexact
    cdef int* seq            # nroot x MAXSEQ action ids
    cdef int* seqlen
    cdef double* val         # nroot x MAXP: values of the last finished depth (averaged over worlds)
    cdef double* cur         # the same, for the depth being searched
    cdef long* rnodes        # nodes below each root move, last finished depth
    cdef long* cur_rnodes
    cdef int16_t* rpv        # nroot x MAXPLY: principal variation (action keys) in world 0
    cdef int* rpvlen
    cdef int16_t* cur_rpv
    cdef int* cur_rpvlen
    cdef Weights wt
    cdef float eval_bound, win, bound
    cdef Network network        # None: the static evaluation at the leaves
    cdef const Net* net
    cdef public long nodes         # states visited, all depths
    cdef public long chance_nodes
    cdef public int depth_done
    cdef public double seconds
    cdef public double cpu_seconds   # CPU time of the searching thread in run()
    cdef public list depth_seconds
    cdef double deadline
    cdef int use_deadline, aborted
    # triangular principal-variation table, and the saved line of a chance node's first outcome
    cdef int16_t pv[MAXPLY][MAXPLY]
    cdef int pvlen[MAXPLY]
    cdef int16_t cpv[MAXPLY][MAXPLY]
    cdef int cpvlen[MAXPLY]

    def __cinit__(self):
        self.seq = NULL
        self.seqlen = NULL
        self.tt = NULL
        self.order = NULL
        self.nexact = NULL
        self.cur_nexact = NULL
        self.val = NULL
        self.cur = NULL
        self.rnodes = NULL
        self.cur_rnodes = NULL
        self.rpv = NULL
        self.rpvlen = NULL
        self.cur_rpv = NULL
        self.cur_rpvlen = NULL

    def __dealloc__(self):
        free(self.seq)
        free(self.seqlen)
        free(self.tt)
        free(self.order)
        free(self.nexact)
        free(self.cur_nexact)
        free(self.val)
        free(self.cur)
        free(self.rnodes)
        free(self.cur_rnodes)
        free(self.rpv)
        free(self.rpvlen)
        free(self.cur_rpv)
        free(self.cur_rpvlen)

    def __init__(self, Core view, list moves, dict params, uint64_t seed, int dets=1, Network network=None):
        """`moves`: the root whole turns as action-id sequences (View.legal_moves._table values).
        `params`: algo (0 paranoid, 1 maxn), chance_samples, eval_bound, weights (10 floats)."""
        cdef int i, j
        cdef Rng rng
        if view.s.over:
            raise ValueError("the game is over")
        if not moves:
            raise ValueError("no root moves")
        if not 1 <= dets <= MAXDETS:
            raise ValueError(f"dets must be 1-{MAXDETS}")
        p = dict(params)
        self.algo = p.pop("algo")
        self.chance_k = p.pop("chance_samples")
        self.eval_bound = p.pop("eval_bound")
        self.root_exact = p.pop("root_exact", 0)
        self.star2 = p.pop("star2", 1)
        tt_bits = p.pop("tt_bits", 16)
        if not 0 <= tt_bits <= 30:
            raise ValueError("tt_bits must be 0 (no table) or 1-30")
        if tt_bits:
            self.tt = <TTEntry*>calloc((<size_t>1) << tt_bits, sizeof(TTEntry))
            if self.tt == NULL:
                raise MemoryError()
            self.tt_mask = ((<uint64_t>1) << tt_bits) - 1
        self.tt_hits = 0
        weights = p.pop("weights")
        module_weights = p.pop("module_weights", None)
        phase_weights = p.pop("phase_weights", None)
        if p:
            raise ValueError(f"unknown search parameters: {sorted(p)}")
        self.network = network
        self.net = &network.net if network is not None else NULL
        if self.algo not in (ALGO_PARANOID, ALGO_MAXN):
            raise ValueError("algo must be 0 (paranoid) or 1 (maxn)")
        if not 1 <= self.chance_k <= MAXCHANCE:
            raise ValueError(f"chance_samples must be 1-{MAXCHANCE}")
        if not 0 <= self.root_exact <= MAXTOP:
            raise ValueError(f"root_exact must be 0 (all) or 1-{MAXTOP}")
        if not self.eval_bound > 0:
            raise ValueError("eval_bound must be positive")
        fill_weights(&self.wt, weights, module_weights, phase_weights)
        self.win = self.eval_bound + 2
        self.bound = self.win
        memcpy(&self.root, &view.s, sizeof(State))
        self.seat = view.s.to_move
        self.nplayers = view.s.nplayers
        self.nroot = len(moves)
        self.seq = <int*>malloc(self.nroot * MAXSEQ * sizeof(int))
        self.seqlen = <int*>malloc(self.nroot * sizeof(int))
        self.order = <int*>malloc(self.nroot * sizeof(int))
        self.nexact = <int*>malloc(self.nroot * sizeof(int))
        self.cur_nexact = <int*>malloc(self.nroot * sizeof(int))
        self.val = <double*>malloc(self.nroot * MAXP * sizeof(double))
        self.cur = <double*>malloc(self.nroot * MAXP * sizeof(double))
        self.rnodes = <long*>malloc(self.nroot * sizeof(long))
        self.cur_rnodes = <long*>malloc(self.nroot * sizeof(long))
        self.rpv = <int16_t*>malloc(self.nroot * MAXPLY * sizeof(int16_t))
        self.rpvlen = <int*>malloc(self.nroot * sizeof(int))
        self.cur_rpv = <int16_t*>malloc(self.nroot * MAXPLY * sizeof(int16_t))
        self.cur_rpvlen = <int*>malloc(self.nroot * sizeof(int))
        if (self.seq == NULL or self.seqlen == NULL or self.order == NULL or self.nexact == NULL
                or self.cur_nexact == NULL or self.val == NULL or self.cur == NULL
                or self.rnodes == NULL or self.cur_rnodes == NULL or self.rpv == NULL
                or self.rpvlen == NULL or self.cur_rpv == NULL or self.cur_rpvlen == NULL):
            raise MemoryError()
        for i, m in enumerate(moves):
            if not 1 <= len(m) <= MAXSEQ:
                raise ValueError(f"root move {m!r}: expected 1-{MAXSEQ} actions")
            self.seqlen[i] = len(m)
            for j, a in enumerate(m):
                self.seq[i * MAXSEQ + j] = a
            self.rnodes[i] = 0
            self.rpvlen[i] = 0
            self.order[i] = i
            self.nexact[i] = 0
            for j in range(MAXP):
                self.val[i * MAXP + j] = 0
        rng_seed(&rng, seed)
        self.nworlds = dets
        for i in range(dets):
            memcpy(&self.worlds[i], &self.root, sizeof(State))
            if determinize(&self.worlds[i], &rng) != 0:
                raise ValueError("the view's hidden cards do not match its unseen cards")
            self.world_hash[i] = mix(seed, <uint64_t>(i + 1))
        self.nodes = 0
        self.chance_nodes = 0
        self.depth_done = 0
        self.seconds = 0
        self.cpu_seconds = 0
        self.depth_seconds = []
        self.use_deadline = 0
        self.aborted = 0

    # -- values -----------------------------------------------------------------------------------

    cdef float terminal_score(self, const State* s, int seat) noexcept nogil:
        cdef float tv[MAXP]
        cdef float w = self.win - 0.01 * (s.turn - self.root.turn)
        terminal_values(s, tv)
        if w < self.eval_bound + 1:
            w = self.eval_bound + 1
        return w * (2 * tv[seat] - 1)

    cdef void leaf_eval(self, const State* s, float* e) noexcept nogil:
        """Every seat's leaf evaluation: the static one, or the network's win probability scaled
        to the evaluation's range."""
        cdef int q
        if self.net != NULL:
            net_eval(self.net, s, NULL, 0, NULL, e)
            for q in range(s.nplayers):
                e[q] *= self.eval_bound
        else:
            eval_state(s, &self.wt, e)

    cdef float leaf_score(self, const float* e, int seat) noexcept nogil:
        cdef int i
        cdef float best = -INF, v
        for i in range(self.nplayers):
            if i != seat and e[i] > best:
                best = e[i]
        v = e[seat] - best
        if v > self.eval_bound:
            return self.eval_bound
        if v < -self.eval_bound:
            return -self.eval_bound
        return v

    # -- move ordering and chance outcomes -----------------------------------------------------------

    cdef int ordered_actions(self, const State* s, int* acts) noexcept nogil:
        """The legal actions, best first by the heuristic scores (stable)."""
        cdef float sc[MAXLEGAL]
        cdef int n = legal_actions(s, acts), i, j, a
        cdef float x
        if n > 1:
            score_actions(s, acts, n, sc)
            for i in range(1, n):
                x = sc[i]
                a = acts[i]
                j = i - 1
                while j >= 0 and sc[j] < x:
                    sc[j + 1] = sc[j]
                    acts[j + 1] = acts[j]
                    j -= 1
                sc[j + 1] = x
                acts[j + 1] = a
        return n

    cdef int outcomes(self, const State* s, int d, uint64_t h, int8_t* out) noexcept nogil:
        """The cards a draw from deck `d` may reveal, as the searching seat sees it (see the module
        docstring). Returns their number, 0 when the draw is certain."""
        cdef uint64_t mask[2]
        cdef int8_t pool[DECKCAP + 3 * MAXP]
        cdef int j, q, card, n = 0, k, t
        cdef int8_t x
        cdef Rng r
        mask[0] = 0
        mask[1] = 0
        for j in range(s.deck_len[d]):
            card = s.deck[d][j]
            mask[card >> 6] |= (<uint64_t>1) << (card & 63)
        for q in range(s.nplayers):
            if q != self.seat:
                for j in range(s.p[q].nres):
                    if s.p[q].res_deck[j] == d:
                        card = s.p[q].res[j]
                        mask[card >> 6] |= (<uint64_t>1) << (card & 63)
        for card in range(T.deck_first[d], T.deck_first[d] + T.deck_size[d]):
            if (mask[card >> 6] >> (card & 63)) & 1:
                pool[n] = card
                n += 1
        if n <= 1:
            return 0
        k = self.chance_k
        if n <= k:
            memcpy(out, pool, n)
            return n
        rng_seed(&r, h)
        for j in range(k):
            t = j + <int>rng_below(&r, n - j)
            x = pool[t]
            pool[t] = pool[j]
            pool[j] = x
            out[j] = x
        return k

    cdef void put_on_top(self, State* s, int d, int card) noexcept nogil:
        """Make `card` the top of deck `d`, swapping it with the old top (in the deck or in another
        seat's blind reserve)."""
        cdef int top = s.deck_len[d] - 1, j, q
        cdef int8_t old = s.deck[d][top]
        if old == card:
            return
        for j in range(top):
            if s.deck[d][j] == card:
                s.deck[d][j] = old
                s.deck[d][top] = card
                return
        for q in range(s.nplayers):
            if q != self.seat:
                for j in range(s.p[q].nres):
                    if s.p[q].res_deck[j] == d and s.p[q].res[j] == card:
                        s.p[q].res[j] = old
                        s.deck[d][top] = card
                        return

    cdef inline void tick(self) noexcept nogil:
        self.nodes += 1
        if self.use_deadline and (self.nodes & 1023) == 0 and now() >= self.deadline:
            self.aborted = 1

    # -- paranoid / minimax with alpha-beta and Star1 -------------------------------------------------

    cdef float ab(self, State* s, int depth, float alpha, float beta, int ply,
                  const int* forced, int nforced, int probe) noexcept nogil:
        """The value of `s` for the searching seat, fail-soft within (alpha, beta). `forced`: the
        rest of a root move's actions (only those are tried here). `probe`: try only the first
        move (a Star2 probe: a bound, not the value)."""
        cdef int acts[MAXLEGAL]
        cdef float e[MAXP]
        cdef int n, i, k, j, bestmove = -1, ttmove = -1
        cdef float v, best, alpha0 = alpha, beta0 = beta
        cdef bint maximize
        cdef uint64_t key
        cdef TTEntry* tte = NULL
        self.tick()
        self.pvlen[ply] = 0
        if self.aborted:
            return 0
        if s.over:
            return self.terminal_score(s, self.seat)
        if (depth <= 0 and s.phase == PH_MAIN and nforced == 0) or ply >= MAXPLY - 2:
            self.leaf_eval(s, e)
            return self.leaf_score(e, self.seat)
        key = mix(state_hash(s), self.whash)
        if nforced > 0:
            acts[0] = forced[0]
            n = 1
        else:
            if self.tt != NULL:
                tte = &self.tt[key & self.tt_mask]
                if tte.flag and tte.key == key:
                    ttmove = tte.move
                    if tte.depth == depth and (tte.flag == TT_EXACT or (tte.flag == TT_LOWER and tte.value >= beta)
                                               or (tte.flag == TT_UPPER and tte.value <= alpha)):
                        self.tt_hits += 1
                        return tte.value
            n = self.ordered_actions(s, acts)
            if ttmove >= 0:   # the best move of an earlier search of this state first
                for i in range(n):
                    if acts[i] == ttmove:
                        while i > 0:
                            acts[i] = acts[i - 1]
                            i -= 1
                        acts[0] = ttmove
                        break
            if probe:
                n = 1
        maximize = s.to_move == self.seat
        best = -INF if maximize else INF
        for i in range(n):
            k = action_key(s, acts[i])
            v = self.child(s, acts[i], depth, alpha, beta, mix(key, <uint64_t>acts[i]), ply,
                           forced + 1 if nforced > 0 else forced, nforced - 1 if nforced > 0 else 0)
            if self.aborted:
                return 0
            if (v > best) if maximize else (v < best):
                best = v
                bestmove = acts[i]
                self.pv[ply][0] = k
                for j in range(self.pvlen[ply + 1]):
                    self.pv[ply][j + 1] = self.pv[ply + 1][j]
                self.pvlen[ply] = self.pvlen[ply + 1] + 1
            if maximize:
                if best > alpha:
                    alpha = best
            elif best < beta:
                beta = best
            if alpha >= beta:
                break
        if tte != NULL and not probe:
            tte.key = key
            tte.value = best
            tte.move = bestmove
            tte.depth = depth
            tte.flag = TT_UPPER if best <= alpha0 else (TT_LOWER if best >= beta0 else TT_EXACT)
        return best

    cdef float child(self, const State* s, int a, int depth, float alpha, float beta, uint64_t h,
                     int ply, const int* forced, int nforced) noexcept nogil:
        """The value of applying action `a` to `s`, fail-soft within (alpha, beta): a chance node
        when it draws a card, searched with Star2 probing and Star1 windows."""
        cdef State c
        cdef int8_t outs[MAXCHANCE]
        cdef float ub[MAXCHANCE]
        cdef float lb[MAXCHANCE]
        cdef int d = draw_deck(s, a), n = 0, i, j, cd
        cdef float v, lo, hi, total = 0, sum_ub, sum_lb, U = self.bound, L = -self.bound
        if d < 0 and s.modules and a >= A_BASE_END:
            d = module_draw_deck(s, a)
        if d >= 0:
            n = self.outcomes(s, d, h, outs)
        if n == 0:
            memcpy(&c, s, sizeof(State))
            apply_action(&c, a)
            return self.ab(&c, depth - (c.turn - s.turn), alpha, beta, ply + 1, forced, nforced, 0)
        self.chance_nodes += 1
        for i in range(n):
            ub[i] = U
            lb[i] = L
        sum_ub = n * U
        sum_lb = n * L
        # every outcome leads to the same kind of node: the draw changes no token, bonus or turn
        memcpy(&c, s, sizeof(State))
        self.put_on_top(&c, d, outs[0])
        apply_action(&c, a)
        cd = depth - (c.turn - s.turn)
        if self.star2 and nforced == 0 and not c.over and not (cd <= 0 and c.phase == PH_MAIN):
            # Star2: search only the first (best-ordered) move after each outcome. At max nodes
            # that is a lower bound, which may prove a fail high; at min nodes an upper bound,
            # which may prove a fail low. The bounds then tighten the Star1 windows below.
            if c.to_move == self.seat and beta <= U:
                for i in range(n):
                    hi = n * beta - (sum_lb - L)
                    if hi > U:
                        hi = U + 1
                    if i > 0:
                        memcpy(&c, s, sizeof(State))
                        self.put_on_top(&c, d, outs[i])
                        apply_action(&c, a)
                        cd = depth - (c.turn - s.turn)
                    v = self.ab(&c, cd, L - 1, hi, ply + 1, forced, 0, 1)
                    if self.aborted:
                        return 0
                    lb[i] = v
                    sum_lb += v - L
                    if sum_lb >= n * beta:
                        v = sum_lb / n
                        return v if v > beta else beta
            elif c.to_move != self.seat and alpha >= L:
                for i in range(n):
                    lo = n * alpha - (sum_ub - U)
                    if lo < L:
                        lo = L - 1
                    if i > 0:
                        memcpy(&c, s, sizeof(State))
                        self.put_on_top(&c, d, outs[i])
                        apply_action(&c, a)
                        cd = depth - (c.turn - s.turn)
                    v = self.ab(&c, cd, lo, U + 1, ply + 1, forced, 0, 1)
                    if self.aborted:
                        return 0
                    ub[i] = v
                    sum_ub += v - U
                    if sum_ub <= n * alpha:
                        v = sum_ub / n
                        return v if v < alpha else alpha
        for i in range(n):
            # Star1: the window outcome i must hit for the average to leave (alpha, beta), given
            # the exact values before it and the bounds of the ones after it
            sum_ub -= ub[i]
            sum_lb -= lb[i]
            lo = n * alpha - total - sum_ub
            hi = n * beta - total - sum_lb
            if lo < L:
                lo = L - 1
            if hi > U:
                hi = U + 1
            memcpy(&c, s, sizeof(State))
            self.put_on_top(&c, d, outs[i])
            apply_action(&c, a)
            cd = depth - (c.turn - s.turn)
            v = self.ab(&c, cd, lo, hi, ply + 1, forced, nforced, 0)
            if self.aborted:
                return 0
            total += v
            if i == 0:
                self.cpvlen[ply] = self.pvlen[ply + 1]
                for j in range(self.pvlen[ply + 1]):
                    self.cpv[ply][j] = self.pv[ply + 1][j]
            if v <= lo or total + sum_ub <= n * alpha:
                # the average cannot rise above alpha: an upper bound (fail low)
                v = (total + sum_ub) / n
                return v if v < alpha else alpha
            if v >= hi or total + sum_lb >= n * beta:
                # the average cannot fall below beta: a lower bound (fail high)
                v = (total + sum_lb) / n
                return v if v > beta else beta
        self.pvlen[ply + 1] = self.cpvlen[ply]
        for j in range(self.cpvlen[ply]):
            self.pv[ply + 1][j] = self.cpv[ply][j]
        return total / n

    # -- max^n --------------------------------------------------------------------------------------

    cdef void maxn(self, State* s, int depth, int ply, const int* forced, int nforced,
                   float* out) noexcept nogil:
        cdef int acts[MAXLEGAL]
        cdef float e[MAXP]
        cdef float v[MAXP]
        cdef int n, i, k, j, q, mover
        cdef float best = -INF
        cdef uint64_t key
        self.tick()
        self.pvlen[ply] = 0
        if self.aborted:
            return
        if s.over:
            for q in range(self.nplayers):
                out[q] = self.terminal_score(s, q)
            return
        if (depth <= 0 and s.phase == PH_MAIN and nforced == 0) or ply >= MAXPLY - 2:
            self.leaf_eval(s, e)
            for q in range(self.nplayers):
                out[q] = self.leaf_score(e, q)
            return
        key = mix(state_hash(s), self.whash)
        if nforced > 0:
            acts[0] = forced[0]
            n = 1
        else:
            n = self.ordered_actions(s, acts)
        mover = s.to_move
        for i in range(n):
            k = action_key(s, acts[i])
            self.maxn_child(s, acts[i], depth, mix(key, <uint64_t>acts[i]), ply,
                            forced + 1 if nforced > 0 else forced, nforced - 1 if nforced > 0 else 0, v)
            if self.aborted:
                return
            if v[mover] > best:
                best = v[mover]
                for q in range(self.nplayers):
                    out[q] = v[q]
                self.pv[ply][0] = k
                for j in range(self.pvlen[ply + 1]):
                    self.pv[ply][j + 1] = self.pv[ply + 1][j]
                self.pvlen[ply] = self.pvlen[ply + 1] + 1

    cdef void maxn_child(self, const State* s, int a, int depth, uint64_t h, int ply,
                         const int* forced, int nforced, float* out) noexcept nogil:
        cdef State c
        cdef int8_t outs[MAXCHANCE]
        cdef float v[MAXP]
        cdef int d = draw_deck(s, a), n = 0, i, j, q
        if d < 0 and s.modules and a >= A_BASE_END:
            d = module_draw_deck(s, a)
        if d >= 0:
            n = self.outcomes(s, d, h, outs)
        if n == 0:
            memcpy(&c, s, sizeof(State))
            apply_action(&c, a)
            self.maxn(&c, depth - (c.turn - s.turn), ply + 1, forced, nforced, out)
            return
        self.chance_nodes += 1
        for q in range(self.nplayers):
            out[q] = 0
        for i in range(n):
            memcpy(&c, s, sizeof(State))
            self.put_on_top(&c, d, outs[i])
            apply_action(&c, a)
            self.maxn(&c, depth - (c.turn - s.turn), ply + 1, forced, nforced, v)
            if self.aborted:
                return
            for q in range(self.nplayers):
                out[q] += v[q]
            if i == 0:
                self.cpvlen[ply] = self.pvlen[ply + 1]
                for j in range(self.pvlen[ply + 1]):
                    self.cpv[ply][j] = self.pv[ply + 1][j]
        for q in range(self.nplayers):
            out[q] /= n
        self.pvlen[ply + 1] = self.cpvlen[ply]
        for j in range(self.cpvlen[ply]):
            self.pv[ply + 1][j] = self.cpv[ply][j]

    # -- driver -------------------------------------------------------------------------------------

    cdef int search_depth(self, int depth) noexcept nogil:
        """Search every root move at `depth` into cur*: its value averaged over the worlds (exact,
        or with root_exact = k > 0 an upper bound when it cannot beat the k-th best move before
        it; the worlds are then the outcomes of a chance node, with Star1 windows). Returns 0, or
        1 if the deadline stopped it."""
        cdef State s
        cdef float v[MAXP]
        cdef float alpha, lo = 0, total, U = self.bound, L = -self.bound   # lo: set before use (in the paranoid branch)
        cdef float top[MAXTOP]      # the best values so far, best first
        cdef int w, i, m, q, j, nw = self.nworlds, ntop = 0, k = self.root_exact
        cdef long before
        for i in range(self.nroot):
            m = self.order[i]
            self.cur_rnodes[m] = 0
            self.cur_rpvlen[m] = 0
            self.cur_nexact[m] = 1
            for q in range(MAXP):
                self.cur[m * MAXP + q] = 0
            # a move is searched exactly when it may be among the k best so far (k = 0: all moves)
            alpha = top[k - 1] if k > 0 and ntop >= k else -self.bound - 1
            before = self.nodes
            total = 0
            for w in range(nw):
                memcpy(&s, &self.worlds[w], sizeof(State))
                self.whash = self.world_hash[w]
                if self.algo == ALGO_MAXN:
                    self.maxn(&s, depth, 0, &self.seq[m * MAXSEQ], self.seqlen[m], v)
                else:
                    lo = nw * alpha - total - (nw - 1 - w) * U
                    if lo < L:
                        lo = L - 1
                    v[self.seat] = self.ab(&s, depth, lo, U + 1, 0, &self.seq[m * MAXSEQ], self.seqlen[m], 0)
                if self.aborted:
                    return 1
                if w == 0:
                    self.cur_rpvlen[m] = self.pvlen[0]
                    for j in range(self.pvlen[0]):
                        self.cur_rpv[m * MAXPLY + j] = self.pv[0][j]
                if self.algo == ALGO_MAXN:
                    for q in range(self.nplayers):
                        self.cur[m * MAXP + q] += v[q] / nw
                    continue
                total += v[self.seat]
                if v[self.seat] <= lo or total + (nw - 1 - w) * U <= nw * alpha:
                    # no better than the best move so far: an upper bound
                    self.cur_nexact[m] = 0
                    total = (total + (nw - 1 - w) * U) / nw
                    if total > alpha:
                        total = alpha
                    break
            else:
                total /= nw
            self.cur_rnodes[m] = self.nodes - before
            if self.algo != ALGO_MAXN:
                self.cur[m * MAXP + self.seat] = total
                if k > 0 and self.cur_nexact[m]:
                    j = ntop if ntop < k else k - 1
                    if ntop < k:
                        ntop += 1
                    elif total <= top[k - 1]:
                        continue
                    while j > 0 and top[j - 1] < total:
                        top[j] = top[j - 1]
                        j -= 1
                    top[j] = total
        return 0

    cdef void sort_root(self) noexcept nogil:
        """Order the root moves best first by the last finished depth (stable)."""
        cdef int i, j, m
        for i in range(self.nroot):
            self.order[i] = i
        for i in range(1, self.nroot):
            m = self.order[i]
            j = i - 1
            while j >= 0 and self.val[self.order[j] * MAXP + self.seat] < self.val[m * MAXP + self.seat]:
                self.order[j + 1] = self.order[j]
                j -= 1
            self.order[j + 1] = m

    def run(self, int max_depth=0, double seconds=0.0):
        """Iterative deepening from depth 1 to `max_depth` (0: no depth limit) within `seconds`
        (0: no time limit; at least one limit must be given). Depth 1 always finishes. Returns
        the depth of the kept result."""
        cdef double start = now(), cpu_start = cpu_now(), t0, t1, last = 0, prev = 0, grow
        cdef int d, m, q, stopped = 0
        if max_depth <= 0 and seconds <= 0:
            raise ValueError("give a depth or a time limit")
        if max_depth <= 0 or max_depth > MAXDEPTH:
            max_depth = MAXDEPTH
        self.deadline = start + seconds
        with nogil:
            # a fixed depth needs no shallower searches, unless they order the root moves
            d = 1 if seconds > 0 or self.root_exact > 0 else max_depth
            while d <= max_depth:
                t0 = now()
                if seconds > 0 and d > 1:
                    # do not start a depth that has little chance to finish: assume it grows like
                    # the last one, and give up when that needs over twice the time left
                    grow = last / prev if prev > 0 else 10.0
                    if grow < 2:
                        grow = 2
                    if t0 + last * grow > t0 + 2 * (self.deadline - t0):
                        break
                self.use_deadline = seconds > 0 and d > 1
                self.aborted = 0
                stopped = self.search_depth(d)
                if stopped:
                    break
                t1 = now()
                prev = last
                last = t1 - t0
                with gil:
                    self.depth_seconds.append(last)
                for m in range(self.nroot):
                    self.rnodes[m] = self.cur_rnodes[m]
                    self.nexact[m] = self.cur_nexact[m]
                    for q in range(MAXP):
                        self.val[m * MAXP + q] = self.cur[m * MAXP + q]
                    self.rpvlen[m] = self.cur_rpvlen[m]
                    memcpy(&self.rpv[m * MAXPLY], &self.cur_rpv[m * MAXPLY], self.cur_rpvlen[m] * sizeof(int16_t))
                self.depth_done = d
                if self.root_exact > 0 and self.algo != ALGO_MAXN:
                    self.sort_root()
                if seconds > 0 and now() >= self.deadline:
                    break
                d += 1
        self.use_deadline = 0
        self.aborted = 0
        self.seconds += now() - start
        self.cpu_seconds += cpu_now() - cpu_start
        return self.depth_done

    def results(self):
        """[(values per seat, nodes below, principal variation keys, exact)] per root move, in the
        order given; for paranoid only the searching seat's value is set (the others are None).
        The principal variation (world 0) starts with the root move's own actions. `exact` is
        False when, with root_exact = k > 0, the value is an upper bound (a move alpha-beta showed
        to be no better than the k-th best one searched before it)."""
        out = []
        cdef int m, q, j
        for m in range(self.nroot):
            if self.algo == ALGO_MAXN:
                vals = [self.val[m * MAXP + q] for q in range(self.nplayers)]
            else:
                vals = [self.val[m * MAXP + q] if q == self.seat else None for q in range(self.nplayers)]
            pv = [self.rpv[m * MAXPLY + j] for j in range(self.rpvlen[m])]
            out.append((vals, self.rnodes[m], pv, bool(self.nexact[m])))
        return out

    @property
    def win_value(self):
        return self.win

    @property
    def worlds(self):
        return self.nworlds
