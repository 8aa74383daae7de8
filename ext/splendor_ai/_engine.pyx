# cython: language_level=3
"""The compiled Splendor engine: move generation, apply, determinization and playouts on a C struct.

Everything here that search calls is nogil C; the `Core` class is the thin Python handle that
splendor_ai.state builds its public API on. The rules are docs/RULES.md (the base game and the four
Cities of Splendor modules); docs/MODULES.md gives their encoding as actions.
"""
from libc.string cimport memcpy, memset
from libc.stdint cimport int8_t, int16_t, uint8_t, uint16_t, uint32_t, uint64_t

# SSE2 (part of every x86-64) kernels of the base game's hot loops; elsewhere a plain C version
# of the same integer arithmetic
cdef extern from *:
    """
    #include <stdint.h>
    #if defined(__SSE2__)
    #include <emmintrin.h>
    #endif
    /* Bit lv * 6 + sl set where market card (lv, sl), sl < 4, is affordable: its shortfall
       (cost less coloured gems and bonuses `have`, per colour, at least 0) sums to at most
       `gold`. cost1[card + 1] is the card's packed cost; cost1[0] (an empty slot, card -1)
       one no player can pay. */
    static inline unsigned int sp_market_buys(const uint64_t* cost1, const int8_t* market,
                                              uint64_t have, int gold) {
        unsigned int mask = 0;
        int lv;
    #if defined(__SSE2__)
        const __m128i h = _mm_set1_epi64x((long long)have);
        const __m128i g = _mm_set1_epi32(gold);
        const __m128i z = _mm_setzero_si128();
        for (lv = 0; lv < 3; lv++) {
            const int8_t* m = market + 6 * lv;
            __m128i a = _mm_set_epi64x((long long)cost1[m[2] + 1], (long long)cost1[m[0] + 1]);
            __m128i b = _mm_set_epi64x((long long)cost1[m[3] + 1], (long long)cost1[m[1] + 1]);
            /* per card: the bytes of max(0, cost - have), summed */
            a = _mm_sad_epu8(_mm_subs_epu8(a, h), z);
            b = _mm_sad_epu8(_mm_subs_epu8(b, h), z);
            a = _mm_or_si128(a, _mm_slli_epi64(b, 32));   /* 32-bit lanes: slots 0, 1, 2, 3 */
            mask |= (unsigned int)(~_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(a, g))) & 15)
                    << (6 * lv);
        }
    #else
        int sl, k, sum;
        uint64_t c;
        for (lv = 0; lv < 3; lv++) {
            for (sl = 0; sl < 4; sl++) {
                c = cost1[market[6 * lv + sl] + 1];
                sum = 0;
                for (k = 0; k < 8; k++) {
                    int x = (int)((c >> (8 * k)) & 0xFF) - (int)((have >> (8 * k)) & 0xFF);
                    sum += x > 0 ? x : 0;
                }
                mask |= (unsigned int)(sum <= gold) << (6 * lv + sl);
            }
        }
    #endif
        return mask;
    }
    """
    unsigned int sp_market_buys(const uint64_t* cost1, const int8_t* market, uint64_t have, int gold) nogil

cdef Tables T
# COST1[card + 1] = T.cost8[card]; COST1[0] (no card) a cost no one can pay (sp_market_buys)
cdef uint64_t COST1[NCARDS + 1]
# colour sets of the take actions, as bit masks over the five gem colours, in action-id order
cdef uint8_t TAKE3_MASK[10]
cdef uint8_t TAKE2_MASK[10]
# the legal take actions (not two of a colour) per mask of the colours in the bank, in the order
# legal_actions lists them
cdef int TAKE_N[32]
cdef int TAKE_ACTS[32][15]
# the tokens of each take action (A_TAKE3 .. A_RES_SLOT - 1), packed (see have8)
cdef uint64_t TAKE8[A_RES_SLOT]


cdef const Tables* get_tables() noexcept nogil:
    return &T


def _load_tables():
    """Copy the card and noble tables of splendor_ai.cards into the C tables."""
    from splendor_ai import cards
    cdef int i, c, d
    memset(&T, 0, sizeof(Tables))
    cdef int njoker = 0
    for i, card in enumerate(cards.CARDS):
        T.level[i] = card.level - 1
        T.bonus[i] = -1 if card.bonus is None else card.bonus
        T.bonus_n[i] = 0 if card.bonus is None else card.bonus_count
        T.points[i] = card.points
        T.deck[i] = card.deck
        T.ability[i] = sum(1 << cards.ABILITIES.index(a) for a in card.abilities)
        T.sac_colour[i] = -1 if card.sacrifice is None else card.sacrifice
        T.joker_idx[i] = -1
        if card.bonus is not None:
            T.colour_cards[card.bonus][i >> 6] |= (<uint64_t>1) << (i & 63)
        if "joker" in card.abilities:
            T.joker_idx[i] = njoker
            njoker += 1
        for c in range(NCOL):
            T.cost[i][c] = card.cost[c]
            T.cost8[i] |= (<uint64_t>card.cost[c]) << (8 * c)
        COST1[i + 1] = T.cost8[i]
    COST1[0] = 0xFFFFFFFFFFFFFFFFULL
    assert njoker == NJOKER and len(cards.CARDS) == NCARDS
    for i, city in enumerate(cards.CITIES):
        T.city_prestige[i] = city.prestige
        T.city_same[i] = city.same_colour
        for c in range(NCOL):
            T.city_req[i][c] = city.requirement[c]
    for i, post in enumerate(cards.POSTS):
        T.post_nobles[i] = post.nobles
        for c in range(NCOL):
            T.post_req[i][c] = post.requirement[c]
    for i, noble in enumerate(cards.NOBLES):
        for c in range(NCOL):
            T.noble_req[i][c] = noble.requirement[c]
            T.noble8[i] |= (<uint64_t>noble.requirement[c]) << (8 * c)
    for d in range(NDECK):
        ids = [i for i, card in enumerate(cards.CARDS) if card.deck == d]
        T.deck_first[d] = ids[0] if ids else 0
        T.deck_size[d] = len(ids)
        assert ids == list(range(T.deck_first[d], T.deck_first[d] + len(ids)))
    from itertools import combinations
    for i, combo in enumerate(combinations(range(NCOL), 3)):
        TAKE3_MASK[i] = sum(1 << c for c in combo)
    for i, combo in enumerate(combinations(range(NCOL), 2)):
        TAKE2_MASK[i] = sum(1 << c for c in combo)
    for avail in range(32):
        if bin(avail).count("1") >= 3:
            acts = [A_TAKE3 + i for i in range(10) if TAKE3_MASK[i] & avail == TAKE3_MASK[i]]
        else:
            acts = [A_TAKE2D + i for i in range(10) if TAKE2_MASK[i] & avail == TAKE2_MASK[i]]
            acts += [A_TAKE1 + c for c in range(NCOL) if (avail >> c) & 1]
        TAKE_N[avail] = len(acts)
        for i, a in enumerate(acts):
            TAKE_ACTS[avail][i] = a
    for i in range(10):
        TAKE8[A_TAKE3 + i] = sum(1 << (8 * c) for c in range(NCOL) if (TAKE3_MASK[i] >> c) & 1)
        TAKE8[A_TAKE2D + i] = sum(1 << (8 * c) for c in range(NCOL) if (TAKE2_MASK[i] >> c) & 1)
    for c in range(NCOL):
        TAKE8[A_TAKE1 + c] = (<uint64_t>1) << (8 * c)
        TAKE8[A_TAKE2S + c] = (<uint64_t>2) << (8 * c)


_load_tables()


# ---------------------------------------------------------------------------------------------
# random numbers: splitmix64, seeded from the game or search seed (reproducible everywhere)

cdef void rng_seed(Rng* r, uint64_t seed) noexcept nogil:
    r.s = seed
    rng_next(r)


cdef inline void shuffle(int8_t* a, int n, Rng* r) noexcept nogil:
    cdef int i, j
    cdef int8_t t
    for i in range(n - 1, 0, -1):
        j = rng_below(r, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


# ---------------------------------------------------------------------------------------------
# rules (base game; the module rules follow, docs/MODULES.md)

cdef int total_tokens(const Player* p) noexcept nogil:
    return p.tokens[0] + p.tokens[1] + p.tokens[2] + p.tokens[3] + p.tokens[4] + p.tokens[5]


cdef inline bint has_colour(const Player* p) noexcept nogil:
    return p.bonus[0] + p.bonus[1] + p.bonus[2] + p.bonus[3] + p.bonus[4] > 0


cdef inline bint owns(const Player* p, int card) noexcept nogil:
    return (p.cards[card >> 6] >> (card & 63)) & 1


cdef inline bint sacrificable(const Player* p, int card, int colour) noexcept nogil:
    """Can `card` (owned by p) be discarded as one card of `colour` (a sacrifice price)?"""
    if T.bonus[card] == colour:
        return True
    return T.joker_idx[card] >= 0 and p.joker_col[T.joker_idx[card]] == colour + 1


cdef extern from *:
    int popcount64 "__builtin_popcountll"(unsigned long long x) nogil


cdef int sacrifice_count(const Player* p, int colour) noexcept nogil:
    cdef int j, n = popcount64(p.cards[0] & T.colour_cards[colour][0]) \
        + popcount64(p.cards[1] & T.colour_cards[colour][1])
    for j in range(NJOKER):
        if p.joker_col[j] == colour + 1:
            n += 1
    return n


cdef bint can_afford(const Player* p, int card) noexcept nogil:
    """Can p acquire `card` by buying it (its price, and the Orient conditions on acquiring)?"""
    cdef int c, need, short = 0
    cdef int ab = T.ability[card]
    if ab:
        if (ab & AB_JOKER) and not has_colour(p):
            return False
        if ab & AB_SACRIFICE:
            return sacrifice_count(p, T.sac_colour[card]) >= 2
    if (p.posts >> POST_GOLD_TWO) & 1:
        # each gold token covers up to 2 missing gems of one colour
        for c in range(NCOL):
            need = T.cost[card][c] - p.bonus[c] - p.tokens[c]
            if need > 0:
                short += (need + 1) >> 1
        return short <= p.tokens[GOLD]
    for c in range(NCOL):
        need = T.cost[card][c] - p.bonus[c] - p.tokens[c]
        if need > 0:
            short += need
    return short <= p.tokens[GOLD] + 2 * p.goldcards


cdef inline bint noble_met(const Player* p, int noble) noexcept nogil:
    return deficit8(T.noble8[noble], bonus8(p)) == 0


cdef inline bint market_open(const State* s, int lv, int sl, int seat) noexcept nogil:
    """May `seat` buy or reserve that market card? (Strongholds: not another player's.)"""
    return s.sh[lv][sl] == 0 or (s.sh[lv][sl] >> 2) == seat


cdef int BASE_PATHS = 1   # 0: the base game's main phase through the general code (for tests)


def set_base_paths(bint on):
    """Switch the base game's own move generation and apply (main_legal_base, base_apply) on
    or off; off, the base game's main phase goes through the general code that the modules
    use. For tests, which check that the moves and states are the same either way."""
    global BASE_PATHS
    BASE_PATHS = on


cdef int legal_actions(const State* s, int* out) noexcept nogil:
    cdef int n = 0, c, i, lv, sl, card, navail = 0, excess, suffix
    cdef unsigned int m
    cdef uint8_t avail = 0
    cdef const Player* p = &s.p[s.to_move]
    if s.over:
        return 0
    if s.phase == PH_RETURN:
        # returns go in non-decreasing colour order, so colour c may start the rest of the
        # returns only if the tokens of colours c and above can cover all of them
        excess = total_tokens(p) - TOKEN_LIMIT
        suffix = 0
        for c in range(NTOK - 1, s.ret_min - 1, -1):
            suffix += p.tokens[c]
            if p.tokens[c] > 0 and suffix >= excess:
                out[n] = A_RETURN + c
                n += 1
        # colours were found from gold down; list them in colour order
        for i in range(n // 2):
            c = out[i]
            out[i] = out[n - 1 - i]
            out[n - 1 - i] = c
        return n
    if s.phase == PH_NOBLE:
        m = s.nobles | p.held
        while m:
            i = ctz(m)
            m &= m - 1
            if noble_met(p, i):
                out[n] = A_NOBLE + i
                n += 1
        return n
    if s.phase != PH_MAIN:
        return decision_legal(s, out)
    if (s.modules & ~MOD_CITIES) == 0 and BASE_PATHS:   # the Cities change no main-phase move
        return main_legal_base(s, out)
    for c in range(NCOL):
        if s.bank[c] > 0:
            avail |= 1 << c
            navail += 1
    if navail >= 3:
        for i in range(10):
            if (TAKE3_MASK[i] & avail) == TAKE3_MASK[i]:
                out[n] = A_TAKE3 + i
                n += 1
    else:
        for i in range(10):
            if (TAKE2_MASK[i] & avail) == TAKE2_MASK[i]:
                out[n] = A_TAKE2D + i
                n += 1
        for c in range(NCOL):
            if (avail >> c) & 1:
                out[n] = A_TAKE1 + c
                n += 1
    for c in range(NCOL):
        if s.bank[c] >= 4:
            out[n] = A_TAKE2S + c
            n += 1
    if p.nres < MAXRES:
        for lv in range(NLEV):
            for sl in range(s.nslots):
                if s.market[lv][sl] >= 0 and market_open(s, lv, sl, s.to_move):
                    out[n] = A_RES_SLOT + lv * NSLOT + sl
                    n += 1
        for i in range(s.ndecks):
            if s.deck_len[i] > 0:
                out[n] = A_RES_DECK + i
                n += 1
    for lv in range(NLEV):
        for sl in range(s.nslots):
            card = s.market[lv][sl]
            if card >= 0 and can_afford(p, card) and market_open(s, lv, sl, s.to_move):
                out[n] = A_BUY_SLOT + lv * NSLOT + sl
                n += 1
    for i in range(p.nres):
        if p.res[i] >= 0 and can_afford(p, p.res[i]):
            out[n] = A_BUY_HAND + i
            n += 1
    if n == 0:
        out[0] = A_PASS
        n = 1
    return n


cdef int main_legal_base(const State* s, int* out) noexcept nogil:
    """legal_actions in the base game's main phase: the takes and reserves, then the buys."""
    cdef int n = base_nonbuys(s, out)
    n += base_buys(s, out + n)
    if n == 0:
        out[0] = A_PASS
        n = 1
    return n


# The base game's main phase in parts, for legal_actions and for playouts that often need only
# the buys. Without modules no stronghold closes a market card and a price is the cost less
# bonuses and tokens, covered by gold tokens alone. Actions whose legality is a coin toss for the
# branch predictor are written unconditionally and kept by advancing n or not.

cdef int base_nonbuys(const State* s, int* out) noexcept nogil:
    """The takes and reserves (the head of legal_actions' list), in its order."""
    cdef const Player* p = &s.p[s.to_move]
    cdef int n, c, i, lv, sl
    cdef unsigned int avail = 0
    for c in range(NCOL):
        avail |= (s.bank[c] > 0) << c
    n = TAKE_N[avail]
    memcpy(out, TAKE_ACTS[avail], n * sizeof(int))
    for c in range(NCOL):
        out[n] = A_TAKE2S + c
        n += s.bank[c] >= 4
    if p.nres < MAXRES:
        for lv in range(NLEV):
            for sl in range(s.nslots):
                out[n] = A_RES_SLOT + lv * NSLOT + sl
                n += s.market[lv][sl] >= 0
        for i in range(s.ndecks):
            out[n] = A_RES_DECK + i
            n += s.deck_len[i] > 0
    return n


cdef int base_nonbuy_count(const State* s) noexcept nogil:
    """len(base_nonbuys(s)), without writing the list (base game: 4 slots a level)."""
    cdef const Player* p = &s.p[s.to_move]
    cdef int n, c, i, lv
    cdef unsigned int avail = 0
    cdef uint32_t row
    cdef uint64_t bank
    for c in range(NCOL):
        avail |= (s.bank[c] > 0) << c
    n = TAKE_N[avail]
    memcpy(&bank, s.bank, 8)    # bytes 0-4 the colours, each 0-7: a byte >= 4 gets its high bit
    n += sum8(((bank + 0x7C7C7C7C7CULL) & 0x8080808080ULL) >> 7)
    if p.nres < MAXRES:
        for lv in range(NLEV):   # the face-up cards: bytes without the high bit of -1
            memcpy(&row, &s.market[lv][0], 4)
            n += 4 - sum8((row & 0x80808080U) >> 7)
        for i in range(s.ndecks):
            n += s.deck_len[i] > 0
    return n


cdef int base_buys(const State* s, int* out) noexcept nogil:
    """The buys (the tail of legal_actions' list), in its order: a card is affordable when its
    shortfall (per colour, beyond tokens and bonuses) sums to at most the gold tokens. The
    market's 12 cards are tested together (sp_market_buys: two cards a vector) into a bit
    mask. Base game: 4 slots a level."""
    cdef const Player* p = &s.p[s.to_move]
    cdef uint64_t have = have8(p)
    cdef int n = 0, i, card, gold = p.tokens[GOLD]
    cdef unsigned int mask = sp_market_buys(COST1, &s.market[0][0], have, gold)
    while mask:
        out[n] = A_BUY_SLOT + ctz(mask)
        mask &= mask - 1
        n += 1
    for i in range(p.nres):
        card = p.res[i]
        out[n] = A_BUY_HAND + i
        n += card >= 0 and sum8(deficit8(T.cost8[card], have)) <= gold
    return n


cdef void action_keys(const State* s, const int* acts, int n, int* keys) noexcept nogil:
    """keys[i] = action_key(s, acts[i]) for i < n (one call for a whole list)."""
    cdef int i
    for i in range(n):
        keys[i] = action_key(s, acts[i])


cdef int action_key(const State* s, int a) noexcept nogil:
    cdef int i
    if a < A_RES_SLOT:
        return a
    if a < A_RES_DECK:
        return KEY_RESERVE + slot_card(s, a - A_RES_SLOT)
    if a < A_BUY_SLOT:
        return a
    if a < A_BUY_HAND:
        return KEY_BUY + slot_card(s, a - A_BUY_SLOT)
    if a < A_PASS:
        return KEY_BUY + s.p[s.to_move].res[a - A_BUY_HAND]
    if a < A_FREE or (a >= A_SACRIFICE and a < A_SH_PLACE) or a >= A_CONQUER:
        return a
    if a < A_SACRIFICE:
        i = a - A_FREE
        return KEY_FREE + s.market[i // NSLOT][i % NSLOT]
    # strongholds: keyed by the card (the slot of the card picked up in PH_SH_TO is empty of it
    # only in count, the card itself stays)
    i = (a - A_SH_PLACE) % (NLEV * NSLOT)
    return KEY_SH_PLACE + (a - A_SH_PLACE) // (NLEV * NSLOT) * (KEY_SH_FROM - KEY_SH_PLACE) \
        + s.market[i // NSLOT][i % NSLOT]


cdef inline int slot_deck(int lv, int sl) noexcept nogil:
    return lv if sl < NREG else NLEV + lv


cdef inline int take_reserved(Player* p, int i) noexcept nogil:
    """Remove card i of the player's hand (the rest move up) and return it."""
    cdef int card = p.res[i]
    p.nres -= 1
    while i < p.nres:
        p.res[i] = p.res[i + 1]
        p.res_deck[i] = p.res_deck[i + 1]
        i += 1
    p.res[p.nres] = -1      # canonical bytes past the hand (Core.key)
    p.res_deck[p.nres] = -1
    return card


cdef inline int draw(State* s, int d) noexcept nogil:
    cdef int card
    if s.deck_len[d] == 0:
        return -1
    s.deck_len[d] -= 1
    card = s.deck[d][s.deck_len[d]]
    s.deck[d][s.deck_len[d]] = 0   # keep the bytes past the top canonical (Core.key compares them)
    return card


cdef inline void sh_release(State* s, int lv, int sl) noexcept nogil:
    """The strongholds on that market card go back to their owner's hand."""
    cdef int v = s.sh[lv][sl]
    if v:
        s.p[v >> 2].sh_hand += v & 3
        s.sh[lv][sl] = 0


cdef inline void take_from_market(State* s, int lv, int sl) noexcept nogil:
    if s.sh[lv][sl]:
        sh_release(s, lv, sl)
    s.market[lv][sl] = draw(s, slot_deck(lv, sl))


cdef inline void push(State* s, int task, int arg) noexcept nogil:
    s.todo[s.ntodo] = task
    s.todo_arg[s.ntodo] = arg
    s.ntodo += 1


cdef inline void pop(State* s) noexcept nogil:
    s.ntodo -= 1
    s.todo[s.ntodo] = 0
    s.todo_arg[s.ntodo] = 0


cdef inline void add_reserve(State* s, Player* p, int card, int from_deck) noexcept nogil:
    p.res[p.nres] = card
    p.res_deck[p.nres] = from_deck
    p.nres += 1
    if s.bank[GOLD] > 0:
        s.bank[GOLD] -= 1
        p.tokens[GOLD] += 1


cdef void discard(State* s, Player* p, int card) noexcept nogil:
    """Card leaves p's tableau and the game (sacrificed, or a spent gold card)."""
    cdef int j = T.joker_idx[card]
    p.cards[card >> 6] &= ~((<uint64_t>1) << (card & 63))
    s.discard[card >> 6] |= (<uint64_t>1) << (card & 63)
    p.ncards -= 1
    p.points -= T.points[card]
    if T.bonus[card] >= 0:
        p.bonus[T.bonus[card]] -= T.bonus_n[card]
    if j >= 0 and p.joker_col[j]:
        p.bonus[p.joker_col[j] - 1] -= 1
        p.joker_col[j] = 0
    if T.ability[card] & AB_GOLD2:
        p.goldcards -= 1


cdef void pay(State* s, Player* p, int card) noexcept nogil:
    """Pay for `card`: coloured gems first, then gold tokens, then (Orient) gold cards, each spent
    whole, lowest id first (docs/MODULES.md, Payment)."""
    cdef int c, need, gold
    cdef uint64_t t
    cdef uint64_t price = deficit8(T.cost8[card], bonus8(p))   # per colour, after bonuses
    cdef uint64_t miss = deficit8(price, tokens8(p))           # beyond the coloured tokens
    cdef uint64_t paid = price - miss                          # no byte borrows: miss <= price
    if (p.posts >> POST_GOLD_TWO) & 1:
        gold = sum8(((miss + 0x0101010101ULL) >> 1) & 0x7F7F7F7F7FULL)   # ceil(miss / 2)
    else:
        gold = sum8(miss)
    # per colour at once: no byte borrows (paid <= tokens) or carries (a bank stays small)
    memcpy(&t, p.tokens, 8)
    t -= paid
    memcpy(p.tokens, &t, 8)
    memcpy(&t, s.bank, 8)
    t += paid
    memcpy(s.bank, &t, 8)
    need = gold if gold < p.tokens[GOLD] else p.tokens[GOLD]
    p.tokens[GOLD] -= need
    s.bank[GOLD] += need
    gold -= need
    c = T.deck_first[NLEV]
    while gold > 0:
        while not (owns(p, c) and (T.ability[c] & AB_GOLD2)):
            c += 1
        discard(s, p, c)
        gold -= 2


cdef void gain(State* s, Player* p, int card) noexcept nogil:
    """`card` joins p's tableau; its Orient abilities become pending decisions (joker first)."""
    cdef int ab = T.ability[card]
    p.cards[card >> 6] |= (<uint64_t>1) << (card & 63)
    p.ncards += 1
    p.points += T.points[card]
    if T.bonus[card] >= 0:
        p.bonus[T.bonus[card]] += T.bonus_n[card]
    if ab:
        if ab & AB_GOLD2:
            p.goldcards += 1
        if ab & AB_TAKE1:
            push(s, PH_FREE, 0)
        if ab & AB_TAKE2:
            push(s, PH_FREE, 1)
        if ab & AB_HOLD:
            push(s, PH_HOLD, 0)
        if ab & AB_JOKER:
            push(s, PH_JOKER, card)


cdef void buy(State* s, Player* p, int card) noexcept nogil:
    """A purchase: the module follow-ups of a purchase, then the price and the card."""
    if s.modules:
        if s.modules & MOD_STRONGHOLDS:
            push(s, PH_SH, 0)
        if (s.modules & MOD_POSTS) and (p.posts >> POST_GEM_AFTER_BUY) & 1:
            push(s, PH_GEM, -1)
        if T.ability[card] & AB_SACRIFICE:
            # the price is two discards, chosen first; the card is gained after them
            push(s, TASK_GAIN, card)
            push(s, PH_SACRIFICE, -1)
            return
    pay(s, p, card)
    gain(s, p, card)


cdef inline void give_noble(State* s, Player* p, int noble) noexcept nogil:
    s.passes = 0    # a pass on which a noble visits changes the game: it is not a dead pass
    s.nobles &= ~(<uint16_t>1 << noble)
    p.held &= ~(<uint16_t>1 << noble)
    p.nobles |= <uint16_t>1 << noble
    p.points += 3


cdef inline bint post_met(const Player* p, int post) noexcept nogil:
    cdef int c
    for c in range(NCOL):
        if p.bonus[c] < T.post_req[post][c]:
            return False
    return T.post_nobles[post] == 0 or p.nobles != 0


cdef void claim_posts(State* s, Player* p) noexcept nogil:
    """Trading posts: every power met is claimed (automatic); points of powers 3 and 4."""
    cdef int i
    for i in range(NPOSTS):
        if not (p.posts >> i) & 1 and post_met(p, i):
            p.posts |= 1 << i
            s.passes = 0    # not a dead pass (as give_noble)
            if i == POST_FIVE:
                p.points += 5
            if i == POST_PER_ARMS:
                p.points += popcount8(p.posts)
            elif (p.posts >> POST_PER_ARMS) & 1:
                p.points += 1   # one more coat of arms for power 4 to count


cdef bint city_met(const Player* p, int city) noexcept nogil:
    cdef int c, need = T.city_same[city]
    if p.points < T.city_prestige[city]:
        return False
    for c in range(NCOL):
        if p.bonus[c] < T.city_req[city][c]:
            return False
    if need == 0:
        return True
    for c in range(NCOL):
        if T.city_req[city][c] == 0 and p.bonus[c] >= need:
            return True
    return False


cdef inline void claim_city(State* s, Player* p, int city) noexcept nogil:
    cdef int i, k = 0
    for i in range(NCITY_UP):     # the rest stay packed in increasing order (canonical bytes)
        if s.cities[i] != city + 1:
            s.cities[k] = s.cities[i]
            k += 1
    while k < NCITY_UP:
        s.cities[k] = 0
        k += 1
    p.cities |= <uint16_t>1 << city
    s.final = 1     # the first city claimed starts the last round
    s.passes = 0    # not a dead pass (as give_noble)


cdef void finish_turn(State* s) noexcept nogil:
    if not (s.modules & MOD_CITIES) and s.p[s.to_move].points >= WIN_POINTS:
        s.final = 1
    s.phase = PH_MAIN
    s.ret_min = 0      # equal positions must be equal bytes (Core.key), however returns went
    s.conquered = 0
    s.step = 0
    s.turn += 1
    s.to_move += 1
    if s.to_move == s.nplayers:
        s.to_move = 0
    if s.final and s.to_move == s.first:
        s.over = END_POINTS
    elif s.passes >= s.nplayers and not s.final:
        # every player in a row passed without changing anything (docs/RULES.md, "Stalemate");
        # once the end is triggered the round is played out instead
        s.over = END_STALEMATE
    elif s.turn >= <int>s.cap * s.nplayers:
        s.over = END_CAP


cdef void after_noble(State* s) noexcept nogil:
    """End of turn after the noble visit: trading posts, then a city."""
    cdef Player* p = &s.p[s.to_move]
    cdef int i, city, met = 0, last = -1
    if s.modules & MOD_POSTS:
        claim_posts(s, p)
    elif s.modules & MOD_CITIES:
        for i in range(NCITY_UP):
            city = s.cities[i] - 1
            if city >= 0 and city_met(p, city):
                met += 1
                last = city
        if met == 1:
            claim_city(s, p, last)
        elif met > 1:
            s.phase = PH_CITY
            return
    finish_turn(s)


cdef void after_returns(State* s) noexcept nogil:
    cdef Player* p = &s.p[s.to_move]
    cdef int i, met = 0, last = -1
    cdef unsigned int m = s.nobles | p.held
    while m:
        i = ctz(m)
        m &= m - 1
        if noble_met(p, i):
            met += 1
            last = i
    if met == 1:
        give_noble(s, p, last)
    elif met > 1:
        s.phase = PH_NOBLE
        return
    after_noble(s)


cdef int conquest_slot(const State* s) noexcept nogil:
    """Strongholds: the slot (level * NSLOT + slot) of a card holding all 3 of the mover's
    strongholds that the mover can afford, or -1."""
    cdef int lv, sl
    if s.p[s.to_move].sh_hand != 0:
        return -1
    for lv in range(NLEV):
        for sl in range(s.nslots):
            if s.sh[lv][sl] == s.to_move * 4 + NSTRONG:
                return lv * NSLOT + sl if can_afford(&s.p[s.to_move], s.market[lv][sl]) else -1
    return -1


cdef void continue_turn(State* s) noexcept nogil:
    """Open the next pending decision that has an option (skipping those without), else go on
    to the conquest, the token limit and the end of the turn."""
    cdef int buf[MAXLEGAL]
    cdef Player* p = &s.p[s.to_move]
    cdef int t, arg
    while s.ntodo > 0:
        t = s.todo[s.ntodo - 1]
        arg = s.todo_arg[s.ntodo - 1]
        if t == TASK_GAIN:
            pop(s)
            pay(s, p, arg)
            gain(s, p, arg)
            continue
        if t == TASK_REFILL:    # the conquered card's slot, once its stronghold action is over
            pop(s)
            s.market[arg // NSLOT][arg % NSLOT] = draw(s, slot_deck(arg // NSLOT, arg % NSLOT))
            continue
        s.phase = t
        if decision_legal(s, buf) > 0:
            return
        pop(s)
    if (s.modules & MOD_STRONGHOLDS) and not s.conquered and conquest_slot(s) >= 0:
        s.phase = PH_CONQUER
        return
    if total_tokens(p) > TOKEN_LIMIT:
        s.phase = PH_RETURN
        s.ret_min = 0
        return
    s.phase = PH_MAIN
    after_returns(s)


cdef bint sh_target(const State* s, int lv, int sl, int seat) noexcept nogil:
    """Can `seat` put a stronghold on that market card?"""
    return s.market[lv][sl] >= 0 and (s.sh[lv][sl] == 0 or (s.sh[lv][sl] >> 2) == seat)


cdef int decision_legal(const State* s, int* out) noexcept nogil:
    """Options of the module decision phases (docs/MODULES.md)."""
    cdef const Player* p = &s.p[s.to_move]
    cdef int n = 0, c, i, lv, sl, card, arg, colour, seat = s.to_move, v, targets
    cdef unsigned int m
    arg = s.todo_arg[s.ntodo - 1] if s.ntodo > 0 else 0
    if s.phase == PH_GEM:
        for c in range(NCOL):
            if s.bank[c] > 0 and c != arg:
                out[n] = A_GEM + c
                n += 1
    elif s.phase == PH_JOKER:
        for c in range(NCOL):
            if p.bonus[c] > 0:
                out[n] = A_JOKER + c
                n += 1
    elif s.phase == PH_HOLD:
        m = s.nobles
        while m:
            i = ctz(m)
            m &= m - 1
            out[n] = A_HOLD + i
            n += 1
    elif s.phase == PH_FREE:
        for sl in range(s.nslots):
            card = s.market[arg][sl]
            if card >= 0 and not ((T.ability[card] & AB_JOKER) and not has_colour(p)):
                out[n] = A_FREE + arg * NSLOT + sl
                n += 1
    elif s.phase == PH_SACRIFICE:
        # the colour comes from the sacrifice card waiting below (TASK_GAIN); the two discards
        # are chosen in increasing card-id order
        colour = T.sac_colour[s.todo_arg[s.ntodo - 2]]
        for card in range(arg + 1, NCARDS):
            if owns(p, card) and sacrificable(p, card, colour):
                out[n] = A_SACRIFICE + card
                n += 1
        if arg < 0 and n > 0:
            n -= 1    # the highest-id card cannot come first: nothing would be left above it
    elif s.phase == PH_SH:
        targets = 0
        for lv in range(NLEV):
            for sl in range(s.nslots):
                if sh_target(s, lv, sl, seat):
                    targets += 1
        for lv in range(NLEV):
            for sl in range(s.nslots):
                v = s.sh[lv][sl]
                if p.sh_hand > 0 and sh_target(s, lv, sl, seat):
                    out[n] = A_SH_PLACE + lv * NSLOT + sl
                    n += 1
                if v and (v >> 2) == seat and targets > 1:
                    out[n] = A_SH_FROM + lv * NSLOT + sl
                    n += 1
                if v and (v >> 2) != seat:
                    out[n] = A_SH_REMOVE + lv * NSLOT + sl
                    n += 1
    elif s.phase == PH_SH_TO:
        for lv in range(NLEV):
            for sl in range(s.nslots):
                if lv * NSLOT + sl != arg and sh_target(s, lv, sl, seat):
                    out[n] = A_SH_TO + lv * NSLOT + sl
                    n += 1
    elif s.phase == PH_CONQUER:
        out[0] = A_CONQUER
        out[1] = A_DECLINE
        n = 2
    elif s.phase == PH_CITY:
        for i in range(NCITY_UP):
            c = s.cities[i] - 1
            if c >= 0 and city_met(p, c):
                out[n] = A_CITY + c
                n += 1
    return n


cdef void apply_decision(State* s, int a) noexcept nogil:
    cdef Player* p = &s.p[s.to_move]
    cdef int lv, sl, card, i, arg = s.todo_arg[s.ntodo - 1] if s.ntodo > 0 else 0
    if s.phase == PH_CITY:
        claim_city(s, p, a - A_CITY)
        finish_turn(s)
        return
    if s.phase == PH_CONQUER:
        s.conquered = 1
        if a == A_CONQUER:
            i = conquest_slot(s)
            lv = i // NSLOT
            sl = i % NSLOT
            card = s.market[lv][sl]
            sh_release(s, lv, sl)
            s.market[lv][sl] = -1
            # RULES.md: the conquest's stronghold action comes before its slot is refilled (the
            # stack is empty here: the conquest is offered once every other follow-up is done)
            push(s, TASK_REFILL, i)
            buy(s, p, card)
        continue_turn(s)
        return
    pop(s)
    if a >= A_GEM:
        s.bank[a - A_GEM] -= 1
        p.tokens[a - A_GEM] += 1
    elif a < A_HOLD:
        p.joker_col[T.joker_idx[arg]] = a - A_JOKER + 1
        p.bonus[a - A_JOKER] += 1
    elif a < A_FREE:
        s.nobles &= ~(<uint16_t>1 << (a - A_HOLD))
        p.held |= <uint16_t>1 << (a - A_HOLD)
    elif a < A_SACRIFICE:
        i = a - A_FREE
        card = s.market[i // NSLOT][i % NSLOT]
        take_from_market(s, i // NSLOT, i % NSLOT)
        gain(s, p, card)
    elif a < A_SH_PLACE:
        discard(s, p, a - A_SACRIFICE)
        if arg < 0:
            push(s, PH_SACRIFICE, a - A_SACRIFICE)
    elif a < A_SH_FROM:
        i = a - A_SH_PLACE
        s.sh[i // NSLOT][i % NSLOT] = (s.to_move << 2) + (s.sh[i // NSLOT][i % NSLOT] & 3) + 1
        p.sh_hand -= 1
    elif a < A_SH_TO:
        i = a - A_SH_FROM
        s.sh[i // NSLOT][i % NSLOT] -= 1
        if (s.sh[i // NSLOT][i % NSLOT] & 3) == 0:
            s.sh[i // NSLOT][i % NSLOT] = 0
        push(s, PH_SH_TO, i)
    elif a < A_SH_REMOVE:
        i = a - A_SH_TO
        s.sh[i // NSLOT][i % NSLOT] = (s.to_move << 2) + (s.sh[i // NSLOT][i % NSLOT] & 3) + 1
    else:
        i = a - A_SH_REMOVE
        s.p[s.sh[i // NSLOT][i % NSLOT] >> 2].sh_hand += 1
        s.sh[i // NSLOT][i % NSLOT] -= 1
        if (s.sh[i // NSLOT][i % NSLOT] & 3) == 0:
            s.sh[i // NSLOT][i % NSLOT] = 0
    continue_turn(s)


cdef inline void base_after_returns(State* s, Player* p) noexcept nogil:
    """after_returns, after_noble and finish_turn in the base game (and with the Cities, whose
    city visit after_noble makes)."""
    cdef int i, met = 0, last = -1
    cdef unsigned int m = s.nobles | p.held
    cdef uint64_t bh = bonus8(p) | 0x8080808080ULL
    while m:
        i = ctz(m)
        m &= m - 1
        # byte c of bh - req is 128 + bonus - req (no borrows): all high bits set = met
        if ((bh - T.noble8[i]) & 0x8080808080ULL) == 0x8080808080ULL:
            met += 1
            last = i
    if met == 1:
        give_noble(s, p, last)
    elif met > 1:
        s.phase = PH_NOBLE
        return
    if s.modules:
        after_noble(s)   # the Cities: a city met
    else:
        finish_turn(s)


cdef inline void base_apply(State* s, int a) noexcept nogil:
    """apply_action in the base game's main phase, and with the Cities (no stronghold, trading
    post or Orient card, so no pending decision; a price is paid in coloured and gold tokens
    only)."""
    cdef Player* p = &s.p[s.to_move]
    cdef int i, card, d, gold
    cdef uint64_t t, price, miss, paid
    if a == A_PASS:
        s.passes += 1
        after_returns(s)   # a noble met earlier but not yet received still visits
        return
    s.passes = 0
    if a >= A_BUY_SLOT:
        if a < A_BUY_HAND:
            i = a - A_BUY_SLOT
            card = (&s.market[0][0])[i]
            (&s.market[0][0])[i] = draw(s, i // NSLOT)
        else:
            card = take_reserved(p, a - A_BUY_HAND)
        # pay (as pay(): coloured tokens, then gold for the rest), all colours at once: no
        # byte borrows (paid <= tokens, gold <= gold tokens) or carries (a bank stays small)
        price = deficit8(T.cost8[card], bonus8(p))
        miss = deficit8(price, tokens8(p))
        paid = price - miss + (<uint64_t>sum8(miss) << (8 * GOLD))
        memcpy(&t, p.tokens, 8)
        t -= paid
        memcpy(p.tokens, &t, 8)
        memcpy(&t, s.bank, 8)
        t += paid
        memcpy(s.bank, &t, 8)
        # gain
        p.cards[card >> 6] |= (<uint64_t>1) << (card & 63)
        p.ncards += 1
        p.points += T.points[card]
        p.bonus[T.bonus[card]] += T.bonus_n[card]
    elif a < A_RES_SLOT:
        # the takes: the bank has the tokens, no byte borrows or carries
        memcpy(&t, p.tokens, 8)
        t += TAKE8[a]
        memcpy(p.tokens, &t, 8)
        memcpy(&t, s.bank, 8)
        t -= TAKE8[a]
        memcpy(s.bank, &t, 8)
    elif a < A_RES_DECK:
        i = a - A_RES_SLOT
        add_reserve(s, p, (&s.market[0][0])[i], -1)
        (&s.market[0][0])[i] = draw(s, i // NSLOT)
    else:
        d = a - A_RES_DECK
        add_reserve(s, p, draw(s, d), d)
    if total_tokens(p) > TOKEN_LIMIT:
        s.phase = PH_RETURN
        s.ret_min = 0
        return
    base_after_returns(s, p)


cdef void apply_action(State* s, int a) noexcept nogil:
    """Apply a legal action id (the caller guarantees legality)."""
    cdef Player* p = &s.p[s.to_move]
    cdef int c, i, lv, sl, card, d
    if s.phase == PH_MAIN and (s.modules & ~MOD_CITIES) == 0 and BASE_PATHS:
        base_apply(s, a)
        return
    if s.phase == PH_RETURN:
        c = a - A_RETURN
        p.tokens[c] -= 1
        s.bank[c] += 1
        s.ret_min = c
        if total_tokens(p) <= TOKEN_LIMIT:
            s.phase = PH_MAIN
            after_returns(s)
        return
    if s.phase == PH_NOBLE:
        give_noble(s, p, a - A_NOBLE)
        s.phase = PH_MAIN
        after_noble(s)
        return
    if s.phase != PH_MAIN:
        apply_decision(s, a)
        return
    if a == A_PASS:
        s.passes += 1
        after_returns(s)   # a noble met earlier but not yet received still visits
        return
    s.passes = 0
    if a < A_TAKE2D:
        for c in range(NCOL):
            if (TAKE3_MASK[a - A_TAKE3] >> c) & 1:
                s.bank[c] -= 1
                p.tokens[c] += 1
    elif a < A_TAKE1:
        for c in range(NCOL):
            if (TAKE2_MASK[a - A_TAKE2D] >> c) & 1:
                s.bank[c] -= 1
                p.tokens[c] += 1
    elif a < A_TAKE2S:
        c = a - A_TAKE1
        s.bank[c] -= 1
        p.tokens[c] += 1
    elif a < A_RES_SLOT:
        c = a - A_TAKE2S
        s.bank[c] -= 2
        p.tokens[c] += 2
        if (p.posts >> POST_EXTRA_ON_TAKE2) & 1:
            push(s, PH_GEM, c)
    elif a < A_RES_DECK:
        lv = (a - A_RES_SLOT) // NSLOT
        sl = (a - A_RES_SLOT) % NSLOT
        add_reserve(s, p, s.market[lv][sl], -1)
        take_from_market(s, lv, sl)
    elif a < A_BUY_SLOT:
        d = a - A_RES_DECK
        add_reserve(s, p, draw(s, d), d)
    elif a < A_BUY_HAND:
        lv = (a - A_BUY_SLOT) // NSLOT
        sl = (a - A_BUY_SLOT) % NSLOT
        card = s.market[lv][sl]
        if (s.modules & MOD_STRONGHOLDS) and s.deck_len[slot_deck(lv, sl)] > 0:
            # the slot is refilled at once, before the purchase's stronghold action, which may
            # use the new card: the turn goes on as its second step (docs/RULES.md)
            s.step = card + 1
        take_from_market(s, lv, sl)
        buy(s, p, card)
    else:
        card = take_reserved(p, a - A_BUY_HAND)
        buy(s, p, card)
    if s.ntodo == 0 and s.modules == 0:
        # the base game's fast path: no pending decision can exist
        if total_tokens(p) > TOKEN_LIMIT:
            s.phase = PH_RETURN
            s.ret_min = 0
            return
        after_returns(s)
        return
    continue_turn(s)


cdef void final_ranks(const State* s, int* rank) noexcept nogil:
    """Each seat's rank at the end (1 = best; ties share): most prestige, then fewest cards;
    with the Cities, city holders rank above everyone else."""
    cdef int i, j
    for i in range(s.nplayers):
        rank[i] = 1
        for j in range(s.nplayers):
            if rank_better(s, j, i):
                rank[i] += 1


cdef inline bint rank_better(const State* s, int a, int b) noexcept nogil:
    cdef bint ca = s.p[a].cities != 0, cb = s.p[b].cities != 0
    if ca != cb:
        return ca
    if s.p[a].points != s.p[b].points:
        return s.p[a].points > s.p[b].points
    return s.p[a].ncards < s.p[b].ncards


# ---------------------------------------------------------------------------------------------
# hidden information

cdef void hide_for(State* s, int seat) noexcept nogil:
    """Blank what `seat` cannot see: every deck's order and the opponents' blind reserves."""
    cdef int d, j, q
    for d in range(NDECK):
        for j in range(s.deck_len[d]):
            s.deck[d][j] = -1
    for q in range(s.nplayers):
        if q != seat:
            for j in range(s.p[q].nres):
                if s.p[q].res_deck[j] >= 0:
                    s.p[q].res[j] = -1


cdef int determinize(State* s, Rng* r) noexcept nogil:
    """Fill every unknown card (-1 in a deck or a blind reserve) with a uniform sample of the cards
    not visible anywhere, per deck. The pool is built in card-id order, so the result depends only
    on what is visible and on the rng, never on the hidden cards it replaces.
    Returns 0, or -1 when the counts of unknown and unseen cards disagree."""
    cdef Deal deal
    if deal_prepare(s, &deal) != 0:
        return -1
    deal_apply(s, &deal, r)
    return 0


cdef int deal_prepare(const State* s, Deal* deal) noexcept nogil:
    """What determinize needs of s that does not depend on the rng: per deck, the unseen cards
    in card-id order and the places of the unknown cards, in the order they are filled (blind
    reserves seat by seat, then the deck bottom up), as byte offsets into the State. Searches
    prepare once per root and apply per sampled world. Returns -1 as determinize does."""
    cdef uint64_t seen[2]
    cdef int d, q, j, lv, sl, card, npool, nhidden
    seen[0] = s.discard[0]
    seen[1] = s.discard[1]
    for lv in range(NLEV):
        for sl in range(NSLOT):
            card = s.market[lv][sl]
            if card >= 0:
                seen[card >> 6] |= (<uint64_t>1) << (card & 63)
    for q in range(s.nplayers):
        seen[0] |= s.p[q].cards[0]
        seen[1] |= s.p[q].cards[1]
        for j in range(s.p[q].nres):
            card = s.p[q].res[j]
            if card >= 0:
                seen[card >> 6] |= (<uint64_t>1) << (card & 63)
    for d in range(NDECK):
        for j in range(s.deck_len[d]):
            card = s.deck[d][j]
            if card >= 0:
                seen[card >> 6] |= (<uint64_t>1) << (card & 63)
    deal.ndecks = s.ndecks   # decks out of play (the Orient in a base game) hold no unknowns
    for d in range(s.ndecks):
        npool = 0
        for card in range(T.deck_first[d], T.deck_first[d] + T.deck_size[d]):
            if not (seen[card >> 6] >> (card & 63)) & 1:
                deal.pool[d][npool] = card
                npool += 1
        nhidden = 0
        for q in range(s.nplayers):
            for j in range(s.p[q].nres):
                if s.p[q].res[j] < 0 and s.p[q].res_deck[j] == d and nhidden < DECKCAP:
                    deal.at[d][nhidden] = <const char*>&s.p[q].res[j] - <const char*>s
                    nhidden += 1
        for j in range(s.deck_len[d]):
            if s.deck[d][j] < 0 and nhidden < DECKCAP:
                deal.at[d][nhidden] = <const char*>&s.deck[d][j] - <const char*>s
                nhidden += 1
        if nhidden != npool:
            return -1
        deal.n[d] = npool
    return 0


cdef void deal_apply(State* s, const Deal* deal, Rng* r) noexcept nogil:
    """Sample the unknown cards of a state that deal_prepare took (or one equal in every card
    place): the same world from the same rng as determinize."""
    cdef int8_t pool[DECKCAP]
    cdef int d, k
    for d in range(deal.ndecks):
        memcpy(pool, deal.pool[d], deal.n[d])
        shuffle(pool, deal.n[d], r)
        for k in range(deal.n[d]):
            (<int8_t*>s)[deal.at[d][k]] = pool[k]


# ---------------------------------------------------------------------------------------------
# playouts

cdef int random_playout(State* s, Rng* r) noexcept nogil:
    """Play uniformly random legal actions to the end; returns the number of actions applied."""
    cdef int buf[MAXLEGAL]
    cdef int n, actions = 0
    while not s.over:
        n = legal_actions(s, buf)
        apply_action(s, buf[rng_below(r, n)])
        actions += 1
    return actions


cdef void setup(State* s, int nplayers, uint64_t seed, int first, int cap, int modules) noexcept nogil:
    cdef Rng r
    cdef int8_t order[NNOBLES]
    cdef int8_t tiles[7]
    cdef int8_t chosen[NCITY_UP]
    cdef int d, i, lv, sl, c
    cdef int gems = 4 if nplayers == 2 else (5 if nplayers == 3 else 7)
    rng_seed(&r, seed)
    memset(s, 0, sizeof(State))
    s.nplayers = nplayers
    s.first = first
    s.to_move = first
    s.cap = cap
    s.nslots = NREG
    s.ndecks = NLEV
    for c in range(NCOL):
        s.bank[c] = gems
    s.bank[GOLD] = 5
    for d in range(NLEV):
        s.deck_len[d] = T.deck_size[d]
        for i in range(T.deck_size[d]):
            s.deck[d][i] = T.deck_first[d] + i
        shuffle(s.deck[d], s.deck_len[d], &r)
    for lv in range(NLEV):
        for sl in range(NSLOT):
            s.market[lv][sl] = -1
        for sl in range(NREG):
            s.market[lv][sl] = draw(s, lv)
    s.modules = modules
    if not (modules & MOD_CITIES):   # cities replace the nobles
        for i in range(NNOBLES):
            order[i] = i
        shuffle(order, NNOBLES, &r)
        for i in range(nplayers + 1):
            s.nobles |= <uint16_t>1 << order[i]
    for i in range(MAXP):
        for c in range(MAXRES):
            s.p[i].res[c] = -1
            s.p[i].res_deck[c] = -1
    if modules & MOD_ORIENT:
        s.nslots = NSLOT
        s.ndecks = NDECK
        for d in range(NLEV, NDECK):
            s.deck_len[d] = T.deck_size[d]
            for i in range(T.deck_size[d]):
                s.deck[d][i] = T.deck_first[d] + i
            shuffle(s.deck[d], s.deck_len[d], &r)
        for lv in range(NLEV):
            for sl in range(NREG, NSLOT):
                s.market[lv][sl] = draw(s, NLEV + lv)
    if modules & MOD_CITIES:
        # three of the seven tiles, each on a random side; kept in increasing id order
        for i in range(7):
            tiles[i] = i
        shuffle(tiles, 7, &r)
        for i in range(NCITY_UP):
            chosen[i] = 2 * tiles[i] + <int>rng_below(&r, 2)
        for i in range(NCITY_UP):
            for c in range(NCITY_UP - 1 - i):
                if chosen[c] > chosen[c + 1]:
                    d = chosen[c]
                    chosen[c] = chosen[c + 1]
                    chosen[c + 1] = d
        for i in range(NCITY_UP):
            s.cities[i] = chosen[i] + 1
    if modules & MOD_STRONGHOLDS:
        for i in range(nplayers):
            s.p[i].sh_hand = NSTRONG


# ---------------------------------------------------------------------------------------------
# the Python handle

def _mask_list(uint64_t lo, uint64_t hi):
    return [i for i in range(128) if ((lo if i < 64 else hi) >> (i & 63)) & 1]


cdef class Core:
    """A game state in C. Methods here trust their caller (splendor_ai.state validates input)."""

    @staticmethod
    def new(int nplayers, uint64_t seed, int first=0, int cap=100, int modules=0):
        cdef Core c = Core.__new__(Core)
        setup(&c.s, nplayers, seed, first, cap, modules)
        return c

    def copy(self):
        cdef Core c = Core.__new__(Core)
        memcpy(&c.s, &self.s, sizeof(State))
        return c

    def key(self):
        """The raw bytes of the state: equal keys mean equal states."""
        return (<char*>&self.s)[:sizeof(State)]

    def action_key(self, int a):
        return action_key(&self.s, a)

    def legal_actions(self):
        cdef int buf[MAXLEGAL]
        cdef int n = legal_actions(&self.s, buf)
        return [buf[i] for i in range(n)]

    def apply(self, int a):
        cdef int buf[MAXLEGAL]
        cdef int n = legal_actions(&self.s, buf), i
        for i in range(n):
            if buf[i] == a:
                apply_action(&self.s, a)
                return
        raise ValueError(f"action {a} is not legal here")

    def hidden_for(self, int seat):
        """A copy holding only what `seat` can see (unknown cards are -1)."""
        cdef Core c = self.copy()
        hide_for(&c.s, seat)
        return c

    def determinized(self, uint64_t seed):
        """A copy with every unknown card sampled from the unseen ones (see determinize())."""
        cdef Core c = self.copy()
        cdef Rng r
        rng_seed(&r, seed)
        if determinize(&c.s, &r) != 0:
            raise ValueError("unknown cards do not match the unseen cards")
        return c

    def playout(self, uint64_t seed):
        """Play random legal actions to the end in place; returns the number of actions."""
        cdef Rng r
        rng_seed(&r, seed)
        return random_playout(&self.s, &r)

    def bench_playouts(self, int games, uint64_t seed):
        """Random games from this state, all in C: returns (games, turns, actions)."""
        cdef State w
        cdef Rng r
        cdef long turns = 0, actions = 0
        cdef int g
        rng_seed(&r, seed)
        with nogil:
            for g in range(games):
                memcpy(&w, &self.s, sizeof(State))
                actions += random_playout(&w, &r)
                turns += w.turn - self.s.turn
        return games, turns, actions

    def bench_legal(self, int reps):
        """Generate the legal actions of this state `reps` times; returns the total count."""
        cdef int buf[MAXLEGAL]
        cdef long total = 0
        cdef int i
        with nogil:
            for i in range(reps):
                total += legal_actions(&self.s, buf)
        return total

    def bench_apply(self, int reps, int action):
        """Copy this state and apply `action` to the copy `reps` times."""
        cdef State w
        cdef int i
        with nogil:
            for i in range(reps):
                memcpy(&w, &self.s, sizeof(State))
                apply_action(&w, action)
        return reps

    # -- fields, for the Python layer -----------------------------------------------------------
    @property
    def phase(self): return self.s.phase
    @property
    def to_move(self): return self.s.to_move
    @property
    def over(self): return self.s.over
    @property
    def turn(self): return self.s.turn
    @property
    def nplayers(self): return self.s.nplayers
    @property
    def modules(self): return self.s.modules
    @property
    def nslots(self): return self.s.nslots
    @property
    def ndecks(self): return self.s.ndecks
    @property
    def step(self):
        """Strongholds: the card bought from the market in this turn's first step (its slot was
        refilled from the deck; the rest of the turn is the second step), or -1."""
        return self.s.step - 1

    def ranks(self):
        """Each seat's rank by the winner rule of the game's module (1 = best, ties share)."""
        cdef int rank[MAXP]
        final_ranks(&self.s, rank)
        return [rank[i] for i in range(self.s.nplayers)]

    def points(self):
        return [self.s.p[i].points for i in range(self.s.nplayers)]

    def ncards(self):
        return [self.s.p[i].ncards for i in range(self.s.nplayers)]

    def to_dict(self):
        """Every field as plain Python values; decks top first, None for an unknown card."""
        cdef int i, j, d
        s = &self.s
        seats = []
        for i in range(s.nplayers):
            p = &s.p[i]
            seats.append({
                "tokens": [p.tokens[j] for j in range(NTOK)],
                "cards": _mask_list(p.cards[0], p.cards[1]),
                "reserved": [(None if p.res[j] < 0 else p.res[j], None if p.res_deck[j] < 0 else p.res_deck[j])
                             for j in range(p.nres)],
                "nobles": [j for j in range(NNOBLES) if (p.nobles >> j) & 1],
                "held": [j for j in range(NNOBLES) if (p.held >> j) & 1],
                "jokers": [[card, p.joker_col[T.joker_idx[card]] - 1] for card in range(NCARDS)
                           if T.joker_idx[card] >= 0 and p.joker_col[T.joker_idx[card]]],
                "posts": [j for j in range(NPOSTS) if (p.posts >> j) & 1],
                "cities": [j for j in range(NCITIES) if (p.cities >> j) & 1],
                "sh_hand": p.sh_hand,
            })
        return {
            "players": s.nplayers, "cap": s.cap, "modules": s.modules,
            "to_move": s.to_move, "first": s.first, "turn": s.turn, "final": s.final,
            "passes": s.passes, "over": s.over, "phase": s.phase, "ret_min": s.ret_min,
            "bank": [s.bank[j] for j in range(NTOK)],
            "market": [[None if s.market[i][j] < 0 else s.market[i][j] for j in range(NSLOT)]
                       for i in range(NLEV)],
            "decks": [[None if s.deck[d][j] < 0 else s.deck[d][j] for j in range(s.deck_len[d] - 1, -1, -1)]
                      for d in range(NDECK)],
            "nobles": [j for j in range(NNOBLES) if (s.nobles >> j) & 1],
            "seats": seats,
            "cities": [s.cities[j] - 1 for j in range(NCITY_UP) if s.cities[j]],
            "discard": _mask_list(s.discard[0], s.discard[1]),
            "strongholds": [[[s.sh[i][j] >> 2, s.sh[i][j] & 3] if s.sh[i][j] else None for j in range(NSLOT)]
                            for i in range(NLEV)],
            "todo": [[s.todo[j], s.todo_arg[j]] for j in range(s.ntodo)],
            "conquered": s.conquered,
            "step": s.step - 1 if s.step else None,
        }

    @staticmethod
    def from_dict(dict d):
        """Inverse of to_dict (phase and over are recomputed by the caller's rules, not trusted)."""
        cdef Core c = Core.__new__(Core)
        cdef State* s = &c.s
        cdef Player* p
        cdef int i, j, k, card
        memset(s, 0, sizeof(State))
        s.nplayers = d["players"]
        s.cap = d["cap"]
        s.modules = d.get("modules", 0)
        s.to_move = d["to_move"]
        s.first = d["first"]
        s.turn = d["turn"]
        s.final = d["final"]
        s.passes = d["passes"]
        s.over = d.get("over", 0)
        s.phase = d.get("phase", PH_MAIN)
        s.ret_min = d.get("ret_min", 0)
        s.nslots = NSLOT if s.modules & MOD_ORIENT else NREG
        s.ndecks = NDECK if s.modules & MOD_ORIENT else NLEV
        for j in range(NTOK):
            s.bank[j] = d["bank"][j]
        for i in range(NLEV):
            for j in range(NSLOT):
                v = d["market"][i][j] if j < len(d["market"][i]) else None
                s.market[i][j] = -1 if v is None else v
        for i, deck in enumerate(d["decks"]):
            s.deck_len[i] = len(deck)
            for j, v in enumerate(reversed(deck)):
                s.deck[i][j] = -1 if v is None else v
        for j in d["nobles"]:
            s.nobles |= <uint16_t>1 << j
        for i in range(MAXP):
            for k in range(MAXRES):
                s.p[i].res[k] = -1
                s.p[i].res_deck[k] = -1
        for i, seat in enumerate(d["seats"]):
            p = &s.p[i]
            for j in range(NTOK):
                p.tokens[j] = seat["tokens"][j]
            for card in seat["cards"]:
                p.cards[card >> 6] |= (<uint64_t>1) << (card & 63)
                if T.bonus[card] >= 0:
                    p.bonus[T.bonus[card]] += T.bonus_n[card]
                if T.ability[card] & AB_GOLD2:
                    p.goldcards += 1
                p.points += T.points[card]
                p.ncards += 1
            for card, colour in seat.get("jokers", ()):
                p.joker_col[T.joker_idx[card]] = colour + 1
                p.bonus[colour] += 1
            for j in seat.get("held", ()):
                p.held |= <uint16_t>1 << j
            for j in seat.get("cities", ()):
                p.cities |= <uint16_t>1 << j
            p.sh_hand = seat.get("sh_hand", 0)
            for k, (card_or_none, deck) in enumerate(seat["reserved"]):
                p.res[k] = -1 if card_or_none is None else card_or_none
                p.res_deck[k] = -1 if deck is None else deck
            p.nres = len(seat["reserved"])
            for j in seat["nobles"]:
                p.nobles |= <uint16_t>1 << j
                p.points += 3
            for j in seat.get("posts", ()):
                p.posts |= 1 << j
            if (p.posts >> POST_FIVE) & 1:
                p.points += 5
            if (p.posts >> POST_PER_ARMS) & 1:
                p.points += popcount8(p.posts)
        for j, city in enumerate(d.get("cities", ())):
            s.cities[j] = city + 1
        for card in d.get("discard", ()):
            s.discard[card >> 6] |= (<uint64_t>1) << (card & 63)
        for i, row in enumerate(d.get("strongholds", ())):
            for j, v in enumerate(row):
                if v is not None:
                    s.sh[i][j] = (v[0] << 2) + v[1]
        for j, (task, arg) in enumerate(d.get("todo", ())):
            s.todo[j] = task
            s.todo_arg[j] = arg
        s.ntodo = len(d.get("todo", ()))
        s.conquered = d.get("conquered", 0)
        s.step = 0 if d.get("step") is None else d["step"] + 1
        if s.step and s.phase == PH_MAIN and s.ntodo == 0:
            # a position between the two steps of a two-step turn (docs/NOTATION.md): the second
            # step starts with the purchase's stronghold action
            s.phase = PH_SH
            push(&c.s, PH_SH, 0)
        return c

    def __reduce__(self):
        return (Core.from_dict, (self.to_dict(),))
