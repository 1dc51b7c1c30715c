// Causal mask
//
// scores(h, i, j) is how much query token i (row) wants to look at key token j
// (column), in head h. A token may only look at itself and at earlier tokens,
// so every entry with j > i must become -infinity (kNegInf). After softmax,
// exp(-inf) = 0 gives those future tokens a weight of exactly 0.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// scores: (H, T, T) -> (H, T, T), future entries set to -inf
Tensor causal_mask(const Tensor& scores) {
    // Work on an independent copy: `Tensor out = scores;` would share storage,
    // and writing into it would change the caller's scores too.
    Tensor out = scores.clone();

    // TODO: read H and T from out.shape(...).
    // TODO: for every head h and query row i, set out(h, i, j) = kNegInf for
    //       every key column j > i. Keep the diagonal (j == i): a token may
    //       always look at itself.

    return out;  // as it stands: a plain copy, nothing is masked yet
}
