# The compiled Splendor state: one fixed-size C struct, copied by memcpy, advanced by integer
# action ids. Search kernels cimport this header; Python sees it through splendor_ai.state.
from libc.stdint cimport int8_t, int16_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.string cimport memcpy

# `cpdef`: besides the C constants the kernels cimport, the compiled module exports each name as a
# Python int (splendor_ai._engine.A_PASS, ...), so the Python layer reads the layout from here
cpdef enum:
    NCOL = 5          # gem colours: white, blue, green, red, black
    NTOK = 6          # + gold
    GOLD = 5
    MAXP = 4
    NLEV = 3
    NDECK = 6         # 0-2: regular decks of levels 1-3; 3-5: Orient decks (Cities of Splendor)
    NSLOT = 6         # per level: slots 0-3 regular, 4-5 Orient
    NREG = 4          # regular face-up slots per level
    DECKCAP = 40
    NCARDS = 120      # 90 base + 30 Orient
    NBASE = 90
    NNOBLES = 10
    NCITIES = 14      # city tiles x sides, ids = rows of cities.csv
    NCITY_UP = 3      # cities face up
    NPOSTS = 5        # trading-post powers 0-4 (the data file's ids 1-5)
    NJOKER = 7        # Orient joker cards (5 level 1, 2 level 2)
    NSTRONG = 3       # strongholds per player
    MAXTODO = 8
    MAXRES = 3
    TOKEN_LIMIT = 10
    WIN_POINTS = 15

    # Cities of Splendor modules (State.modules); RULES.md: each is played on its own
    MOD_CITIES = 1
    MOD_ORIENT = 2
    MOD_POSTS = 4
    MOD_STRONGHOLDS = 8

    # Orient ability bits (Tables.ability), in the order of cards.ABILITIES
    AB_GOLD2 = 1
    AB_JOKER = 2
    AB_DOUBLE = 4
    AB_HOLD = 8       # reserve_noble
    AB_TAKE1 = 16
    AB_TAKE2 = 32
    AB_SACRIFICE = 64

    # trading-post powers (Player.posts bit i = power i)
    POST_GEM_AFTER_BUY = 0
    POST_EXTRA_ON_TAKE2 = 1
    POST_GOLD_TWO = 2
    POST_FIVE = 3
    POST_PER_ARMS = 4

    # phases of a turn: the main action, then the decisions it may call for (docs/MODULES.md)
    PH_MAIN = 0
    PH_RETURN = 1     # over 10 tokens: return one token at a time, colours in non-decreasing order
    PH_NOBLE = 2      # several nobles met: choose one
    PH_JOKER = 3      # Orient: the colour a just-acquired joker joins
    PH_HOLD = 4       # Orient: the face-up noble to reserve
    PH_FREE = 5       # Orient: the free face-up card of level todo_arg (0 or 1)
    PH_SACRIFICE = 6  # Orient: a card of colour todo_arg to discard (two, in increasing id order)
    PH_SH = 7         # Strongholds: place, move (from) or remove after a purchase
    PH_SH_TO = 8      # Strongholds: where the stronghold picked up in PH_SH goes
    PH_CONQUER = 9    # Strongholds: buy the card holding all 3 of the mover's strongholds, or not
    PH_GEM = 10       # Trading posts: the extra gem (todo_arg: a colour excluded, or -1)
    PH_CITY = 11      # Cities: several cities met: choose one
    TASK_GAIN = 20    # automatic step: gain card todo_arg (a sacrifice card, once its price is paid)
    TASK_REFILL = 21  # automatic step: refill market slot todo_arg (a conquest's, after its stronghold action)

    # action ids (fixed layout; Cities of Splendor decisions go above A_BASE_END)
    A_TAKE3 = 0       # 10 combinations of 3 colours, lexicographic
    A_TAKE2D = 10     # 10 combinations of 2 colours (only when fewer than 3 colours available)
    A_TAKE1 = 20      # 5 (only when fewer than 3 colours available)
    A_TAKE2S = 25     # 5: two of one colour
    A_RES_SLOT = 30   # 18: level * NSLOT + slot
    A_RES_DECK = 48   # 6: deck index
    A_BUY_SLOT = 54   # 18: level * NSLOT + slot
    A_BUY_HAND = 72   # 3: index in the hand
    A_PASS = 75
    A_RETURN = 76     # 6: token colour
    A_NOBLE = 82      # 10: noble id
    A_BASE_END = 92
    A_JOKER = 92      # 5: colour
    A_HOLD = 97       # 10: noble id
    A_FREE = 107      # 18: level * NSLOT + slot
    A_SACRIFICE = 125 # 120: card id
    A_SH_PLACE = 245  # 18: level * NSLOT + slot (a stronghold from hand onto that card)
    A_SH_FROM = 263   # 18: pick up one of the mover's strongholds from that card (then PH_SH_TO)
    A_SH_TO = 281     # 18: put the picked-up stronghold on that card
    A_SH_REMOVE = 299 # 18: send an opponent's stronghold on that card back to its owner
    A_CONQUER = 317   # buy the conquered card
    A_DECLINE = 318   # do not
    A_GEM = 319       # 5: colour
    A_CITY = 324      # 14: city id
    NUM_ACTIONS = 338
    MAXLEGAL = 96

    # context-free action keys: the same key names the same choice in every determinization
    # (ids below KEY_RESERVE are their own key; market actions are keyed by the card, not the slot)
    KEY_RESERVE = 338   # + card id: reserve that face-up card
    KEY_BUY = 458       # + card id: buy that card (market or hand)
    KEY_FREE = 578      # + card id: take that face-up card free (Orient)
    KEY_SH_PLACE = 698  # + card id
    KEY_SH_FROM = 818   # + card id
    KEY_SH_TO = 938     # + card id
    KEY_SH_REMOVE = 1058  # + card id
    NKEYS = 1178

    # why the game ended
    END_NONE = 0
    END_POINTS = 1
    END_CAP = 2
    END_STALEMATE = 3

ctypedef struct Rng:
    uint64_t s

ctypedef struct Player:
    int8_t tokens[NTOK]
    int8_t bonus[NCOL]      # cached from cards: the discount per colour
    int16_t points          # cached: cards + nobles
    int8_t ncards           # bought cards (the tie-break)
    int8_t nres
    int8_t res[MAXRES]      # card id; -1 when hidden from the viewer (a blind reserve)
    int8_t res_deck[MAXRES] # deck a blind reserve came from; -1 when reserved face up
    uint16_t nobles         # mask of noble ids received
    uint64_t cards[2]       # mask of bought card ids (less discarded ones: sacrificed, spent gold)
    uint16_t held           # Orient: nobles reserved by this player, not yet visited
    int8_t goldcards        # Orient: unspent gold cards (2 gold each)
    int8_t sh_hand          # Strongholds: strongholds in hand (NSTRONG at the start)
    uint8_t posts           # Trading posts: mask of powers held
    uint16_t cities         # Cities: mask of city ids claimed
    int8_t joker_col[NJOKER]  # Orient: 1 + the colour each joker card of this player joined; 0 if not held

ctypedef struct State:
    int8_t nplayers
    int8_t to_move
    int8_t first
    int8_t phase
    int8_t final            # someone ended a turn with 15+: the round is the last
    int8_t over             # END_* reason, END_NONE while playing
    int8_t passes           # consecutive passes
    int8_t ret_min          # PH_RETURN: smallest colour still returnable (canonical order)
    int16_t turn            # whole turns played
    int16_t cap             # safety cap, in rounds
    uint16_t modules        # Cities of Splendor module flags (none implemented yet)
    uint16_t nobles         # mask of face-up noble ids
    int8_t nslots           # face-up slots per level in play (4; 6 with the Orient)
    int8_t ndecks           # decks in play (3; 6 with the Orient)
    int8_t bank[NTOK]
    int8_t market[NLEV][NSLOT]   # card id or -1
    int8_t deck_len[NDECK]
    int8_t deck[NDECK][DECKCAP]  # top = deck[d][deck_len[d] - 1]; -1 entries when hidden
    Player p[MAXP]
    # module fields: a zeroed field means "nothing" so that setup and from_dict (memset) agree
    # byte for byte (Core.key compares bytes)
    # pending decisions of the turn under way: a stack, the top (index ntodo - 1) comes next
    int8_t ntodo
    int8_t todo[MAXTODO]      # task: the PH_* phase it opens (or an automatic TASK_* step)
    int8_t todo_arg[MAXTODO]
    int8_t cities[NCITY_UP]   # Cities: face-up city id + 1; 0 once claimed (0 means none, as below)
    int8_t sh[NLEV][NSLOT]    # Strongholds: owner * 4 + count (1-3) on that market card; 0 when none
    int8_t conquered          # Strongholds: the conquest was used this turn
    uint64_t discard[2]       # Orient: cards out of the game (sacrificed, spent gold cards)
    int8_t step               # Strongholds: 1 + the card the mover bought from the market this turn
                              # when its slot was refilled from the deck: the rest of the turn is
                              # its second step, chosen with the new card face up (docs/RULES.md,
                              # "Two-step turns"); 0 otherwise (always 0 at a turn boundary)

# determinize in two steps (deal_prepare, deal_apply), for searches that sample many worlds
# from one view
ctypedef struct Deal:
    int8_t ndecks
    int8_t n[NDECK]                 # unknown cards of each deck (= its unseen cards)
    int8_t pool[NDECK][DECKCAP]     # the unseen cards, in card-id order
    int16_t at[NDECK][DECKCAP]      # byte offsets into the State of the places to fill

# card and noble tables (filled from splendor_ai/data at import); search kernels read them
# through get_tables() since C globals are not shared across modules
ctypedef struct Tables:
    int8_t level[NCARDS]        # 0-2
    int8_t bonus[NCARDS]        # colour 0-4; -1 for Orient gold and joker cards
    int8_t points[NCARDS]
    int8_t cost[NCARDS][NCOL]
    int8_t deck[NCARDS]         # deck index 0-5
    int8_t noble_req[NNOBLES][NCOL]
    int8_t deck_first[NDECK]    # card ids of a deck are contiguous
    int8_t deck_size[NDECK]
    int8_t bonus_n[NCARDS]      # bonuses the card gives: 1, 2 (double); 0 for gold and joker cards
    uint8_t ability[NCARDS]     # AB_* bits (Orient)
    int8_t sac_colour[NCARDS]   # sacrifice cards: the colour of the 2 cards discarded; -1
    int8_t joker_idx[NCARDS]    # joker cards: index into Player.joker_col; -1
    uint64_t colour_cards[NCOL][2]  # mask of the cards whose bonus is that colour
    int8_t city_prestige[NCITIES]
    int8_t city_req[NCITIES][NCOL]
    int8_t city_same[NCITIES]
    int8_t post_req[NPOSTS][NCOL]
    int8_t post_nobles[NPOSTS]
    uint64_t cost8[NCARDS]      # cost, packed (see have8)
    uint64_t noble8[NNOBLES]    # noble_req, packed


cdef extern from *:
    int ctz "__builtin_ctz"(unsigned int x) nogil    # the index of the lowest set bit (x != 0)


cdef inline int popcount8(unsigned int x) noexcept nogil:
    """The number of set bits of a small mask (module flags, trading-post powers)."""
    cdef int n = 0
    while x:
        x &= x - 1
        n += 1
    return n


cdef inline int slot_card(const State* s, int i) noexcept nogil:
    """The card in market slot i = level * NSLOT + slot (the action ids' numbering), or -1."""
    return (&s.market[0][0])[i]


# Gems per colour packed one byte a colour (colour c in byte c, bytes 5-7 zero), so that a card's
# shortfall is a few word operations instead of a loop with a branch per colour. Every byte must
# stay below 128 (costs are at most 7; a player's gems plus bonuses are far below that).
cdef inline uint64_t tokens8(const Player* p) noexcept nogil:
    """The player's coloured tokens, packed."""
    cdef uint64_t t
    memcpy(&t, p.tokens, 8)
    return t & 0xFFFFFFFFFFULL


cdef inline uint64_t bonus8(const Player* p) noexcept nogil:
    """The player's bonuses, packed."""
    cdef uint64_t b
    memcpy(&b, p.bonus, 8)
    return b & 0xFFFFFFFFFFULL


cdef inline uint64_t have8(const Player* p) noexcept nogil:
    """The player's coloured tokens plus bonuses, packed."""
    return tokens8(p) + bonus8(p)


cdef inline uint64_t deficit8(uint64_t cost, uint64_t have) noexcept nogil:
    """max(0, cost - have) per colour, packed: with the high bit of each byte set, no byte of
    the subtraction borrows from the next, and the high bit survives exactly where cost >= have."""
    cdef uint64_t x = (cost | 0x8080808080ULL) - have
    return x & (((x & 0x8080808080ULL) >> 7) * 0x7F)


cdef inline int sum8(uint64_t x) noexcept nogil:
    """The sum of the bytes of x (while it stays below 256)."""
    return <int>((x * 0x0101010101010101ULL) >> 56)


# random numbers: splitmix64 (inline here so that every search kernel inlines them)
cdef inline uint64_t rng_next(Rng* r) noexcept nogil:
    cdef uint64_t z
    r.s += <uint64_t>0x9E3779B97F4A7C15ULL
    z = r.s
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint32_t rng_below(Rng* r, uint32_t n) noexcept nogil:
    # Lemire's multiply-shift: the bias for n < 2**8 is below 2**-24
    return <uint32_t>(((rng_next(r) >> 32) * <uint64_t>n) >> 32)


cdef const Tables* get_tables() noexcept nogil
cdef void rng_seed(Rng* r, uint64_t seed) noexcept nogil

cdef int legal_actions(const State* s, int* out) noexcept nogil
cdef int base_nonbuys(const State* s, int* out) noexcept nogil
cdef int base_nonbuy_count(const State* s) noexcept nogil
cdef int base_buys(const State* s, int* out) noexcept nogil
cdef void apply_action(State* s, int a) noexcept nogil
cdef bint can_afford(const Player* p, int card) noexcept nogil
cdef int total_tokens(const Player* p) noexcept nogil
cdef int action_key(const State* s, int a) noexcept nogil
cdef void action_keys(const State* s, const int* acts, int n, int* keys) noexcept nogil
cdef void hide_for(State* s, int seat) noexcept nogil
cdef int determinize(State* s, Rng* r) noexcept nogil
cdef int deal_prepare(const State* s, Deal* deal) noexcept nogil
cdef void deal_apply(State* s, const Deal* deal, Rng* r) noexcept nogil
cdef int random_playout(State* s, Rng* r) noexcept nogil
cdef void final_ranks(const State* s, int* rank) noexcept nogil

cdef class Core:
    cdef State s
