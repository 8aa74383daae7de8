# Knowledge shared by every search player: the static evaluation (MCTS cut-offs, expectimax
# leaves, the greedy player) and the fast action scores (playout policy, search priors).
from splendor_ai._engine cimport State, Rng, MAXP, NCOL

cdef enum:
    NWEIGHTS = 16     # base terms; a weights tuple may be shorter (the rest are 0)
    NRICH = 9         # terms from this index on are computed only when weighted (Weights.rich)
    NMWEIGHTS = 12    # Cities of Splendor module terms (evaluation.py MODULE_NAMES)

# evaluation weights, in this order (see splendor_ai/players/evaluation.py for their meaning)
ctypedef struct Weights:
    float w[NWEIGHTS]
    float ph[NWEIGHTS]   # slope of each base weight with the game's phase (0 at the start, 1 at 15 points)
    int phased           # any ph nonzero
    int rich             # any w or ph from NRICH on nonzero
    float m[NMWEIGHTS]   # module terms; read only when State.modules is set

cdef int fill_weights(Weights* wt, object weights, object module_weights, object phase_weights=*) except -1
cdef void seat_terms(const State* s, int i, int hide_blind, int rich, float* t) noexcept nogil
cdef void eval_state(const State* s, const Weights* wt, float* out) noexcept nogil
cdef void win_probs(const State* s, const Weights* wt, float scale, float* out) noexcept nogil
cdef void terminal_values(const State* s, float* out) noexcept nogil
cdef int score_actions(const State* s, const int* acts, int n, float* scores) noexcept nogil
cdef int policy_pick(const State* s, const int* acts, int n, float eps, Rng* r) noexcept nogil
cdef int policy_playout(State* s, Rng* r, float eps, int max_turns) noexcept nogil
