# cython: language_level=3
"""The network's features: a position as one seat may know it, written by C into (index, value) pairs.

What the seat may know is its own holdings (its blind reserves included), every seat's public state
(tokens, bonuses, points, face-up reserves, the count and level of blind reserves), the market, the
nobles, the module elements, deck sizes, the round, the phase of the turn. The encoder reads nothing
else: never a deck's order, never another seat's blind reserve (their ids are skipped where
`res_deck >= 0`), so it gives the same features on every world sampled from the seat's view and on the
true state alike. Seats are counted from the seat encoded for (0 = that seat, 1 = the next to play
after it, ...), so one network serves every seat. Layout: _features.pxd and docs/TRAINING.md.
"""
from libc.stdint cimport uint64_t

from splendor_ai._engine cimport (
    GOLD, MAXP, MAXRES, NCARDS, NCITY_UP, NCOL, NDECK, NNOBLES, NPOSTS, NTOK, Core, Player, State, Tables,
    get_tables)
from splendor_ai._policy cimport seat_terms

cdef extern from *:
    int popcount64 "__builtin_popcountll"(unsigned long long x) nogil

cdef const Tables* T = get_tables()
cdef uint64_t LEVEL3[2]      # mask of the level-3 card ids


cdef void init_tables() noexcept:
    cdef int c
    LEVEL3[0] = 0
    LEVEL3[1] = 0
    for c in range(NCARDS):
        if T.level[c] == 2:
            LEVEL3[c >> 6] |= (<uint64_t>1) << (c & 63)


init_tables()


cdef inline int put(int* idx, float* val, int n, int i, float v) noexcept nogil:
    if v != 0:
        idx[n] = i
        val[n] = v
        return n + 1
    return n


cdef inline int missing_gems(const Player* p, int card) noexcept nogil:
    """Gems p still lacks for `card` after its tokens and gold (the trading-post power that makes a
    gold token worth two counted), 0 when it can pay now."""
    cdef int c, need, short = 0, gold
    if (p.posts >> 2) & 1:   # POST_GOLD_TWO
        for c in range(NCOL):
            need = T.cost[card][c] - p.bonus[c] - p.tokens[c]
            if need > 0:
                short += need
        gold = 2 * p.tokens[GOLD]
    else:
        for c in range(NCOL):
            need = T.cost[card][c] - p.bonus[c] - p.tokens[c]
            if need > 0:
                short += need
        gold = p.tokens[GOLD] + 2 * p.goldcards
    return short - gold if short > gold else 0


cdef inline int cost_after_bonus(const Player* p, int card) noexcept nogil:
    cdef int c, need, total = 0
    for c in range(NCOL):
        need = T.cost[card][c] - p.bonus[c]
        if need > 0:
            total += need
    return total


cdef inline int card_features(int* idx, float* val, int n, const Player* p, int r, int card) noexcept nogil:
    n = put(idx, val, n, F_NEED + r * NCARDS + card, 1.0 / (1 + missing_gems(p, card)))
    return put(idx, val, n, F_COST + r * NCARDS + card, cost_after_bonus(p, card) / 10.0)


cdef int encode(const State* s, int seat, int* idx, float* val) noexcept nogil:
    """Write the features of `s` as `seat` may know it; returns the number of pairs (<= MAXACTIVE)."""
    cdef int n = 0, np = s.nplayers, r, q, c, j, k, lv, sl, card, base, total, need, nob, city, v
    cdef const Player* p
    cdef unsigned int nobles_seen
    cdef int blind[3]
    n = put(idx, val, n, F_NPLAYERS + np - 2, 1)
    # module flags 1, 2, 4, 8 (one at most) -> 1-4; 0 for the base game
    k = 0 if s.modules == 0 else 1 if s.modules == 1 else 2 if s.modules == 2 else 3 if s.modules == 4 else 4
    n = put(idx, val, n, F_MODULE + k, 1)
    if 0 <= s.phase < 12:
        n = put(idx, val, n, F_PHASE + s.phase, 1)
    n = put(idx, val, n, F_FINAL, s.final)
    n = put(idx, val, n, F_ROUND, (s.turn // np) / 30.0)
    n = put(idx, val, n, F_PASSES, s.passes / <float>np)
    for c in range(NTOK):
        n = put(idx, val, n, F_BANK + c, s.bank[c] / (5.0 if c == GOLD else 7.0))
    for c in range(s.ndecks):
        n = put(idx, val, n, F_DECKS + c, s.deck_len[c] / 40.0)
    for j in range(NNOBLES):
        if (s.nobles >> j) & 1:
            n = put(idx, val, n, F_NOBLES + j, 1)
    for j in range(NCITY_UP):
        if s.cities[j] > 0:
            n = put(idx, val, n, F_CITIES + s.cities[j] - 1, 1)
    if s.ntodo > 0 and s.phase != 0:
        v = s.todo_arg[s.ntodo - 1] + 1
        if 0 <= v < 6:
            n = put(idx, val, n, F_TODO + v, 1)
    total = 0
    for c in range(NTOK):
        total += s.p[s.to_move].tokens[c]
    if total > 10:
        n = put(idx, val, n, F_OVER, (total - 10) / 3.0)
    # market cards
    for lv in range(3):
        for sl in range(s.nslots):
            card = s.market[lv][sl]
            if card >= 0:
                n = put(idx, val, n, F_MARKET + card, 1)
    for r in range(np):
        q = (seat + r) % np
        p = &s.p[q]
        base = F_SEATS + r * SEAT_W
        n = put(idx, val, n, base + S_PRESENT, 1)
        total = 0
        for c in range(NTOK):
            n = put(idx, val, n, base + S_TOKENS + c, p.tokens[c] / (5.0 if c == GOLD else 4.0))
            total += p.tokens[c]
        n = put(idx, val, n, base + S_TOTAL, total / 10.0)
        for c in range(NCOL):
            n = put(idx, val, n, base + S_BONUS + c, p.bonus[c] / 5.0)
            n = put(idx, val, n, base + S_POWER + c, (p.bonus[c] + p.tokens[c]) / 10.0)
        n = put(idx, val, n, base + S_POINTS, p.points / 15.0)
        n = put(idx, val, n, base + S_NCARDS, p.ncards / 20.0)
        n = put(idx, val, n, base + S_NNOBLES, popcount64(p.nobles) / 3.0)
        n = put(idx, val, n, base + S_NRES, p.nres / 3.0)
        n = put(idx, val, n, base + S_GOLD, (p.tokens[GOLD] + 2 * p.goldcards) / 5.0)
        n = put(idx, val, n, base + S_LEVEL3, (popcount64(p.cards[0] & LEVEL3[0]) + popcount64(p.cards[1] & LEVEL3[1])) / 5.0)
        blind[0] = blind[1] = blind[2] = 0
        for j in range(p.nres):
            if p.res_deck[j] >= 0:   # blind: its level is public, the card only to its holder
                blind[p.res_deck[j] % 3] += 1
                if r != 0:
                    continue
            card = p.res[j]
            if card >= 0:
                n = put(idx, val, n, F_RES + r * NCARDS + card, 1)
                n = card_features(idx, val, n, p, r, card)
        for lv in range(3):
            n = put(idx, val, n, base + S_BLIND + lv, blind[lv])
        # nobles: the face-up ones, and (Orient) the ones this seat holds
        nobles_seen = s.nobles | p.held
        for j in range(NNOBLES):
            if (nobles_seen >> j) & 1:
                need = 0
                for c in range(NCOL):
                    if T.noble_req[j][c] > p.bonus[c]:
                        need += T.noble_req[j][c] - p.bonus[c]
                n = put(idx, val, n, base + S_NOBLE_NEED + j, need / 10.0 if need else 0.01)
        if s.modules:
            for j in range(NCITY_UP):
                if s.cities[j] > 0:
                    city = s.cities[j] - 1
                    need = 0
                    for c in range(NCOL):
                        if T.city_req[city][c] > p.bonus[c]:
                            need += T.city_req[city][c] - p.bonus[c]
                    if T.city_same[city]:
                        # the best colour not otherwise required, toward the "same colour" count
                        v = 99
                        for c in range(NCOL):
                            if T.city_req[city][c] == 0 and T.city_same[city] - p.bonus[c] < v:
                                v = T.city_same[city] - p.bonus[c]
                        if v > 0:
                            need += v
                    n = put(idx, val, n, base + S_CITY_NEED + 2 * j,
                            max(0, T.city_prestige[city] - p.points) / 15.0 + 0.01)
                    n = put(idx, val, n, base + S_CITY_NEED + 2 * j + 1, need / 10.0)
            n = put(idx, val, n, base + S_NCITIES, popcount64(p.cities))
            for j in range(NPOSTS):
                if (p.posts >> j) & 1:
                    n = put(idx, val, n, base + S_POSTS + j, 1)
            v = 0
            for j in range(7):
                if p.joker_col[j]:
                    v += 1
            n = put(idx, val, n, base + S_JOKERS, v / 3.0)
            n = put(idx, val, n, base + S_HELD, popcount64(p.held) / 3.0)
            n = put(idx, val, n, base + S_SH_HAND, p.sh_hand / 3.0)
            n = put(idx, val, n, base + S_GOLDCARDS, p.goldcards / 3.0)
        for lv in range(3):
            for sl in range(s.nslots):
                card = s.market[lv][sl]
                if card >= 0:
                    n = card_features(idx, val, n, p, r, card)
                    v = s.sh[lv][sl]
                    if v and (v >> 2) == q:
                        n = put(idx, val, n, F_SH + r * NCARDS + card, (v & 3) / 3.0)
    return n


# the terms' scales, so that each input is of the order of 1 (points / 15, bonuses / 20, noble
# progress / 9, gems / 10, gold / 5, reserve / 5, best buy / 5, to move, turn to come, reach / 5,
# cards buyable / 5, one buy wins, spread / 15, tokens beyond 7 / 3, full reserve, nobles near / 3)
cdef float TERM_SCALE[NTERMS]
TERM_SCALE[:] = [1 / 15.0, 1 / 20.0, 1 / 9.0, 1 / 10.0, 1 / 5.0, 1 / 5.0, 1 / 5.0, 1.0, 1.0, 1 / 5.0,
                 1 / 5.0, 1.0, 1 / 15.0, 1 / 3.0, 1.0, 1 / 3.0]


cdef int encode_terms(const State* s, int seat, int* idx, float* val) noexcept nogil:
    """Write the classic evaluation's terms of every seat as `seat` may know them (another seat's
    blind reserves left out) at F_TERMS; returns the number of pairs (at most 64). A network reads
    them when its first layer has NFEAT_TERMS rows: knowledge the evaluation's hand-made terms hold
    and a first layer that sums its inputs cannot compute (how many cards a seat can buy now...)."""
    cdef float t[NTERMS]
    cdef int r, q, j, n = 0
    for r in range(s.nplayers):
        q = (seat + r) % s.nplayers
        seat_terms(s, q, q != seat, 1, t)
        for j in range(NTERMS):
            n = put(idx, val, n, F_TERMS + r * NTERMS + j, t[j] * TERM_SCALE[j])
    return n


FEATURES = {"version": FEATURES_VERSION, "nfeat": NFEAT, "nfeat_terms": NFEAT_TERMS, "maxactive": MAXACTIVE,
            "term_scale": [TERM_SCALE[j] for j in range(NTERMS)]}


def encode_into(Core core, int seat, int[::1] idx, float[::1] val, bint terms=False):
    """Write the features of `core` as `seat` may know it into idx / val (each at least MAXACTIVE
    long), with the evaluation's terms when `terms`; returns the number of pairs."""
    cdef int n
    if not 0 <= seat < core.s.nplayers:
        raise ValueError(f"seat must be 0-{core.s.nplayers - 1}, got {seat}")
    if idx.shape[0] < MAXACTIVE or val.shape[0] < MAXACTIVE:
        raise ValueError(f"idx and val need room for {MAXACTIVE} entries")
    n = encode(&core.s, seat, &idx[0], &val[0])
    if terms:
        n += encode_terms(&core.s, seat, &idx[n], &val[n])
    return n
