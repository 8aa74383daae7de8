# cython: language_level=3
"""The forward pass of the value and policy network, in C, for the search kernels.

A position is encoded for the seat to move (splendor_ai._features: what that seat may know; in a
search, the sampled world), then two ReLU layers: the first sums the rows of the active features
(the input is sparse: a few hundred of 2,330 entries are nonzero), the second is dense. The value
head gives a win probability per seat (a softmax over the seats in the game, summing to 1); the
policy head gives a logit per context-free action key, computed only for the keys asked for (the
legal ones). The kernels are compiled twice, for x86-64-v3 (AVX2 + FMA) and the baseline, and the
loader picks one at run time, so one build runs everywhere at the speed of the machine.
splendor_ai/players/network.py loads shipped weights; splendor_ai/train/reference.py is the numpy
forward that tests compare this one with.
"""
from libc.string cimport memcpy

from splendor_ai._engine cimport MAXP, NKEYS, Core, State
from splendor_ai._features cimport MAXACTIVE, NFEAT, NFEAT_TERMS, encode, encode_terms

cdef extern from *:
    """
    #include <string.h>
    #if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    #define SP_CLONES __attribute__((target_clones("arch=x86-64-v3", "default")))
    #else
    #define SP_CLONES
    #endif
    /* eight floats as one value: one AVX register where the clone targets AVX2, two SSE ones in
       the baseline clone; SP_LD reads eight floats at any float's alignment, SP_RELU_ST writes
       them through a ReLU (macros, so no vector crosses a function call) */
    typedef float sp_v8 __attribute__((vector_size(32)));
    typedef float sp_v8u __attribute__((vector_size(32), aligned(4), may_alias));
    typedef int sp_v8i __attribute__((vector_size(32)));
    #define SP_LD(p) (*(const sp_v8u*)(p))
    #define SP_RELU_ST(p, x) do { sp_v8 x_ = (x); sp_v8i pos_ = x_ > (sp_v8){0}; \
                                  *(sp_v8u*)(p) = (sp_v8)((sp_v8i)x_ & pos_); } while (0)
    /* h = relu(b + sum_i val[i] * W[idx[i]]), W rows of H floats (H a multiple of 8). The columns
       go in blocks of 64 whose sums stay in eight registers while the n rows stream past (a load
       and a store of h per row and column cost more than the multiply-adds); the columns left
       over, eight at a time. Each sum adds its rows in order, as the numpy reference does. */
    SP_CLONES static void sp_sparse_relu(float* h, const float* b, const float* W, const int* idx,
                                         const float* val, int n, int H) {
        int i, c = 0;
        for (; c + 64 <= H; c += 64) {
            sp_v8 a0 = SP_LD(b + c), a1 = SP_LD(b + c + 8), a2 = SP_LD(b + c + 16),
                  a3 = SP_LD(b + c + 24), a4 = SP_LD(b + c + 32), a5 = SP_LD(b + c + 40),
                  a6 = SP_LD(b + c + 48), a7 = SP_LD(b + c + 56);
            for (i = 0; i < n; i++) {
                const float* w = W + (size_t)idx[i] * H + c;
                const float v = val[i];
                a0 += v * SP_LD(w); a1 += v * SP_LD(w + 8);
                a2 += v * SP_LD(w + 16); a3 += v * SP_LD(w + 24);
                a4 += v * SP_LD(w + 32); a5 += v * SP_LD(w + 40);
                a6 += v * SP_LD(w + 48); a7 += v * SP_LD(w + 56);
            }
            SP_RELU_ST(h + c, a0); SP_RELU_ST(h + c + 8, a1);
            SP_RELU_ST(h + c + 16, a2); SP_RELU_ST(h + c + 24, a3);
            SP_RELU_ST(h + c + 32, a4); SP_RELU_ST(h + c + 40, a5);
            SP_RELU_ST(h + c + 48, a6); SP_RELU_ST(h + c + 56, a7);
        }
        for (; c < H; c += 8) {
            sp_v8 a = SP_LD(b + c);
            for (i = 0; i < n; i++)
                a += val[i] * SP_LD(W + (size_t)idx[i] * H + c);
            SP_RELU_ST(h + c, a);
        }
    }
    /* out = relu(b + x @ W), W: [nin][nout] (nin at most NET_MAXH): the sparse kernel over the
       nonzero entries of x (a ReLU output: about half of them are zero) */
    SP_CLONES static void sp_dense_relu(float* out, const float* b, const float* W, const float* x,
                                        int nin, int nout) {
        int idx[1024];
        float val[1024];
        int i, n = 0;
        for (i = 0; i < nin; i++)
            if (x[i] != 0.0f) {
                idx[n] = i;
                val[n++] = x[i];
            }
        sp_sparse_relu(out, b, W, idx, val, n, nout);
    }
    /* out[k] = bias[rows[k]] + W[rows[k]] . x, W rows of H floats (H a multiple of 8): eight
       partial sums, so the loop vectorises without reassociating a single sum */
    SP_CLONES static void sp_row_dots(float* out, const float* bias, const float* W, const int* rows,
                                      int nrows, const float* x, int H) {
        int k, j, t;
        for (k = 0; k < nrows; k++) {
            const float* w = W + (size_t)rows[k] * H;
            float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            for (j = 0; j < H; j += 8)
                for (t = 0; t < 8; t++)
                    acc[t] += w[j + t] * x[j + t];
            out[k] = bias[rows[k]] + (((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])));
        }
    }
    """
    void sp_sparse_relu(float* h, const float* b, const float* W, const int* idx, const float* val, int n,
                        int H) nogil
    void sp_dense_relu(float* out, const float* b, const float* W, const float* x, int nin, int nout) nogil
    void sp_row_dots(float* out, const float* bias, const float* W, const int* rows, int nrows, const float* x,
                     int H) nogil


cdef void net_eval(const Net* net, const State* s, const int* keys, int nkeys, float* logits,
                   float* values) noexcept nogil:
    """Evaluate `s` for its seat to move: `values[seat]` the win probability of every seat (absolute
    seat numbers), `logits[i]` the policy logit of action key keys[i] (nkeys of them; 0 for none)."""
    cdef int idx[MAXACTIVE]
    cdef float val[MAXACTIVE]
    cdef float h1[NET_MAXH]
    cdef float h2[NET_MAXH]
    cdef float v[MAXP]
    cdef int rows[MAXP]
    cdef int n, r, np = s.nplayers, mover = s.to_move
    n = encode(s, mover, idx, val)
    if net.nfeat == NFEAT_TERMS:
        n += encode_terms(s, mover, idx + n, val + n)
    sp_sparse_relu(h1, net.b1, net.w1, idx, val, n, net.h1)
    sp_dense_relu(h2, net.b2, net.w2, h1, net.h1, net.h2)
    for r in range(MAXP):
        rows[r] = r
    sp_row_dots(v, net.bv, net.wv, rows, np, h2, net.h2)
    softmax(v, np, 1.0)
    for r in range(np):
        values[(mover + r) % np] = v[r]
    if nkeys > 0:
        sp_row_dots(logits, net.bp, net.wp, keys, nkeys, h2, net.h2)


SHAPES = ("w1", "b1", "w2", "b2", "wv", "bv", "wp", "bp")


cdef class Network:
    """Network weights in the layout the kernels read (see _net.pxd). `arrays` maps each name of
    SHAPES to a C-contiguous float32 array (numpy or any buffer): w1 [NFEAT, h1] (or [NFEAT_TERMS, h1]:
    a network that also reads the classic evaluation's terms, _features.encode_terms), b1 [h1],
    w2 [h1, h2], b2 [h2], wv [4, h2], bv [4], wp [NKEYS, h2], bp [NKEYS]; h1 and h2 multiples of 8,
    at most NET_MAXH. splendor_ai.players.network builds it from a shipped .npz file."""

    def __init__(self, arrays):
        cdef const float[:, ::1] m
        cdef const float[::1] b
        missing = [k for k in SHAPES if k not in arrays]
        if missing:
            raise ValueError(f"network weights lack {', '.join(missing)}")
        w1, w2 = arrays["w1"], arrays["w2"]
        h1, h2 = w1.shape[1], w2.shape[1]
        nfeat = NFEAT_TERMS if w1.shape[0] == NFEAT_TERMS else NFEAT
        want = {"w1": (nfeat, h1), "b1": (h1,), "w2": (h1, h2), "b2": (h2,), "wv": (MAXP, h2), "bv": (MAXP,),
                "wp": (NKEYS, h2), "bp": (NKEYS,)}
        for k, shape in want.items():
            if tuple(arrays[k].shape) != shape:
                raise ValueError(f"network weights: {k} has shape {tuple(arrays[k].shape)}, expected {shape}")
        if h1 % 8 or h2 % 8 or not 8 <= h1 <= NET_MAXH or not 8 <= h2 <= NET_MAXH:
            raise ValueError(f"hidden layers must be multiples of 8 in 8-{NET_MAXH}, got {h1} and {h2}")
        self.arrays = {k: arrays[k] for k in SHAPES}
        self.net.nfeat, self.net.h1, self.net.h2 = nfeat, h1, h2
        m = self.arrays["w1"]; self.net.w1 = &m[0, 0]
        m = self.arrays["w2"]; self.net.w2 = &m[0, 0]
        m = self.arrays["wv"]; self.net.wv = &m[0, 0]
        m = self.arrays["wp"]; self.net.wp = &m[0, 0]
        b = self.arrays["b1"]; self.net.b1 = &b[0]
        b = self.arrays["b2"]; self.net.b2 = &b[0]
        b = self.arrays["bv"]; self.net.bv = &b[0]
        b = self.arrays["bp"]; self.net.bp = &b[0]

    @property
    def hidden(self):
        return (self.net.h1, self.net.h2)

    def evaluate(self, Core core, keys=None):
        """(win probability per seat, policy logits of `keys` (default: the legal actions' keys))
        for the seat to move of `core`."""
        cdef int k[96]
        cdef float lg[96]
        cdef float vals[MAXP]
        cdef int n
        if keys is None:
            keys = sorted({core.action_key(a) for a in core.legal_actions()})
        if len(keys) > 96:
            raise ValueError("at most 96 keys at a time")
        for i, key in enumerate(keys):
            if not 0 <= key < NKEYS:
                raise ValueError(f"action key {key} out of range 0-{NKEYS - 1}")
            k[i] = key
        n = len(keys)
        with nogil:
            net_eval(&self.net, &core.s, k, n, lg, vals)
        return [vals[i] for i in range(core.s.nplayers)], [lg[i] for i in range(n)]

    def bench(self, Core core, int reps):
        """Evaluate `core` `reps` times (value and the legal keys' logits); for benchmarks."""
        cdef int k[96]
        cdef float lg[96]
        cdef float vals[MAXP]
        cdef int n, i2
        keys = sorted({core.action_key(a) for a in core.legal_actions()})
        for i, key in enumerate(keys):
            k[i] = key
        n = len(keys)
        with nogil:
            for i2 in range(reps):
                net_eval(&self.net, &core.s, k, n, lg, vals)
        return n
