# The network's input: a position as one seat may know it, as a sparse vector of (index, value)
# pairs. Layout in docs/TRAINING.md, "Features"; FEATURES_VERSION changes whenever it does.
from splendor_ai._engine cimport State

cdef enum:
    FEATURES_VERSION = 1
    # globals
    F_NPLAYERS = 0    # 3: one-hot 2, 3, 4 players
    F_MODULE = 3      # 5: one-hot base, cities, orient, posts, strongholds
    F_PHASE = 8       # 12: one-hot PH_MAIN .. PH_CITY
    F_FINAL = 20      # the last round is under way
    F_ROUND = 21      # rounds played / 30
    F_PASSES = 22     # consecutive passes / players
    F_BANK = 23       # 6: tokens in the bank / 7 (gold / 5)
    F_DECKS = 29      # 6: cards left per deck / 40
    F_NOBLES = 35     # 10: face-up noble ids
    F_CITIES = 45     # 14: face-up city ids
    F_TODO = 59       # 6: one-hot of the pending decision's argument + 1 (a level, a colour; 0 = none)
    F_OVER = 65       # tokens the mover holds above the limit / 3
    # one block per seat, counted from the seat the features are for (0 = that seat, 1 = the next...)
    F_SEATS = 66
    SEAT_W = 56
    S_PRESENT = 0
    S_TOKENS = 1      # 6: / 4 (gold / 5)
    S_TOTAL = 7       # all tokens / 10
    S_BONUS = 8       # 5: bonuses / 5
    S_POINTS = 13     # / 15
    S_NCARDS = 14     # / 20
    S_NNOBLES = 15    # nobles received / 3
    S_NRES = 16       # reserved cards / 3
    S_BLIND = 17      # 3: blind reserves per level (their level is public), a count
    S_NOBLE_NEED = 20 # 10: per face-up (or, Orient, held) noble id: bonuses still missing / 10
    S_POWER = 30      # 5: tokens + bonuses per colour / 10
    S_GOLD = 35       # gold to pay with (tokens, 2 per Orient gold card) / 5
    S_CITY_NEED = 36  # 6: per face-up city slot: prestige missing / 15, bonuses missing / 10
    S_NCITIES = 42    # cities claimed
    S_POSTS = 43      # 5: trading-post powers held
    S_JOKERS = 48     # joker cards held / 3
    S_HELD = 49       # nobles held (Orient) / 3
    S_SH_HAND = 50    # strongholds in hand / 3
    S_GOLDCARDS = 51  # Orient gold cards / 3
    S_LEVEL3 = 52     # level-3 cards bought / 5
    # card zones: 120 card ids each; the seat-indexed ones per seat counted as above
    F_MARKET = 290    # face up in the market
    F_RES = 410       # 4 x 120: reserved by that seat (blind reserves only for the seat itself)
    F_NEED = 890      # 4 x 120: 1 / (1 + gems that seat still lacks after tokens and gold)
    F_COST = 1370     # 4 x 120: that seat's price after bonuses, in gems / 10
    F_SH = 1850       # 4 x 120: that seat's strongholds on the card / 3
    NFEAT = 2330
    # optional inputs, read only by networks with these rows (encode_terms): the classic
    # evaluation's 16 terms of each seat, counted as above, each scaled by TERM_SCALE
    F_TERMS = 2330    # 4 x 16
    NTERMS = 16
    NFEAT_TERMS = 2394
    MAXACTIVE = 640   # bound on the nonzero entries of one position, the terms' included

cdef int encode(const State* s, int seat, int* idx, float* val) noexcept nogil
cdef int encode_terms(const State* s, int seat, int* idx, float* val) noexcept nogil
