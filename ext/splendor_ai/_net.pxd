# The value and policy network, evaluated in C by the search kernels (no Python, no GIL).
from libc.math cimport exp

from splendor_ai._engine cimport MAXP, State

cdef enum:
    NET_MAXH = 1024    # widest hidden layer the kernels take (stack buffers)

# Weights, row-major float32, owned by a Network object (which keeps its arrays alive):
#   h1 = relu(b1 + sum_i val_i * w1[idx_i])            w1: [nfeat][h1]
#   h2 = relu(b2 + h1 @ w2)                             w2: [h1][h2]
#   value logits per seat counted from the mover: wv @ h2 + bv    wv: [MAXP][h2]
#   policy logit of action key k: wp[k] . h2 + bp[k]   wp: [NKEYS][h2]
ctypedef struct Net:
    int nfeat, h1, h2
    const float* w1
    const float* b1
    const float* w2
    const float* b2
    const float* wv
    const float* bv
    const float* wp
    const float* bp

cdef inline void softmax(float* x, int n, float temp) noexcept nogil:
    """x[i] <- exp((x[i] - max x) / temp) / the sum of those (n >= 1): the network's value head
    (temp 1), its policy priors and the search's heuristic priors."""
    cdef int i
    cdef float mx = x[0], tot = 0
    for i in range(1, n):
        if x[i] > mx:
            mx = x[i]
    for i in range(n):
        x[i] = exp((x[i] - mx) / temp)
        tot += x[i]
    for i in range(n):
        x[i] /= tot

cdef void net_eval(const Net* net, const State* s, const int* keys, int nkeys, float* logits,
                   float* values) noexcept nogil

cdef class Network:
    cdef Net net
    cdef object arrays
