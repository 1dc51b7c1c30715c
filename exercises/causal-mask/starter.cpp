// Causal mask
//
// scores(h, i, j) is how much query token i (row) wants to look at key token j
// (column), in head h. A token may only look at itself and at earlier tokens,
// so every entry with j > i must become -infinity (kNegInf). After softmax,
// exp(-inf) = 0 gives those future tokens a weight of exactly 0.
// Return a new tensor; scores itself must stay as it was.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// scores: (H, T, T) -> (H, T, T), future entries set to -inf
Tensor causal_mask(const Tensor& scores) {
    const int64_t H = scores.shape(0);
    const int64_t T = scores.shape(1);

    // TODO: the masked scores: every entry of scores, except kNegInf wherever
    //       the key column j is after the query row i. Keep the diagonal
    //       (j == i): a token may always look at itself.

    return Tensor::zeros({H, T, T});  // TODO: replace with your result
}
