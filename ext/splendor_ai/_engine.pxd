# The compiled Splendor state: one fixed-size C struct, copied by memcpy, advanced by integer
# action ids. Search kernels cimport this header; Python sees it through splendor_ai.state.
from libc.stdint cimport int8_t, int16_t, uint16_t, uint32_t, uint64_t

cdef enum:
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
    MAXRES = 3
    TOKEN_LIMIT = 10
    WIN_POINTS = 15

    # phases of a turn: the main action, then the decisions it may call for
    PH_MAIN = 0
    PH_RETURN = 1     # over 10 tokens: return one token at a time, colours in non-decreasing order
    PH_NOBLE = 2      # several nobles met: choose one

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
    NUM_ACTIONS = 160
    MAXLEGAL = 96

    # context-free action keys: the same key names the same choice in every determinization
    # (ids below KEY_RESERVE are their own key; card actions are keyed by the card, not the slot)
    KEY_RESERVE = 100   # + card id: reserve that face-up card
    KEY_BUY = 220       # + card id: buy that card (market or hand)
    NKEYS = 340

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
    uint64_t cards[2]       # mask of bought card ids

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

# card and noble tables (filled from splendor_ai/data at import); search kernels read them
# through get_tables() since C globals are not shared across modules
ctypedef struct Tables:
    int8_t level[NCARDS]        # 0-2
    int8_t bonus[NCARDS]        # colour 0-4
    int8_t points[NCARDS]
    int8_t cost[NCARDS][NCOL]
    int8_t deck[NCARDS]         # deck index 0-5
    int8_t noble_req[NNOBLES][NCOL]
    int8_t deck_first[NDECK]    # card ids of a deck are contiguous
    int8_t deck_size[NDECK]

cdef const Tables* get_tables() noexcept nogil
cdef uint64_t rng_next(Rng* r) noexcept nogil
cdef uint32_t rng_below(Rng* r, uint32_t n) noexcept nogil
cdef void rng_seed(Rng* r, uint64_t seed) noexcept nogil

cdef int legal_actions(const State* s, int* out) noexcept nogil
cdef void apply_action(State* s, int a) noexcept nogil
cdef bint can_afford(const Player* p, int card) noexcept nogil
cdef int total_tokens(const Player* p) noexcept nogil
cdef int action_key(const State* s, int a) noexcept nogil
cdef void hide_for(State* s, int seat) noexcept nogil
cdef int determinize(State* s, Rng* r) noexcept nogil
cdef int random_playout(State* s, Rng* r) noexcept nogil

cdef class Core:
    cdef State s
