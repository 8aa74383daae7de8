# cython: language_level=3
"""Splendor knowledge for the search players, in C: a static evaluation and fast action scores.

The evaluation is what MCTS cut-offs, expectimax leaves and the greedy player share; the action
scores drive the playout policy and the priors of the tree search. Weights and their meaning are
documented in splendor_ai/players/evaluation.py, which also holds the tuned defaults.
"""
from libc.math cimport ceil, exp
from libc.string cimport memcpy
from libc.stdint cimport uint64_t

from splendor_ai._engine cimport (
    A_BUY_HAND, A_BUY_SLOT, A_NOBLE, A_PASS, A_RES_DECK, A_RES_SLOT, A_RETURN, A_TAKE1, A_TAKE2D,
    A_TAKE2S, A_TAKE3, END_POINTS, GOLD, WIN_POINTS, PH_MAIN, PH_NOBLE, MAXLEGAL, MAXP, MAXRES, NCARDS, NCOL, NLEV, NNOBLES, NSLOT, NTOK,
    Player, Rng, State, Tables, apply_action, base_buys, base_nonbuy_count, base_nonbuys, bonus8, deficit8,
    final_ranks, get_tables, have8, legal_actions, rng_below, rng_next, slot_card, sum8)
from splendor_ai._engine cimport (
    A_CITY, A_CONQUER, A_FREE, A_GEM, A_HOLD, A_JOKER, A_SACRIFICE, A_SH_FROM, A_SH_PLACE, A_SH_REMOVE,
    A_SH_TO, AB_GOLD2, AB_HOLD, AB_JOKER, AB_SACRIFICE, AB_TAKE1, AB_TAKE2, MOD_CITIES, MOD_ORIENT,
    MOD_POSTS, MOD_STRONGHOLDS, NCITY_UP, NPOSTS, NSTRONG, PH_CITY, PH_CONQUER, PH_FREE, PH_GEM, PH_HOLD,
    PH_JOKER, PH_SACRIFICE, PH_SH, PH_SH_TO, POST_FIVE, POST_PER_ARMS, can_afford, ctz, popcount8)

cdef extern from *:
    """
    #include <stdint.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    /* need[c] += w * (byte c of d), c = 0..4: the same single-precision products and sums as
       the plain loop (colours 0-3 in one vector, 4 alone). */
    static inline void sp_add_need(float* need, float w, uint64_t d) {
    #if defined(__SSE2__)
        const __m128i z = _mm_setzero_si128();
        __m128i b = _mm_cvtsi32_si128((int)(uint32_t)d);
        b = _mm_unpacklo_epi16(_mm_unpacklo_epi8(b, z), z);
        _mm_storeu_ps(need, _mm_add_ps(_mm_loadu_ps(need), _mm_mul_ps(_mm_set1_ps(w), _mm_cvtepi32_ps(b))));
        need[4] += w * (float)(int)((d >> 32) & 0xFF);
    #else
        int c;
        for (c = 0; c < 5; c++)
            need[c] += w * (float)(int)((d >> (8 * c)) & 0xFF);
    #endif
    }
    """
    void sp_add_need(float* need, float w, uint64_t d) nogil

cdef const Tables* T = get_tables()
cdef int TAKE3_COLS[10][3]
cdef unsigned int TAKE3_AVAIL[10]   # the colours of each take of three, as a bit mask
cdef int TAKE2_COLS[10][2]
# NEED_W[points][sf] = (1 + points) / (1 + sf)^2, the weight of a card in add_need (a table: the
# division was a fifth of the cost of score_actions; the values are the same floats)
cdef enum:
    NEED_SF = 32
cdef float NEED_W[8][NEED_SF]
# RES_SC[card]: score_actions' score of reserving that face-up card; BUY_SC[points][wants]:
# base_buy_score (the same floats as the expressions, computed once)
cdef float RES_SC[NCARDS]
cdef float BUY_SC[8][8]


def _init():
    cdef int pts, sf
    from itertools import combinations
    for i, combo in enumerate(combinations(range(NCOL), 3)):
        TAKE3_AVAIL[i] = sum(1 << c for c in combo)
        for j in range(3):
            TAKE3_COLS[i][j] = combo[j]
    for i, combo in enumerate(combinations(range(NCOL), 2)):
        for j in range(2):
            TAKE2_COLS[i][j] = combo[j]
    for pts in range(8):
        for sf in range(NEED_SF):
            NEED_W[pts][sf] = (1.0 + pts) / ((1.0 + sf) * (1.0 + sf))
        for sf in range(8):
            BUY_SC[pts][sf] = 3.0 + 1.5 * pts + 0.5 * sf
    for sf in range(NCARDS):
        RES_SC[sf] = 0.2 + 0.25 * T.points[sf]


_init()


cdef inline int shortfall(const Player* p, int card) noexcept nogil:
    """Gems still missing to buy `card`, before gold."""
    return sum8(deficit8(T.cost8[card], have8(p)))


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


cdef inline double reach_of(const Player* p, int card, int* n_aff) noexcept nogil:
    """A card's part of the reach term (counting it in `n_aff` when the seat can buy it now)."""
    cdef int sf = shortfall(p, card) - p.tokens[GOLD]
    if sf <= 0:
        sf = 0
        n_aff[0] += 1
    return (1.0 + T.points[card]) / ((1.0 + sf) * (1.0 + sf))


cdef void rich_values(const State* s, const Player* p, int best, int hide_blind, float* t) noexcept nogil:
    """Terms 9-15 of the evaluation (evaluation.py) into t[9..15]: what the seat can reach in the
    market and its reserve, whether one buy wins, how its bonuses spread, crowded tokens, a full
    reserve, nobles nearly met. `hide_blind` leaves its blind reserves out (another seat's view)."""
    cdef int lv, sl, j, card, c, n_aff = 0, spread = 0, tok = 0, near = 0, miss
    cdef float reach = 0
    for lv in range(NLEV):
        for sl in range(NSLOT):
            card = s.market[lv][sl]
            if card >= 0:
                reach += reach_of(p, card, &n_aff)
    for j in range(p.nres):
        card = p.res[j]
        if card >= 0 and not (hide_blind and p.res_deck[j] >= 0):
            reach += reach_of(p, card, &n_aff)
    for c in range(NCOL):
        spread += p.bonus[c] if p.bonus[c] < 3 else 3
        tok += p.tokens[c]
    tok += p.tokens[GOLD]
    for j in range(NNOBLES):
        if (s.nobles >> j) & 1:
            miss = 0
            for c in range(NCOL):
                if p.bonus[c] < T.noble_req[j][c]:
                    miss += T.noble_req[j][c] - p.bonus[c]
            if miss <= 2:
                near += 1
    t[9] = reach
    t[10] = n_aff
    # with the Cities, 15 points end nothing (a city does)
    t[11] = p.points + best >= WIN_POINTS and not (s.modules & MOD_CITIES)
    t[12] = spread
    t[13] = tok - 7 if tok > 7 else 0
    t[14] = p.nres >= MAXRES
    t[15] = near


cdef void seat_terms(const State* s, int i, int hide_blind, int rich, float* t) noexcept nogil:
    """The evaluation's terms of seat i, unweighted, into t[0..15] (evaluation.py; terms 9-15 only
    when `rich`, else left as they are). `hide_blind` leaves the seat's blind reserves out, as
    another seat sees it: what the network's inputs take (_features.encode_terms)."""
    cdef int c, j, card, gems = 0, bonuses = 0, best = 0, sf, lv, sl
    cdef float res = 0
    cdef const Player* p = &s.p[i]
    for c in range(NCOL):
        gems += p.tokens[c]
        bonuses += p.bonus[c]
    for j in range(p.nres):
        card = p.res[j]
        if card >= 0 and not (hide_blind and p.res_deck[j] >= 0):
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
    t[0] = p.points
    t[1] = bonuses
    t[2] = noble_progress(s, p)
    t[3] = gems
    t[4] = p.tokens[GOLD]
    t[5] = res
    t[6] = best
    t[7] = s.to_move == i
    # the seat still has its turn of this round to come (the round is always completed, so a seat
    # that has moved this round leads by a turn it has used)
    t[8] = ((i - s.first + s.nplayers) % s.nplayers >= (s.to_move - s.first + s.nplayers) % s.nplayers)
    if rich:
        rich_values(s, p, best, hide_blind, t)


cdef void eval_state(const State* s, const Weights* wt, float* out) noexcept nogil:
    """A value per seat, in prestige-point units: the weighted sum of its terms (seat_terms)."""
    cdef int i, j, best
    cdef float phase
    cdef float wph[NWEIGHTS]
    cdef float t[NWEIGHTS]
    cdef const float* w = <const float*>wt.w
    if wt.phased:
        # the terms' worth changes as the game nears its end (points count more, discounts less:
        # experiments/fit_value.py), so each weight moves linearly with the leader's points
        best = 0
        for i in range(s.nplayers):
            if s.p[i].points > best:
                best = s.p[i].points
        phase = (best if best < WIN_POINTS else WIN_POINTS) / <float>WIN_POINTS
        for j in range(NWEIGHTS):
            wph[j] = wt.w[j] + wt.ph[j] * phase
        w = wph
    for i in range(s.nplayers):
        seat_terms(s, i, 0, wt.rich, t)
        if wt.rich:
            out[i] = (w[9] * t[9] + w[10] * t[10] + w[11] * t[11] + w[12] * t[12] + w[13] * t[13]
                      + w[14] * t[14] + w[15] * t[15])
        else:
            out[i] = 0
        out[i] += (w[0] * t[0] + w[1] * t[1] + w[2] * t[2] + w[3] * t[3] + w[4] * t[4] + w[5] * t[5]
                   + w[6] * t[6] + w[7] * t[7] + w[8] * t[8])
        if s.modules:
            out[i] += module_eval(s, wt, i, <int>t[6], w[6])


cdef void terminal_values(const State* s, float* out) noexcept nogil:
    """Values of a finished game: winners share 1; a capped or stalled game is a draw."""
    cdef int i, n = s.nplayers, nwin = 0
    cdef int rank[MAXP]
    if s.over != END_POINTS:
        for i in range(n):
            out[i] = 1.0 / n
        return
    final_ranks(s, rank)
    for i in range(n):
        if rank[i] == 1:
            nwin += 1
    for i in range(n):
        out[i] = (1.0 / nwin) if rank[i] == 1 else 0.0


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


cdef inline void add_need(const Player* p, uint64_t have, int card, float* need) noexcept nogil:
    """Add what `card` still asks of the player's gems (`have`: have8(p)), weighted by what it
    brings and by how close it is (a card nearly affordable steers the next takes)."""
    cdef uint64_t d = deficit8(T.cost8[card], have)
    cdef int c, sf
    cdef float w
    if d == 0:
        return
    sf = sum8(d) - p.tokens[GOLD]
    if sf < 0:
        sf = 0
    if sf < NEED_SF and 0 <= T.points[card] < 8:
        w = NEED_W[T.points[card]][sf]
    else:
        w = (1.0 + T.points[card]) / ((1.0 + sf) * (1.0 + sf))
    # colours the card no longer asks for add w * 0 = +0.0, which leaves every sum (never -0.0)
    # bit for bit as it was, so no branch per colour
    sp_add_need(need, w, d)


cdef inline int buy_card(const State* s, const Player* p, int a) noexcept nogil:
    """The card of a buy (A_BUY_SLOT <= a < A_PASS)."""
    return slot_card(s, a - A_BUY_SLOT) if a < A_BUY_HAND else p.res[a - A_BUY_HAND]


cdef inline float buy_score(const State* s, const Player* p, int a) noexcept nogil:
    """The score of a buy (A_BUY_SLOT <= a < A_PASS): at least 3, and 3.5 or more for a card with
    points or one that a face-up noble still wants."""
    if s.modules:   # Orient cards (gold and joker cards have no colour), held nobles, cities
        return module_card_score(s, p, buy_card(s, p, a))
    return base_buy_score(buy_card(s, p, a), noble_wants(s, p))


cdef inline uint64_t noble_wants(const State* s, const Player* p) noexcept nogil:
    """Per colour, packed (see have8): how many face-up nobles are still short of p's bonuses
    of that colour."""
    cdef uint64_t bh = bonus8(p) | 0x8080808080ULL, cnt = 0
    cdef unsigned int m = s.nobles
    cdef int k
    while m:
        k = ctz(m)
        m &= m - 1
        # byte c of bh - req is 128 + bonus - req: no byte borrows, and the high bit is clear
        # exactly where the noble wants more than the bonus
        cnt += (~(bh - T.noble8[k]) & 0x8080808080ULL) >> 7
    return cnt


cdef inline float base_buy_score(int card, uint64_t wants) noexcept nogil:
    """buy_score in the base game (`wants`: noble_wants of the buyer): 3, 1.5 a point, 0.5 for
    each face-up noble still short of the card's colour."""
    return BUY_SC[T.points[card]][(wants >> (8 * T.bonus[card])) & 0xFF]   # points <= 5, wants <= 5


cdef int FAST_PATHS = 1   # 0: best_buy and base_pick off (tests check that they change nothing)


def set_fast_paths(bint on):
    """Switch the playout policy's shortcuts (best_buy, base_pick) on or off; for tests, which
    check that the policy's choices are the same either way."""
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


cdef inline void fill_need(const State* s, const Player* p, float* need) noexcept nogil:
    """What the cards in view (market and p's own reserves) still ask of p's gems, per colour,
    scaled to a maximum of 1: the take scores of score_actions."""
    cdef int i, c, lv, sl, card
    cdef float mx = 0
    cdef uint64_t have = have8(p)
    for c in range(NCOL):
        need[c] = 0
    for lv in range(NLEV):
        for sl in range(s.nslots):
            card = s.market[lv][sl]
            if card >= 0:
                add_need(p, have, card, need)
    for i in range(p.nres):
        if p.res[i] >= 0:
            add_need(p, have, p.res[i], need)
    for c in range(NCOL):
        if need[c] > mx:
            mx = need[c]
    if mx > 0:
        mx = 1.0 / mx
        for c in range(NCOL):
            need[c] *= mx


cdef float base_take3_max(const State* s) noexcept nogil:
    """The best score_actions score of the legal takes of three colours in the base game's main
    phase (the same floats), or -1e30 when fewer than three colours are in the bank."""
    cdef float need[NCOL]
    cdef float sc, best = -1e30
    cdef int i, c, navail = 0
    cdef unsigned int avail = 0
    for c in range(NCOL):
        if s.bank[c] > 0:
            avail |= 1 << c
            navail += 1
    if navail < 3:
        return best
    fill_need(s, &s.p[s.to_move], need)
    for i in range(10):
        if (TAKE3_AVAIL[i] & avail) == TAKE3_AVAIL[i]:
            sc = need[TAKE3_COLS[i][0]] + need[TAKE3_COLS[i][1]] + need[TAKE3_COLS[i][2]]
            if sc > best:
                best = sc
    return best


cdef int score_actions(const State* s, const int* acts, int n, float* scores) noexcept nogil:
    """Heuristic desirability of each action for the player to move (higher is better).
    Returns the index of the best one."""
    cdef const Player* p = &s.p[s.to_move]
    cdef float need[NCOL]
    cdef float mx = 0, sc, best_sc = -1e30
    cdef int i, c, a, lv, sl, card, best = 0
    cdef uint64_t have, wants
    if s.phase == PH_NOBLE:   # every noble is worth the same 3 points
        for i in range(n):
            scores[i] = 1.0
            if (p.held >> (acts[i] - A_NOBLE)) & 1:
                scores[i] = 0.5   # Orient: a held noble stays this player's; take a face-up one first
        return 0
    fill_need(s, p, need)
    if s.phase > PH_NOBLE:   # a Cities of Splendor decision
        return decision_scores(s, p, acts, n, scores, need)
    # legal_actions lists the main phase's actions by kind, in increasing ids: each common kind
    # in a loop of its own (no test of the kind per action); whatever is left, in any order,
    # goes through the general loop
    i = 0
    while i < n and acts[i] < A_TAKE2D:
        a = acts[i] - A_TAKE3
        scores[i] = need[TAKE3_COLS[a][0]] + need[TAKE3_COLS[a][1]] + need[TAKE3_COLS[a][2]]
        i += 1
    while i < n and A_TAKE2S <= acts[i] < A_RES_SLOT:
        scores[i] = 1.8 * need[acts[i] - A_TAKE2S]
        i += 1
    while i < n and A_RES_SLOT <= acts[i] < A_RES_DECK:
        scores[i] = RES_SC[slot_card(s, acts[i] - A_RES_SLOT)]
        i += 1
    while i < n and A_RES_DECK <= acts[i] < A_BUY_SLOT:
        scores[i] = 0.05
        i += 1
    if s.modules == 0 and i < n and A_BUY_SLOT <= acts[i] < A_PASS:
        wants = noble_wants(s, p)
        while i < n and A_BUY_SLOT <= acts[i] < A_PASS:
            scores[i] = base_buy_score(buy_card(s, p, acts[i]), wants)
            i += 1
    while i < n:
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
            card = slot_card(s, a - A_RES_SLOT)
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
        i += 1
    for i in range(n):
        if scores[i] > best_sc:
            best_sc = scores[i]
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


cdef int base_pick(const State* s, uint64_t eps_thr, Rng* r) noexcept nogil:
    """acts[policy_pick(s, acts, legal_actions(s, acts), eps, r)] in the base game's main phase:
    the same action from the same random numbers, but the takes and reserves are listed only
    when the random action or the full scoring asks for them. Most turns of a playout buy a card
    that scores 3.5 or more (best_buy), and that needs only the buys. `eps_thr`: eps_threshold(eps)."""
    cdef int acts[MAXLEGAL]
    cdef int buys[MAXLEGAL]
    cdef float scores[MAXLEGAL]
    cdef int nb, n0, n, i, best, nties = 0
    cdef float sc, best_sc = -1e30
    cdef uint64_t wants
    nb = base_buys(s, buys)
    # the number of the other actions matters only for a random action, or when there may be
    # a single action (then the policy draws no random number)
    n0 = base_nonbuy_count(s) if nb < 2 else -1
    if n0 >= 0 and n0 + nb <= 1:
        if nb:
            return buys[0]
        if n0 == 0:
            return A_PASS
        base_nonbuys(s, acts)
        return acts[0]
    if eps_thr and (rng_next(r) >> 40) < eps_thr:
        if n0 < 0:
            n0 = base_nonbuy_count(s)
        i = rng_below(r, n0 + nb)
        if i >= n0:
            return buys[i - n0]
        base_nonbuys(s, acts)
        return acts[i]
    if nb:
        wants = noble_wants(s, &s.p[s.to_move])
        best = -1
        for i in range(nb - 1, -1, -1):   # scanning down, as best_buy
            sc = base_buy_score(buy_card(s, &s.p[s.to_move], buys[i]), wants)
            if sc >= best_sc:
                best_sc = sc
                best = i
            scores[i] = sc
        # below 3.5 every buy scores 3: then only a take of three colours can score as much
        # (the other takes, reserves and the pass score under 2.2); when none does, the
        # full scoring's ties are the buys alone
        if best_sc >= 3.5 or base_take3_max(s) < best_sc:
            for i in range(nb):
                if scores[i] == scores[best]:
                    nties += 1
                    if rng_below(r, nties) == 0:
                        best = i
            return buys[best]
    n0 = base_nonbuys(s, acts)
    memcpy(acts + n0, buys, nb * sizeof(int))
    n = n0 + nb
    best = score_actions(s, acts, n, scores)
    for i in range(n):
        if scores[i] == scores[best]:
            nties += 1
            if rng_below(r, nties) == 0:
                best = i
    return acts[best]


cdef inline uint64_t eps_threshold(float eps) noexcept nogil:
    """policy_pick's test for a random action, eps > 0 and (x >> 40) * 2**-24 < eps, is
    (x >> 40) < eps_threshold(eps) (x >> 40 an integer below 2**24, eps * 2**24 exact)."""
    return <uint64_t>ceil(<double>eps * 16777216.0) if eps > 0 else 0


cdef int policy_playout(State* s, Rng* r, float eps, int max_turns) noexcept nogil:
    """Play the policy until the game ends or `max_turns` whole turns pass (<= 0: no limit).
    Returns the number of actions applied."""
    cdef int acts[MAXLEGAL]
    cdef int n, count = 0
    cdef int stop = s.turn + max_turns if max_turns > 0 else 1 << 30
    cdef uint64_t eps_thr = eps_threshold(eps)
    while not s.over and s.turn < stop:
        if FAST_PATHS and s.modules == 0 and s.phase == PH_MAIN:
            apply_action(s, base_pick(s, eps_thr, r))
        else:
            n = legal_actions(s, acts)
            apply_action(s, acts[policy_pick(s, acts, n, eps, r)])
        count += 1
    return count


# -- Cities of Splendor modules (docs/MODULES.md): evaluation terms and decision scores ---------
# Everything below is reached only when State.modules is set; base-game values and scores never
# pass through it. Module weights (Weights.m) are documented in splendor_ai/players/evaluation.py.

cdef enum:
    MW_CITY_PROGRESS = 0
    MW_CITY_CLAIMED = 1
    MW_HELD_NOBLE = 2
    MW_GOLD_CARDS = 3
    MW_POST_PROGRESS = 4
    MW_POST_HELD = 5
    MW_SH_BLOCKED = 6
    MW_SH_OWN = 7
    MW_SH_CONQUEST = 8

# non-point value of the trading-post powers (in units of MW_POST_HELD): a gem after each
# purchase, a gem with each double take, gold worth two
cdef float POST_UTIL[NPOSTS]
POST_UTIL[0] = 2.0
POST_UTIL[1] = 1.0
POST_UTIL[2] = 1.0
POST_UTIL[3] = 0.0
POST_UTIL[4] = 0.0


cdef inline int gold_worth(const Player* p) noexcept nogil:
    """Gold the player can pay with: tokens, and 2 per Orient gold card."""
    return p.tokens[GOLD] + 2 * p.goldcards


cdef inline bint open_to(const State* s, int lv, int sl, int seat) noexcept nogil:
    """Strongholds: may `seat` buy or reserve that market card?"""
    return s.sh[lv][sl] == 0 or (s.sh[lv][sl] >> 2) == seat


cdef inline float want(const Player* p, int card) noexcept nogil:
    """How much the player wants a card: its points (and a bonus) over the gems still missing."""
    cdef int sf = shortfall(p, card) - gold_worth(p)
    if sf < 0:
        sf = 0
    return (1.0 + T.points[card] + (T.bonus_n[card] - 1 if T.bonus_n[card] > 1 else 0)) / (1.0 + sf)


cdef float noble_share(const Player* p, int k) noexcept nogil:
    cdef int c, have = 0, req = 0
    for c in range(NCOL):
        req += T.noble_req[k][c]
        have += p.bonus[c] if p.bonus[c] < T.noble_req[k][c] else T.noble_req[k][c]
    return <float>have / req


cdef float city_share(const Player* p, int city) noexcept nogil:
    """Share of a city's requirement met: prestige counts per point, a bonus as 2 points."""
    cdef int c, P = T.city_prestige[city], N = T.city_same[city], have = 0, req = 0, same = 0, x
    for c in range(NCOL):
        req += T.city_req[city][c]
        have += p.bonus[c] if p.bonus[c] < T.city_req[city][c] else T.city_req[city][c]
        if N > 0 and T.city_req[city][c] == 0:
            x = p.bonus[c] if p.bonus[c] < N else N
            if x > same:
                same = x
    x = p.points if p.points < P else P
    return (x + 2.0 * (have + same)) / (P + 2.0 * (req + N))


cdef float post_share(const Player* p, int j) noexcept nogil:
    cdef int c, have = 0, req = 0
    for c in range(NCOL):
        req += T.post_req[j][c]
        have += p.bonus[c] if p.bonus[c] < T.post_req[j][c] else T.post_req[j][c]
    if T.post_nobles[j]:
        req += 3
        if p.nobles:
            have += 3
    return <float>have / req


cdef float module_eval(const State* s, const Weights* wt, int i, int best_base, float w_best) noexcept nogil:
    """The module terms of seat i's evaluation, added to the base terms (evaluation.py);
    `w_best` is the best-buy weight at this phase."""
    cdef const Player* p = &s.p[i]
    cdef const Player* q
    cdef float v = 0, f, fbest, val
    cdef int j, k, lv, sl, card, best = 0, owner, cnt
    cdef unsigned int m
    # the most points buyable now, by the module's rules: gold cards, trading-post gold, Orient
    # conditions on acquiring, cards closed by another player's strongholds
    for j in range(p.nres):
        card = p.res[j]
        if card >= 0 and T.points[card] > best and can_afford(p, card):
            best = T.points[card]
    for lv in range(NLEV):
        for sl in range(s.nslots):
            card = s.market[lv][sl]
            if card >= 0 and T.points[card] > best and open_to(s, lv, sl, i) and can_afford(p, card):
                best = T.points[card]
    v += w_best * (best - best_base)
    if s.modules & MOD_CITIES:
        if p.cities:
            v += wt.m[MW_CITY_CLAIMED] + wt.m[MW_CITY_PROGRESS]
        else:
            fbest = 0
            for j in range(NCITY_UP):
                if s.cities[j] > 0:
                    f = city_share(p, s.cities[j] - 1)
                    if f > fbest:
                        fbest = f
            v += wt.m[MW_CITY_PROGRESS] * fbest * fbest
    if s.modules & MOD_ORIENT:
        m = p.held
        while m:
            k = ctz(m)
            m &= m - 1
            f = noble_share(p, k)
            v += wt.m[MW_HELD_NOBLE] * 3.0 * f * f
        v += wt.m[MW_GOLD_CARDS] * p.goldcards
    if s.modules & MOD_POSTS:
        for j in range(NPOSTS):
            if (p.posts >> j) & 1:
                v += wt.m[MW_POST_HELD] * POST_UTIL[j]
            else:
                val = wt.m[MW_POST_HELD] * POST_UTIL[j]
                if j == POST_FIVE:
                    val += 5
                elif j == POST_PER_ARMS:
                    val += popcount8(p.posts) + 1
                if (p.posts >> POST_PER_ARMS) & 1:
                    val += 1   # one more coat of arms for power 4
                f = post_share(p, j)
                v += wt.m[MW_POST_PROGRESS] * val * f * f
    if s.modules & MOD_STRONGHOLDS:
        for lv in range(NLEV):
            for sl in range(s.nslots):
                cnt = s.sh[lv][sl]
                card = s.market[lv][sl]
                if cnt == 0 or card < 0:
                    continue
                owner = cnt >> 2
                cnt &= 3
                if owner == i:
                    v += wt.m[MW_SH_OWN] * (cnt * cnt / 9.0) * want(p, card)
                    if cnt == NSTRONG and can_afford(p, card):
                        v += wt.m[MW_SH_CONQUEST] * (1.0 + T.points[card])
                else:
                    v -= wt.m[MW_SH_BLOCKED] * want(p, card)
    return v


cdef float goal_use(const State* s, const Player* p, int c) noexcept nogil:
    """What one more bonus of colour c brings towards nobles (face-up and held), cities and
    trading posts."""
    cdef float u = 0
    cdef int k, j
    cdef unsigned int m = s.nobles | p.held
    while m:
        k = ctz(m)
        m &= m - 1
        if p.bonus[c] < T.noble_req[k][c]:
            u += 0.5
    if s.modules & MOD_CITIES:
        for j in range(NCITY_UP):
            k = s.cities[j] - 1
            if k >= 0:
                if p.bonus[c] < T.city_req[k][c]:
                    u += 0.5
                elif T.city_same[k] > 0 and T.city_req[k][c] == 0 and p.bonus[c] < T.city_same[k]:
                    u += 0.25
    if s.modules & MOD_POSTS:
        for j in range(NPOSTS):
            if not (p.posts >> j) & 1 and p.bonus[c] < T.post_req[j][c]:
                u += 0.4
    return u


cdef float module_card_score(const State* s, const Player* p, int card) noexcept nogil:
    """Action score of acquiring `card` (bought, taken free or conquered) in a module game."""
    cdef float sc = 3.0 + 1.5 * T.points[card], u, best
    cdef int col = T.bonus[card], ab = T.ability[card], c
    if col >= 0:
        sc += T.bonus_n[card] * (1.0 + goal_use(s, p, col)) - 1.0
    if ab:
        if ab & AB_GOLD2:
            sc -= 1.0   # no bonus: 2 gold for later
        if ab & AB_JOKER:
            best = 0
            for c in range(NCOL):
                if p.bonus[c] > 0:
                    u = goal_use(s, p, c)
                    if u > best:
                        best = u
            sc += best
        if (ab & AB_HOLD) and s.nobles:
            sc += 1.0
        if ab & (AB_TAKE1 | AB_TAKE2):
            sc += 2.0   # a free card
        if ab & AB_SACRIFICE:
            sc -= 4.0   # two of the player's cards (and their bonuses) leave the game
    return sc


cdef float opp_want(const State* s, int card) noexcept nogil:
    cdef int q
    cdef float w, best = 0
    for q in range(s.nplayers):
        if q != s.to_move:
            w = want(&s.p[q], card)
            if w > best:
                best = w
    return best


cdef float place_value(const State* s, const Player* p, int lv, int sl) noexcept nogil:
    """Value of one more of the mover's strongholds on that card (none of the opponents' there)."""
    cdef int card = s.market[lv][sl], k = s.sh[lv][sl] & 3
    cdef float v = want(p, card) * (k + 1) / 3.0
    if k == 0:
        v += 0.7 * opp_want(s, card)   # closes the card to the others
    if k + 1 == NSTRONG and can_afford(p, card):
        v += 3.0 + 1.5 * T.points[card]   # a conquest this turn
    return v


cdef int decision_scores(const State* s, const Player* p, const int* acts, int n, float* scores,
                         const float* need) noexcept nogil:
    """Scores of the options of a module decision (the phases after PH_NOBLE)."""
    cdef int i, a, j, lv, sl, card, k, owner, best = 0, arg
    cdef float sc, best_sc = -1e30, x, y
    cdef float to_best[NLEV * NSLOT]
    arg = s.todo_arg[s.ntodo - 1] if s.ntodo > 0 else 0
    if s.phase == PH_SH:
        # for a pick-up: the best other card the stronghold could go to
        for j in range(NLEV * NSLOT):
            to_best[j] = -1e30
        for lv in range(NLEV):
            for sl in range(s.nslots):
                if s.market[lv][sl] >= 0 and open_to(s, lv, sl, s.to_move):
                    x = place_value(s, p, lv, sl)
                    for j in range(NLEV * NSLOT):
                        if j != lv * NSLOT + sl and x > to_best[j]:
                            to_best[j] = x
    for i in range(n):
        a = acts[i]
        sc = 0
        if a >= A_CITY:
            sc = 1.0   # every city ends the game the same way
        elif a >= A_GEM:
            sc = need[a - A_GEM] + goal_use(s, p, a - A_GEM) * 0.1
        elif a == A_CONQUER:
            card = -1
            for lv in range(NLEV):
                for sl in range(s.nslots):
                    if s.sh[lv][sl] == s.to_move * 4 + NSTRONG:
                        card = s.market[lv][sl]
            sc = module_card_score(s, p, card) if card >= 0 else 1.0
        elif a > A_CONQUER:
            sc = 0   # decline
        elif a >= A_SH_PLACE:
            j = (a - A_SH_PLACE) % (NLEV * NSLOT)
            lv = j // NSLOT
            sl = j % NSLOT
            card = s.market[lv][sl]
            if a < A_SH_FROM or (a >= A_SH_TO and a < A_SH_REMOVE):
                sc = place_value(s, p, lv, sl)
            elif a < A_SH_TO:
                k = s.sh[lv][sl] & 3
                x = want(p, card) / 3.0
                if k == 1:
                    x += 0.7 * opp_want(s, card)
                sc = to_best[j] - x
            else:
                owner = s.sh[lv][sl] >> 2
                k = s.sh[lv][sl] & 3
                x = want(&s.p[owner], card) * k / 3.0   # the owner's progress towards a conquest
                if k == NSTRONG:
                    x *= 2
                y = want(p, card) if k == 1 else 0.2 * want(p, card)   # reopens the card
                sc = x + y
        elif a >= A_SACRIFICE:
            card = a - A_SACRIFICE
            # lose the least: points, and the card's bonuses (a joker: its one bonus)
            sc = -(1.5 * T.points[card] + (T.bonus_n[card] if T.bonus_n[card] > 0 else 1))
        elif a >= A_FREE:
            j = a - A_FREE
            sc = module_card_score(s, p, s.market[j // NSLOT][j % NSLOT])
        elif a >= A_HOLD:
            sc = noble_share(p, a - A_HOLD)
        elif a >= A_JOKER:
            sc = need[a - A_JOKER] + goal_use(s, p, a - A_JOKER)
        scores[i] = sc
        if sc > best_sc:
            best_sc = sc
            best = i
    return best


# -- Python access, for the greedy player, the evaluation docs and the tests ----------------------

from splendor_ai._engine cimport Core


cdef int fill_weights(Weights* wt, object weights, object module_weights, object phase_weights=None) except -1:
    """Fill the weights: `weights` the base terms (up to NWEIGHTS; the missing ones are 0),
    `module_weights` the module terms (None: evaluation.MODULE_WEIGHTS), `phase_weights` the base
    terms' slopes with the game's phase (up to NWEIGHTS; None: no slopes)."""
    cdef int i
    if not 1 <= len(weights) <= NWEIGHTS:
        raise ValueError(f"expected 1 to {NWEIGHTS} evaluation weights")
    if phase_weights is None:
        phase_weights = ()
    if len(phase_weights) > NWEIGHTS:
        raise ValueError(f"expected at most {NWEIGHTS} phase weights")
    wt.phased = 0
    wt.rich = 0
    for i in range(NWEIGHTS):
        wt.w[i] = weights[i] if i < len(weights) else 0.0
        wt.ph[i] = phase_weights[i] if i < len(phase_weights) else 0.0
        if wt.ph[i] != 0:
            wt.phased = 1
        if i >= NRICH and (wt.w[i] != 0 or wt.ph[i] != 0):
            wt.rich = 1
    if module_weights is None:
        from splendor_ai.players.evaluation import MODULE_WEIGHTS
        module_weights = MODULE_WEIGHTS
    if len(module_weights) != NMWEIGHTS:
        raise ValueError(f"expected {NMWEIGHTS} module evaluation weights")
    for i in range(NMWEIGHTS):
        wt.m[i] = module_weights[i]
    return 0


def evaluate(Core core, weights, module_weights=None, phase_weights=None):
    """The static evaluation of every seat (`module_weights`: None for the defaults;
    `phase_weights`: None for none)."""
    cdef Weights wt
    cdef float out[MAXP]
    cdef int i
    fill_weights(&wt, weights, module_weights, phase_weights)
    eval_state(&core.s, &wt, out)
    return [out[i] for i in range(core.s.nplayers)]


def terms(Core core, int seat, bint hide_blind=False):
    """The evaluation's 16 terms of `seat`, unweighted (evaluation.py), its blind reserves left out
    when `hide_blind` (as another seat sees it): `evaluate` is their weighted sum plus the module
    terms, and the network's optional inputs are them, scaled (_features.encode_terms)."""
    cdef float t[NWEIGHTS]
    cdef int j
    if not 0 <= seat < core.s.nplayers:
        raise ValueError(f"seat must be 0-{core.s.nplayers - 1}, got {seat}")
    seat_terms(&core.s, seat, hide_blind, 1, t)
    return [t[j] for j in range(NWEIGHTS)]


def terminal(Core core):
    """Each seat's share of the win in a finished game (a capped or stalled game: a draw)."""
    cdef float out[MAXP]
    cdef int i
    terminal_values(&core.s, out)
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
