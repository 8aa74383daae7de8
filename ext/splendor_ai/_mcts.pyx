# cython: language_level=3
"""Monte Carlo tree search over a seat's information set, entirely in C.

Modes:
- ISMCTS (single-observer information-set MCTS): every iteration samples a fresh world from the
  seat's view (determinize) and walks one shared tree; children are keyed by context-free action
  keys, so a child means the same choice in every world, and exploration uses availability counts.
- PIMC (determinized ensemble): `dets` worlds sampled once, one tree each, root statistics summed.
- PERFECT: the true state is searched directly (only for measuring the price of hidden
  information; splendor_ai never uses it for hints or analysis).
Selection is PUCT with priors (the heuristic action scores, or the network's policy) or plain UCT.
Leaves are evaluated by a policy playout, to the end or cut off after some turns and scored by the
static evaluation (classic), or by the network's value (at the leaf, or at the end of a short
playout). The network sees each position as its seat to move knows it in the sampled world
(splendor_ai._features), never the true state behind the searching seat's view.
"""
from libc.math cimport log, sqrt
from libc.stdlib cimport free, malloc, realloc
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, int16_t, int32_t, uint32_t, uint64_t
from posix.time cimport CLOCK_MONOTONIC, clock_gettime, timespec

from splendor_ai._engine cimport (
    MAXLEGAL, MAXP, MAXRES, NKEYS, Core, Deal, Player, Rng, State, action_key, action_keys, apply_action, deal_apply,
    deal_prepare, determinize, legal_actions, random_playout, rng_next, rng_seed)
from splendor_ai._policy cimport Weights, fill_weights, policy_playout, score_actions, terminal_values, win_probs
from splendor_ai._net cimport Net, Network, net_eval, softmax

cdef enum:
    MODE_ISMCTS = 0
    MODE_PIMC = 1
    MODE_PERFECT = 2
    MAXDETS = 64
    MAXDEPTH = 512
    # prior cache: the legal actions, their keys and priors of the positions met at tree nodes
    # visited at least CACHE_MIN_VISITS times, in a hash table of CACHE_SLOTS entries (one per
    # slot, the newest kept) whose lists take at most POOL_MAX_WORDS words (then it restarts)
    CACHE_MIN_VISITS = 8
    # network priors kept per evaluated node: at most this many (6 bytes each, 0.8 GB); beyond,
    # a node is evaluated afresh at each visit, in that visit's sampled world
    PRI_MAX = 1 << 27
    CACHE_SLOTS = 1 << 15
    POOL_MAX_WORDS = 1 << 23

ctypedef struct Node:
    int32_t kids         # offset of this node's block of children in Search.kids (-1: none yet)
    int16_t nkids        # children, in the order they were created; read newest first
    int16_t kcap         # the block's capacity
    int32_t visits
    int32_t avail        # how often this child was legal when its parent was visited
    int32_t pri          # network priors of this node's actions: offset into Search.pri_keys /
                         # pri_vals (-1: not evaluated yet), pri_n of them
    int16_t pri_n
    float w[MAXP]        # total reward of each seat; w[mover] steers selection, where `mover`
                         # is the player who chose this node's action
    float prior
    int16_t key
    int8_t mover

ctypedef struct Params:
    float c              # exploration constant (at a node of few visits)
    float c_base         # > 0: PUCT exploration grows with the node's visits N, as
                         # c * (1 + log(1 + N / c_base)); 0: constant c
    int puct             # 1: PUCT with heuristic priors; 0: UCT
    float prior_temp     # softmax temperature of the priors over the action scores
    float fpu            # first-play urgency reduction below the mover's average at the node
    float eps            # playout policy: probability of a uniformly random action
    int random_rollout   # 1: uniform random playouts (the plain-UCT baseline)
    int cutoff           # playout length in turns before evaluating (0: to the end)
    float eval_scale     # confidence per evaluation point when turning values into win chances
    Weights weights
    int net_priors       # 1: priors from the network's policy (needs a network)
    int net_values       # 1: leaf values from the network's value head (needs a network)
    float net_temp       # softmax temperature of the network's policy logits
    float net_prior_share  # with net_priors: the network's share of a prior, the rest the
                         # heuristic one's (1: the network's alone)
    float net_mix        # < 1: a leaf's value is net_mix * the network's + (1 - net_mix) * the
                         # classic playout's (cutoff turns, fitted evaluation), as AlphaGo mixed


cdef inline double now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef int PRIOR_CACHE = 1   # 0: no prior cache (tests check that it changes nothing)


def set_prior_cache(bint on):
    """Switch the prior cache on or off (for tests: the searches must be the same either way)."""
    global PRIOR_CACHE
    PRIOR_CACHE = on


cdef inline void mix4(uint64_t* h, const uint64_t* w, size_t n) noexcept nogil:
    """Fold n words into the four lanes of h, word i into lane i % 4 (n a multiple of 4): four
    independent multiply chains rather than one long chain of dependent multiplies."""
    cdef size_t q
    for q in range(0, n, 4):
        h[0] = (h[0] ^ w[q]) * <uint64_t>0x9E3779B97F4A7C15ULL
        h[1] = (h[1] ^ w[q + 1]) * <uint64_t>0x9E3779B97F4A7C15ULL
        h[2] = (h[2] ^ w[q + 2]) * <uint64_t>0x9E3779B97F4A7C15ULL
        h[3] = (h[3] ^ w[q + 3]) * <uint64_t>0x9E3779B97F4A7C15ULL
        h[0] ^= h[0] >> 29
        h[1] ^= h[1] >> 29
        h[2] ^= h[2] >> 29
        h[3] ^= h[3] >> 29


cdef inline void mix_bytes(uint64_t* h, const void* at, size_t nbytes) noexcept nogil:
    """mix4 over nbytes bytes from `at` (8-byte aligned), the last block padded with zeros."""
    cdef uint64_t rest[4]
    cdef size_t full = nbytes // 32 * 4
    mix4(h, <const uint64_t*>at, full)
    if nbytes > full * 8:
        memset(rest, 0, sizeof(rest))
        memcpy(rest, <const uint64_t*>at + full, nbytes - full * 8)
        mix4(h, rest, 4)


cdef uint64_t prior_key(const State* s) noexcept nogil:
    """A 64-bit hash of what the mover's legal actions, their keys and their heuristic scores
    depend on: the whole state except the decks' order and the other seats' blind reserves (the
    cards a determinization samples). Any good hash would do: the cache compares hashes only, so
    searches are the same whatever the hash (but for a 64-bit collision). A State holds a
    uint64_t, so it and its players are 8-byte aligned, and its padding is kept canonical by
    memcpy-only copies."""
    cdef Player p[MAXP]
    cdef uint64_t h[4]
    cdef int i, j
    cdef const char* base = <const char*>s
    cdef const char* after_p = <const char*>&s.p[MAXP]
    memcpy(p, s.p, sizeof(p))
    for i in range(min(s.nplayers, MAXP)):   # nplayers <= MAXP always; the bound tells the compiler
        if i != s.to_move:
            for j in range(MAXRES):
                if p[i].res_deck[j] >= 0:
                    p[i].res[j] = -1
    h[0] = <uint64_t>0x243F6A8885A308D3ULL
    h[1] = <uint64_t>0x13198A2E03707344ULL
    h[2] = <uint64_t>0xA4093822299F31D0ULL
    h[3] = <uint64_t>0x082EFA98EC4E6C89ULL
    mix_bytes(h, base, <const char*>s.deck - base)   # everything before the decks
    mix_bytes(h, p, sizeof(p))
    mix_bytes(h, after_p, base + sizeof(State) - after_p)
    h[0] = (h[0] ^ h[1]) * <uint64_t>0x9E3779B97F4A7C15ULL
    h[2] = (h[2] ^ h[3]) * <uint64_t>0x9E3779B97F4A7C15ULL
    h[0] = (h[0] ^ (h[0] >> 29) ^ h[2]) * <uint64_t>0x9E3779B97F4A7C15ULL
    return h[0] ^ (h[0] >> 32)


cdef class Search:
    """One search over a view (or a true state in PERFECT mode). Not thread-safe; one per player."""
    cdef Node* nodes
    cdef int32_t nnodes, capacity, max_nodes
    # the children of each node side by side (a block per node, moved to a block twice as large
    # when full), so that a node's children are read by independent loads rather than by
    # chasing a linked list through the node pool
    cdef int32_t* kids
    cdef long kids_len, kids_cap
    cdef int32_t* slot_of       # CACHE_SLOTS offsets of cache entries in `pool` (-1: empty)
    cdef int32_t* pool          # entries: hash (2 words), n, cap, actions[cap], keys[cap], priors[cap]
    cdef long pool_len, pool_cap
    cdef public long cache_hits, cache_misses
    cdef State root
    # the network (None: classic search) and the priors it gave each node, stored at the node's
    # first evaluation (a node stands for one information set: its legal actions may differ a
    # little between sampled worlds, so actions missing from the stored list get the smallest prior)
    cdef Network network
    cdef const Net* net
    cdef int16_t* pri_keys
    cdef float* pri_vals
    cdef long pri_len, pri_cap
    cdef Deal deal              # ISMCTS: the root's unknown cards, sampled afresh every iteration
    cdef State worlds[MAXDETS]
    cdef int32_t roots[MAXDETS]
    cdef int ntrees, mode, nplayers, seat
    cdef Params prm
    cdef Rng rng
    cdef public long iterations
    cdef public double seconds
    # >= 0: every iteration takes this root action (a root schedule such as sequential halving
    # decides how the root's visits are shared; the tree below is searched as usual)
    cdef int force_key
    # scratch for one iteration
    cdef uint32_t stamp[NKEYS]
    cdef int idx_of_key[NKEYS]
    cdef uint32_t cur_stamp

    def __cinit__(self):
        self.nodes = NULL
        self.kids = NULL
        self.slot_of = NULL
        self.pool = NULL
        self.pri_keys = NULL
        self.pri_vals = NULL

    def __dealloc__(self):
        free(self.nodes)
        free(self.kids)
        free(self.slot_of)
        free(self.pool)
        free(self.pri_keys)
        free(self.pri_vals)

    def __init__(self, Core view, dict params, uint64_t seed, int mode=MODE_ISMCTS, int dets=1,
                 long max_nodes=20_000_000, Network network=None):
        cdef int i
        self.mode = mode
        self.seat = view.s.to_move
        self.nplayers = view.s.nplayers
        memcpy(&self.root, &view.s, sizeof(State))
        rng_seed(&self.rng, seed)
        p = dict(params)
        self.prm.c = p.pop("c")
        self.prm.c_base = p.pop("c_base")
        self.prm.puct = p.pop("puct")
        self.prm.prior_temp = p.pop("prior_temp")
        self.prm.fpu = p.pop("fpu")
        self.prm.eps = p.pop("eps")
        self.prm.random_rollout = p.pop("random_rollout")
        self.prm.cutoff = p.pop("cutoff")
        self.prm.eval_scale = p.pop("eval_scale")
        weights = p.pop("weights")
        module_weights = p.pop("module_weights", None)
        phase_weights = p.pop("phase_weights", None)
        self.prm.net_priors = p.pop("net_priors", 0)
        self.prm.net_values = p.pop("net_values", 0)
        self.prm.net_temp = p.pop("net_temp", 1.0)
        self.prm.net_prior_share = p.pop("net_prior_share", 1.0)
        if not 0 <= self.prm.net_prior_share <= 1:
            raise ValueError("net_prior_share must be in [0, 1]")
        self.prm.net_mix = p.pop("net_mix", 1.0)
        if not 0 < self.prm.net_mix <= 1:
            raise ValueError("net_mix must be in (0, 1]")
        if (self.prm.net_priors or self.prm.net_values) and network is None:
            raise ValueError("net_priors / net_values need a network")
        if self.prm.net_temp <= 0:
            raise ValueError("net_temp must be positive")
        self.network = network
        self.net = &network.net if network is not None else NULL
        self.pri_len = 0
        self.pri_cap = 0
        if p:
            raise ValueError(f"unknown search parameters: {sorted(p)}")
        fill_weights(&self.prm.weights, weights, module_weights, phase_weights)
        self.ntrees = dets if mode == MODE_PIMC else 1
        if not 1 <= self.ntrees <= MAXDETS:
            raise ValueError(f"dets must be 1-{MAXDETS}")
        self.max_nodes = max_nodes
        self.capacity = 4096
        self.nodes = <Node*>malloc(self.capacity * sizeof(Node))
        self.kids_cap = 4096
        self.kids = <int32_t*>malloc(self.kids_cap * sizeof(int32_t))
        self.slot_of = <int32_t*>malloc(CACHE_SLOTS * sizeof(int32_t))
        if self.nodes == NULL or self.kids == NULL or self.slot_of == NULL:
            raise MemoryError()
        self.pool_cap = 0
        self.cache_clear()
        self.cache_hits = 0
        self.cache_misses = 0
        self.nnodes = 0
        self.kids_len = 0
        for i in range(self.ntrees):
            self.roots[i] = self.new_node(-1, -1, 0)
            memcpy(&self.worlds[i], &self.root, sizeof(State))
            if mode == MODE_PIMC and determinize(&self.worlds[i], &self.rng) != 0:
                raise ValueError("the view's hidden cards do not match its unseen cards")
        if mode == MODE_ISMCTS:
            memcpy(&self.worlds[0], &self.root, sizeof(State))
            if determinize(&self.worlds[0], &self.rng) != 0:
                raise ValueError("the view's hidden cards do not match its unseen cards")
            deal_prepare(&self.root, &self.deal)
        self.iterations = 0
        self.seconds = 0
        self.force_key = -1
        self.cur_stamp = 0
        memset(self.stamp, 0, sizeof(self.stamp))

    cdef int32_t new_node(self, int key, int mover, float prior) noexcept nogil:
        cdef Node* grown
        if self.nnodes == self.capacity:
            if self.capacity >= self.max_nodes:
                return -1
            grown = <Node*>realloc(self.nodes, 2 * self.capacity * sizeof(Node))
            if grown == NULL:
                return -1
            self.nodes = grown
            self.capacity *= 2
        cdef Node* n = &self.nodes[self.nnodes]
        n.kids = -1
        n.nkids = 0
        n.kcap = 0
        n.visits = 0
        n.avail = 1
        n.w[0] = 0
        n.w[1] = 0
        n.w[2] = 0
        n.w[3] = 0
        n.prior = prior
        n.key = key
        n.mover = mover
        n.pri = -1
        n.pri_n = 0
        self.nnodes += 1
        return self.nnodes - 1

    cdef int add_kid(self, int32_t node, int32_t ch) noexcept nogil:
        """Make ch the newest child of node. Returns -1 when out of memory."""
        cdef Node* nd = &self.nodes[node]
        cdef int32_t* grown
        cdef long cap
        if nd.nkids == nd.kcap:
            cap = self.kids_cap
            while self.kids_len + 2 * nd.kcap + 4 > cap:
                cap *= 2
            if cap > self.kids_cap:
                grown = <int32_t*>realloc(self.kids, cap * sizeof(int32_t))
                if grown == NULL:
                    return -1
                self.kids = grown
                self.kids_cap = cap
            if nd.nkids:
                memcpy(&self.kids[self.kids_len], &self.kids[nd.kids], nd.nkids * sizeof(int32_t))
            nd.kids = <int32_t>self.kids_len
            nd.kcap = 2 * nd.kcap + 4
            self.kids_len += nd.kcap
        self.kids[nd.kids + nd.nkids] = ch
        nd.nkids += 1
        return 0

    cdef void cache_clear(self) noexcept nogil:
        cdef int i
        for i in range(CACHE_SLOTS):
            self.slot_of[i] = -1
        self.pool_len = 0

    cdef int32_t cache_find(self, uint64_t h) noexcept nogil:
        """The offset of the cache entry of position hash `h`, or -1."""
        cdef int32_t off = self.slot_of[h & (CACHE_SLOTS - 1)]
        if off >= 0 and (<uint64_t*>&self.pool[off])[0] == h:
            return off
        return -1

    cdef int32_t cache_store(self, uint64_t h, int n, const int* acts, const int* keys,
                             const float* prior) noexcept nogil:
        """Keep a position's actions, keys and priors under its hash `h` (in its slot's entry
        when that is large enough). Returns the entry's offset, or -1 when out of memory."""
        cdef int32_t off = self.slot_of[h & (CACHE_SLOTS - 1)]
        cdef int32_t* grown
        cdef long need, cap
        if off < 0 or self.pool[off + 3] < n:
            need = (4 + 3 * n + 1) & ~1     # even: every entry, and so its 64-bit hash, is 8-byte aligned
            if self.pool_len + need > POOL_MAX_WORDS:
                self.cache_clear()
            if self.pool_len + need > self.pool_cap:
                cap = self.pool_cap * 2 if self.pool_cap else 1 << 16
                while cap < self.pool_len + need:
                    cap *= 2
                grown = <int32_t*>realloc(self.pool, cap * sizeof(int32_t))
                if grown == NULL:
                    return -1
                self.pool = grown
                self.pool_cap = cap
            off = <int32_t>self.pool_len
            self.pool_len += need
            self.pool[off + 3] = n
            self.slot_of[h & (CACHE_SLOTS - 1)] = off
        cap = self.pool[off + 3]
        (<uint64_t*>&self.pool[off])[0] = h
        self.pool[off + 2] = n
        memcpy(&self.pool[off + 4], acts, n * sizeof(int))
        memcpy(&self.pool[off + 4 + cap], keys, n * sizeof(int))
        memcpy(&self.pool[off + 4 + 2 * cap], prior, n * sizeof(float))
        return off

    cdef void net_priors(self, int32_t node, const State* s, const int* K, int n, float* prior,
                         float* values) noexcept nogil:
        """The network's priors over the n actions keyed K at `node` in world `s` (and the value of
        `s` for every seat, when `values` is not NULL). A node evaluated before keeps its priors:
        an action it did not list gets its smallest one, and the priors are renormalised."""
        cdef Node* nd = &self.nodes[node]
        cdef int i, j, k
        cdef float tot, lo
        cdef float vals[MAXP]
        cdef int16_t* grown_k
        cdef float* grown_v
        cdef long cap
        if nd.pri >= 0 and values == NULL:
            for i in range(n):
                prior[i] = -1
            lo = 1
            for j in range(nd.pri_n):
                k = self.pri_keys[nd.pri + j]
                if self.pri_vals[nd.pri + j] < lo:
                    lo = self.pri_vals[nd.pri + j]
                if self.stamp[k] == self.cur_stamp:
                    prior[self.idx_of_key[k]] = self.pri_vals[nd.pri + j]
            tot = 0
            for i in range(n):
                if prior[i] < 0:
                    prior[i] = lo
                tot += prior[i]
            for i in range(n):
                prior[i] /= tot
            return
        net_eval(self.net, s, K, n, prior, values if values != NULL else vals)
        softmax(prior, n, self.prm.net_temp)
        if nd.pri >= 0 or n == 0 or self.pri_len + n > PRI_MAX:
            return
        if self.pri_len + n > self.pri_cap:
            cap = self.pri_cap * 2 if self.pri_cap else 1 << 16
            while cap < self.pri_len + n:
                cap *= 2
            grown_k = <int16_t*>realloc(self.pri_keys, cap * sizeof(int16_t))
            if grown_k == NULL:
                return
            self.pri_keys = grown_k
            grown_v = <float*>realloc(self.pri_vals, cap * sizeof(float))
            if grown_v == NULL:
                return
            self.pri_vals = grown_v
            self.pri_cap = cap
        nd.pri = <int32_t>self.pri_len
        nd.pri_n = n
        for i in range(n):
            self.pri_keys[self.pri_len + i] = K[i]
            self.pri_vals[self.pri_len + i] = prior[i]
        self.pri_len += n

    cdef void iterate(self) noexcept nogil:
        cdef State s
        cdef int acts[MAXLEGAL]
        cdef int keys[MAXLEGAL]
        cdef float prior[MAXLEGAL]
        cdef int* A
        cdef int* K
        cdef float* P
        cdef float* H
        cdef float hprior[MAXLEGAL]
        cdef int32_t off
        cdef uint64_t h = 0
        cdef int32_t child_of[MAXLEGAL]
        cdef int32_t path[MAXDEPTH]
        cdef float values[MAXP]
        cdef float mixed[MAXP]
        cdef int n, i, j, k, t, depth = 0, best, mover
        cdef int32_t node, ch, created
        cdef const int32_t* kid
        cdef float q, u, bestu, wsum, fpu = 0, cn   # fpu: set before use
        cdef double sq_new
        cdef int nsum
        cdef Node* nd
        t = <int>(self.iterations % self.ntrees)
        if self.mode == MODE_ISMCTS:
            memcpy(&s, &self.root, sizeof(State))
            deal_apply(&s, &self.deal, &self.rng)
        else:
            memcpy(&s, &self.worlds[t], sizeof(State))
        node = self.roots[t]
        path[0] = node
        depth = 1
        created = 0
        while not s.over and depth < MAXDEPTH:
            off = -1
            if (PRIOR_CACHE and self.prm.puct and (not self.prm.net_priors or self.prm.net_prior_share < 1)
                    and self.nodes[node].visits >= CACHE_MIN_VISITS):
                h = prior_key(&s)
                off = self.cache_find(h)
            if off >= 0:   # the same position as the last time: actions and priors as then
                self.cache_hits += 1
                n = self.pool[off + 2]
                A = <int*>&self.pool[off + 4]
                K = <int*>&self.pool[off + 4 + self.pool[off + 3]]
                P = <float*>&self.pool[off + 4 + 2 * self.pool[off + 3]]
            else:
                n = legal_actions(&s, acts)
                action_keys(&s, acts, n, keys)
                A = acts
                K = keys
                P = prior
            self.cur_stamp += 1
            for i in range(n):
                k = K[i]
                self.stamp[k] = self.cur_stamp
                self.idx_of_key[k] = i
                child_of[i] = -1
            wsum = 0
            nsum = 0
            kid = &self.kids[self.nodes[node].kids]
            for j in range(self.nodes[node].nkids - 1, -1, -1):
                ch = kid[j]
                nd = &self.nodes[ch]
                if self.stamp[nd.key] == self.cur_stamp:
                    child_of[self.idx_of_key[nd.key]] = ch
                    nd.avail += 1
                    wsum += nd.w[nd.mover]
                    nsum += nd.visits
            if self.prm.puct:
                H = P   # the heuristic priors: the cache's on a hit
                if off < 0 and (not self.prm.net_priors or self.prm.net_prior_share < 1):
                    # scored into `prior`, or beside the network's when the two are mixed
                    H = &hprior[0] if self.prm.net_priors else &prior[0]
                    score_actions(&s, acts, n, H)
                    softmax(H, n, self.prm.prior_temp)
                    if PRIOR_CACHE and self.nodes[node].visits >= CACHE_MIN_VISITS:
                        self.cache_misses += 1
                        self.cache_store(h, n, acts, keys, H)
                if self.prm.net_priors:
                    self.net_priors(node, &s, K, n, prior, NULL)
                    if self.prm.net_prior_share < 1:
                        for i in range(n):
                            prior[i] = self.prm.net_prior_share * prior[i] + (1 - self.prm.net_prior_share) * H[i]
                    P = prior
                fpu = (wsum / nsum if nsum > 0 else 1.0 / s.nplayers) - self.prm.fpu
            else:
                for i in range(n):
                    prior[i] = 1.0 / n
            mover = s.to_move
            best = -1
            if depth == 1 and self.force_key >= 0 and self.stamp[self.force_key] == self.cur_stamp:
                best = self.idx_of_key[self.force_key]
            else:
                best = 0
                bestu = -1e30
                cn = self.prm.c
                if self.prm.c_base > 0:
                    # a constant c tuned at small budgets starves the root's second-best moves at
                    # large ones (their visits grow only as sqrt(N)), so the choice locks onto
                    # whichever move looked best early; growing c keeps them estimated (off by
                    # default: it settles the choice but won no games, experiments/results/h2h_cbase_2p)
                    cn = self.prm.c * (1 + log(1 + self.nodes[node].visits / self.prm.c_base))
                sq_new = sqrt(<float>(self.nodes[node].visits + 1))
                for i in range(n):
                    ch = child_of[i]
                    if self.prm.puct:
                        if ch >= 0 and self.nodes[ch].visits > 0:
                            q = self.nodes[ch].w[mover] / self.nodes[ch].visits
                            u = q + cn * P[i] * sqrt(<float>self.nodes[ch].avail) / (1 + self.nodes[ch].visits)
                        else:
                            # a child never tried has been available about as often as its parent
                            # was visited
                            u = fpu + cn * P[i] * (sqrt(<float>self.nodes[ch].avail) if ch >= 0 else sq_new)
                    else:
                        if ch < 0 or self.nodes[ch].visits == 0:
                            u = 1e20 + (rng_next(&self.rng) >> 40)
                        else:
                            u = (self.nodes[ch].w[mover] / self.nodes[ch].visits
                                 + self.prm.c * sqrt(log(<float>self.nodes[ch].avail) / self.nodes[ch].visits))
                    if u > bestu:
                        bestu = u
                        best = i
            ch = child_of[best]
            if ch < 0:
                ch = self.new_node(K[best], mover, P[best])
                if ch < 0:   # node budget spent: evaluate from here
                    break
                if self.add_kid(node, ch) < 0:
                    self.nnodes -= 1
                    break
                created = 1
            apply_action(&s, A[best])
            node = ch
            path[depth] = node
            depth += 1
            if created:
                break
        if s.over:
            terminal_values(&s, values)
        elif self.prm.net_values and self.prm.net_mix < 1:
            # the network's value of the leaf itself, mixed with a classic playout's from it
            if self.prm.net_priors and created:
                n = legal_actions(&s, acts)
                action_keys(&s, acts, n, keys)
                self.net_priors(node, &s, keys, n, prior, values)
            else:
                net_eval(self.net, &s, NULL, 0, NULL, values)
            policy_playout(&s, &self.rng, self.prm.eps, self.prm.cutoff)
            if s.over:
                terminal_values(&s, mixed)
            else:
                win_probs(&s, &self.prm.weights, self.prm.eval_scale, mixed)
            for k in range(s.nplayers):
                values[k] = self.prm.net_mix * values[k] + (1 - self.prm.net_mix) * mixed[k]
        elif self.prm.net_values:
            if self.prm.cutoff > 0:
                policy_playout(&s, &self.rng, self.prm.eps, self.prm.cutoff)
            if s.over:
                terminal_values(&s, values)
            elif self.prm.cutoff == 0 and self.prm.net_priors and created:
                # the new leaf's evaluation gives its priors too, kept for its first visit
                n = legal_actions(&s, acts)
                action_keys(&s, acts, n, keys)
                self.net_priors(node, &s, keys, n, prior, values)
            else:
                net_eval(self.net, &s, NULL, 0, NULL, values)
        else:
            if self.prm.random_rollout:
                random_playout(&s, &self.rng)
            else:
                policy_playout(&s, &self.rng, self.prm.eps, self.prm.cutoff)
            win_probs(&s, &self.prm.weights, self.prm.eval_scale, values)
        self.nodes[path[0]].visits += 1
        for i in range(1, depth):
            nd = &self.nodes[path[i]]
            nd.visits += 1
            for k in range(s.nplayers):
                nd.w[k] += values[k]
        self.iterations += 1

    def run(self, long iterations=0, double seconds=0.0):
        """Search until `iterations` more iterations or `seconds` pass (whichever comes first;
        0 means no limit of that kind, and at least one limit must be given)."""
        if iterations <= 0 and seconds <= 0:
            raise ValueError("give an iteration or a time limit")
        cdef double start = now(), deadline = start + seconds
        cdef long target = self.iterations + iterations if iterations > 0 else (1L << 62)
        with nogil:
            while self.iterations < target:
                self.iterate()
                if seconds > 0 and (self.iterations & 31) == 0 and now() >= deadline:
                    break
        self.seconds += now() - start
        return self.iterations

    def root_stats(self):
        """[(key, visits, [total reward per seat], prior)] of the root children, summed over
        the trees (PIMC); the prior is the average over the trees."""
        acc = {}
        cdef int t, k, j
        cdef Node* nd
        for t in range(self.ntrees):
            for j in range(self.nodes[self.roots[t]].nkids - 1, -1, -1):
                nd = &self.nodes[self.kids[self.nodes[self.roots[t]].kids + j]]
                v, w, p, c = acc.get(nd.key, (0, [0.0] * self.nplayers, 0.0, 0))
                acc[nd.key] = (v + nd.visits, [w[k] + nd.w[k] for k in range(self.nplayers)], p + nd.prior, c + 1)
        return [(key, v, w, p / c) for key, (v, w, p, c) in acc.items()]

    def children(self, path):
        """[(key, visits, [total reward per seat])] of the children of the node reached from the
        root (first tree) by the action keys `path`; [] when that node is not in the tree. Self-play
        reads the visits below the root (token returns, nobles, module decisions) as policy targets."""
        cdef int32_t node = self.roots[0], ch
        cdef int j, k
        for key in path:
            node = self.find_child(node, key)
            if node < 0:
                return []
        out = []
        for j in range(self.nodes[node].nkids):
            ch = self.kids[self.nodes[node].kids + j]
            out.append((self.nodes[ch].key, self.nodes[ch].visits,
                        [self.nodes[ch].w[k] for k in range(self.nplayers)]))
        return out

    def principal_variation(self, int key, int max_len=40, int min_visits=1):
        """The keys of the most visited line starting with root child `key` (first tree), with
        the mover of each step."""
        cdef int32_t node = self.find_child(self.roots[0], key), ch, best
        cdef int j
        out = []
        while node >= 0 and len(out) < max_len and self.nodes[node].visits >= min_visits:
            out.append((self.nodes[node].key, self.nodes[node].mover, self.nodes[node].visits))
            best = -1
            for j in range(self.nodes[node].nkids - 1, -1, -1):
                ch = self.kids[self.nodes[node].kids + j]
                if best < 0 or self.nodes[ch].visits > self.nodes[best].visits:
                    best = ch
            node = best
        return out

    cdef int32_t find_child(self, int32_t node, int key) noexcept nogil:
        cdef int j
        cdef int32_t ch
        for j in range(self.nodes[node].nkids):
            ch = self.kids[self.nodes[node].kids + j]
            if self.nodes[ch].key == key:
                return ch
        return -1

    def advance(self, keys, Core view):
        """Tree reuse (ISMCTS): move the root down the given action keys (the moves played since
        this search's root) and take `view` as the new root. Returns True if the subtree was
        found; otherwise the tree restarts empty."""
        cdef int32_t node = self.roots[0]
        if self.mode != MODE_ISMCTS:
            raise ValueError("tree reuse is for ISMCTS")
        for k in keys:
            node = self.find_child(node, k) if node >= 0 else -1
        if deal_prepare(&view.s, &self.deal) != 0:
            raise ValueError("the view's hidden cards do not match its unseen cards")
        memcpy(&self.root, &view.s, sizeof(State))
        self.seat = view.s.to_move
        if node < 0:
            self.nnodes = 0
            self.kids_len = 0
            self.pri_len = 0
            self.cache_clear()
            self.roots[0] = self.new_node(-1, -1, 0)
            return False
        self.roots[0] = node
        return True

    @property
    def force_key(self):
        return self.force_key

    @force_key.setter
    def force_key(self, int key):
        if not -1 <= key < NKEYS:
            raise ValueError(f"force_key must be -1 (none) or an action key, got {key}")
        self.force_key = key

    @property
    def nodes_used(self):
        return self.nnodes

    @property
    def memory_bytes(self):
        return (self.capacity * sizeof(Node) + (self.kids_cap + CACHE_SLOTS + self.pool_cap) * sizeof(int32_t)
                + self.pri_cap * (sizeof(int16_t) + sizeof(float)) + (MAXDETS + 1) * sizeof(State))

    @property
    def root_visits(self):
        return sum(self.nodes[self.roots[t]].visits for t in range(self.ntrees))
