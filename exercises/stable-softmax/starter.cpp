// A softmax that never overflows
//
// weight(h, i, j) = exp(x(h, i, j)) / sum over k of exp(x(h, i, k))
//
// Every row of every head becomes weights >= 0 that sum to 1. It must stay
// right and finite for logits of +-10000, for a row with one huge value, for
// a row of large negative values, and for T = 1. A -inf entry gets exactly 0.
#include <attnlab/tensor.hpp>

#include <cmath>  // std::exp

using namespace attnlab;

// x: (H, T, T) -> (H, T, T), softmax over the last axis; x itself unchanged
Tensor softmax_rows(const Tensor& x) {
    Tensor w = x.clone();  // a new tensor: a plain copy would share x's storage

    // TODO: for every head h and row i, replace the row by its softmax so
    //       that the result survives the cases above.

    return w;  // as it stands: the scores themselves, not weights
}
