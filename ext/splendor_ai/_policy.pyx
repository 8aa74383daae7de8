# cython: language_level=3
"""Splendor knowledge for the search players, in C: a static evaluation and fast action scores.

The evaluation is what MCTS cut-offs, expectimax leaves and the greedy player share; the action
scores drive the playout policy and the priors of the tree search. Weights and their meaning are
documented in splendor_ai/players/evaluation.py, which also holds the tuned defaults.
"""
from libc.math cimport exp
from libc.string cimport memcpy

from splendor_ai._engine cimport (
    A_BUY_HAND, A_BUY_SLOT, A_NOBLE, A_PASS, A_RES_DECK, A_RES_SLOT, A_RETURN, A_TAKE1, A_TAKE2D,
    A_TAKE2S, A_TAKE3, END_POINTS, GOLD, PH_MAIN, PH_NOBLE, MAXLEGAL, MAXP, MAXRES, NCOL, NLEV, NNOBLES, NSLOT, NTOK,
    Player, Rng, State, Tables, apply_action, get_tables, legal_actions, rng_below, rng_next)

cdef extern from *:
    int ctz "__builtin_ctz"(unsigned int x) nogil

cdef const Tables* T = get_tables()
cdef int TAKE3_COLS[10][3]
cdef int TAKE2_COLS[10][2]
# NEED_W[points][sf] = (1 + points) / (1 + sf)^2, the weight of a card in add_need (a table: the
# division was a fifth of the cost of score_actions; the values are the same floats)
cdef enum:
    NEED_SF = 32
cdef float NEED_W[8][NEED_SF]


def _init():
    cdef int pts, sf
    from itertools import combinations
    for i, combo in enumerate(combinations(range(NCOL), 3)):
        for j in range(3):
            TAKE3_COLS[i][j] = combo[j]
    for i, combo in enumerate(combinations(range(NCOL), 2)):
        for j in range(2):
            TAKE2_COLS[i][j] = combo[j]
    for pts in range(8):
        for sf in range(NEED_SF):
            NEED_W[pts][sf] = (1.0 + pts) / ((1.0 + sf) * (1.0 + sf))


_init()


cdef inline int shortfall(const Player* p, int card) noexcept nogil:
    """Gems still missing to buy `card`, before gold."""
    cdef int c, need, tot = 0
    for c in range(NCOL):
        need = T.cost[card][c] - p.bonus[c] - p.tokens[c]
        if need > 0:
            tot += need
    return tot


cdef float noble_progress(const State* s, const Player* p) noexcept nogil:
    """Sum over face-up nobles of 3 * (fraction of its requirement met)^2."""
    cdef int i, c, have, req
    cdef float f, tot = 0
    for i in range(NNOBLES):
        if (s.nobles >> i) & 1:
            have = 0
            req = 0
            for c in range(NCOL):
                req += T.noble_req[i][c]
                have += p.bonus[c] if p.bonus[c] < T.noble_req[i][c] else T.noble_req[i][c]
            f = <float>have / req
            tot += 3.0 * f * f
    return tot


cdef void eval_state(const State* s, const Weights* wt, float* out) noexcept nogil:
    """A value per seat, in prestige-point units (see evaluation.py for the terms)."""
    cdef int i, c, j, lv, sl, card, gems, bonuses, best, sf
    cdef float res
    cdef const Player* p
    for i in range(s.nplayers):
        p = &s.p[i]
        gems = 0
        bonuses = 0
        for c in range(NCOL):
            gems += p.tokens[c]
            bonuses += p.bonus[c]
        res = 0
        best = 0
        for j in range(p.nres):
            card = p.res[j]
            if card >= 0:
                sf = shortfall(p, card) - p.tokens[GOLD]
                if sf <= 0:
                    if T.points[card] > best:
                        best = T.points[card]
                    sf = 0
                res += T.points[card] / (1.0 + sf)
        for lv in range(NLEV):
            for sl in range(NSLOT):
                card = s.market[lv][sl]
                if card >= 0 and T.points[card] > best and shortfall(p, card) <= p.tokens[GOLD]:
                    best = T.points[card]
        out[i] = (wt.w[0] * p.points + wt.w[1] * bonuses + wt.w[2] * noble_progress(s, p)
                  + wt.w[3] * gems + wt.w[4] * p.tokens[GOLD] + wt.w[5] * res + wt.w[6] * best
                  + wt.w[7] * (s.to_move == i))


cdef void terminal_values(const State* s, float* out) noexcept nogil:
    """Values of a finished game: winners share 1; a capped or stalled game is a draw."""
    cdef int i, n = s.nplayers, nwin = 0, bestp = -1, bestc = 999
    if s.over != END_POINTS:
        for i in range(n):
            out[i] = 1.0 / n
        return
    for i in range(n):
        if s.p[i].points > bestp or (s.p[i].points == bestp and s.p[i].ncards < bestc):
            bestp = s.p[i].points
            bestc = s.p[i].ncards
    for i in range(n):
        if s.p[i].points == bestp and s.p[i].ncards == bestc:
            nwin += 1
    for i in range(n):
        out[i] = (1.0 / nwin) if (s.p[i].points == bestp and s.p[i].ncards == bestc) else 0.0


cdef void win_probs(const State* s, const Weights* wt, float scale, float* out) noexcept nogil:
    """Terminal values, or a softmax of the evaluation (scale = confidence per point)."""
    cdef float v[MAXP]
    cdef float m, tot = 0
    cdef int i
    if s.over:
        terminal_values(s, out)
        return
    eval_state(s, wt, v)
    m = v[0]
    for i in range(1, s.nplayers):
        if v[i] > m:
            m = v[i]
    for i in range(s.nplayers):
        out[i] = exp(scale * (v[i] - m))
        tot += out[i]
    for i in range(s.nplayers):
        out[i] /= tot


cdef inline void add_need(const Player* p, int card, float* need) noexcept nogil:
    """Add what `card` still asks of the player's gems, weighted by what it brings and by how
    close it is (a card nearly affordable steers the next takes)."""
    cdef int c, d[NCOL]
    cdef int sf = 0
    cdef float w
    for c in range(NCOL):
        d[c] = T.cost[card][c] - p.bonus[c] - p.tokens[c]
        if d[c] > 0:
            sf += d[c]
    sf -= p.tokens[GOLD]
    if sf < 0:
        sf = 0
    if sf < NEED_SF and 0 <= T.points[card] < 8:
        w = NEED_W[T.points[card]][sf]
    else:
        w = (1.0 + T.points[card]) / ((1.0 + sf) * (1.0 + sf))
    for c in range(NCOL):
        if d[c] > 0:
            need[c] += w * d[c]


cdef inline float buy_score(const State* s, const Player* p, int a) noexcept nogil:
    """The score of a buy (A_BUY_SLOT <= a < A_PASS): at least 3, and 3.5 or more for a card with
    points or one that a face-up noble still wants."""
    cdef int card, col, k
    cdef unsigned int m
    cdef float sc
    if a < A_BUY_HAND:
        card = s.market[(a - A_BUY_SLOT) // NSLOT][(a - A_BUY_SLOT) % NSLOT]
    else:
        card = p.res[a - A_BUY_HAND]
    sc = 3.0 + 1.5 * T.points[card]
    col = T.bonus[card]
    m = s.nobles
    while m:   # each face-up noble still short of this colour
        k = ctz(m)
        m &= m - 1
        if p.bonus[col] < T.noble_req[k][col]:
            sc += 0.5
    return sc


cdef int FAST_PATHS = 1   # 0: best_buy off (tests check that it changes nothing)


def set_fast_paths(bint on):
    """Switch the playout policy's shortcut (best_buy) on or off; for tests, which check that the
    policy's choices are the same either way."""
    global FAST_PATHS
    FAST_PATHS = on


cdef int best_buy(const State* s, const int* acts, int n, float* scores, int* lo) noexcept nogil:
    """A shortcut of score_actions for the playout policy: when a legal buy scores 3.5 or more,
    no other action can reach its score (token takes score at most 3 * (1 + rounding), reserves
    and returns less), so only the buys are scored and the index of the best is returned, as
    score_actions would; the buys are acts[lo:] (legal_actions lists them last). Returns -1 when
    that does not hold (then score_actions must run). Base game only: modules may add actions
    scored otherwise."""
    cdef const Player* p = &s.p[s.to_move]
    cdef float sc, best_sc = -1e30
    cdef int i = n - 1, best = -1
    if s.modules != 0 or s.phase != PH_MAIN:
        return -1
    while i >= 0 and A_BUY_SLOT <= acts[i] < A_PASS:
        sc = buy_score(s, p, acts[i])
        if sc >= best_sc:   # scanning down: the first of equal scores, as score_actions
            best_sc = sc
            best = i
        scores[i] = sc
        i -= 1
    lo[0] = i + 1
    return best if best_sc >= 3.5 else -1


cdef int score_actions(const State* s, const int* acts, int n, float* scores) noexcept nogil:
    """Heuristic desirability of each action for the player to move (higher is better).
    Returns the index of the best one."""
    cdef const Player* p = &s.p[s.to_move]
    cdef float need[NCOL]
    cdef float mx = 0, sc, best_sc = -1e30
    cdef int i, c, a, lv, sl, card, best = 0, k, col
    cdef unsigned int m
    if s.phase == PH_NOBLE:   # every noble is worth the same 3 points
        for i in range(n):
            scores[i] = 1.0
        return 0
    for c in range(NCOL):
        need[c] = 0
    for lv in range(NLEV):
        for sl in range(s.nslots):
            card = s.market[lv][sl]
            if card >= 0:
                add_need(p, card, need)
    for i in range(p.nres):
        if p.res[i] >= 0:
            add_need(p, p.res[i], need)
    for c in range(NCOL):
        if need[c] > mx:
            mx = need[c]
    if mx > 0:
        mx = 1.0 / mx
        for c in range(NCOL):
            need[c] *= mx
    for i in range(n):
        a = acts[i]
        if a < A_TAKE2D:
            sc = need[TAKE3_COLS[a - A_TAKE3][0]] + need[TAKE3_COLS[a - A_TAKE3][1]] + need[TAKE3_COLS[a - A_TAKE3][2]]
        elif a < A_TAKE1:
            sc = need[TAKE2_COLS[a - A_TAKE2D][0]] + need[TAKE2_COLS[a - A_TAKE2D][1]]
        elif a < A_TAKE2S:
            sc = need[a - A_TAKE1]
        elif a < A_RES_SLOT:
            sc = 1.8 * need[a - A_TAKE2S]
        elif a < A_RES_DECK:
            card = s.market[(a - A_RES_SLOT) // NSLOT][(a - A_RES_SLOT) % NSLOT]
            sc = 0.2 + 0.25 * T.points[card]
        elif a < A_BUY_SLOT:
            sc = 0.05
        elif a < A_PASS:
            sc = buy_score(s, p, a)
        elif a == A_PASS:
            sc = 0
        else:
            c = a - A_RETURN
            sc = -1.0 if c == GOLD else 1.0 - need[c]
        scores[i] = sc
        if sc > best_sc:
            best_sc = sc
            best = i
    return best


cdef int policy_pick(const State* s, const int* acts, int n, float eps, Rng* r) noexcept nogil:
    """Epsilon-greedy on the action scores, ties broken at random. Returns an index into acts."""
    cdef float scores[MAXLEGAL]
    cdef int i, best, nties = 0, lo = 0
    if n == 1:
        return 0
    if eps > 0 and (rng_next(r) >> 40) * (1.0 / 16777216.0) < eps:
        return rng_below(r, n)
    best = best_buy(s, acts, n, scores, &lo) if FAST_PATHS else -1
    if best < 0:
        lo = 0
        best = score_actions(s, acts, n, scores)
    for i in range(lo, n):
        if scores[i] == scores[best]:
            nties += 1
            if rng_below(r, nties) == 0:
                best = i
    return best


cdef int policy_playout(State* s, Rng* r, float eps, int max_turns) noexcept nogil:
    """Play the policy until the game ends or `max_turns` whole turns pass (<= 0: no limit).
    Returns the number of actions applied."""
    cdef int acts[MAXLEGAL]
    cdef int n, count = 0
    cdef int stop = s.turn + max_turns if max_turns > 0 else 1 << 30
    while not s.over and s.turn < stop:
        n = legal_actions(s, acts)
        apply_action(s, acts[policy_pick(s, acts, n, eps, r)])
        count += 1
    return count


# -- Python access, for the greedy player, the evaluation docs and the tests ----------------------

from splendor_ai._engine cimport Core


def evaluate(Core core, weights):
    """The static evaluation of every seat."""
    cdef Weights wt
    cdef float out[MAXP]
    cdef int i
    for i in range(NWEIGHTS):
        wt.w[i] = weights[i] if i < len(weights) else 0.0
    eval_state(&core.s, &wt, out)
    return [out[i] for i in range(core.s.nplayers)]


def action_scores(Core core):
    """(action ids, heuristic scores) of the legal actions."""
    cdef int acts[MAXLEGAL]
    cdef float scores[MAXLEGAL]
    cdef int n = legal_actions(&core.s, acts), i
    if n:
        score_actions(&core.s, acts, n, scores)
    return [acts[i] for i in range(n)], [scores[i] for i in range(n)]


def policy_action(Core core, unsigned long long seed, float eps=0.0):
    """The policy's choice of action id (for the greedy player)."""
    cdef int acts[MAXLEGAL]
    cdef Rng r
    cdef int n = legal_actions(&core.s, acts)
    r.s = seed
    rng_next(&r)
    return acts[policy_pick(&core.s, acts, n, eps, &r)]


def bench_policy_playouts(Core core, int games, unsigned long long seed, float eps=0.1, int max_turns=0):
    """Policy playouts from this state, in C: returns (games, turns, actions)."""
    cdef State w
    cdef Rng r
    cdef long turns = 0, actions = 0
    cdef int g
    r.s = seed
    with nogil:
        for g in range(games):
            memcpy(&w, &core.s, sizeof(State))
            actions += policy_playout(&w, &r, eps, max_turns)
            turns += w.turn - core.s.turn
    return games, turns, actions
