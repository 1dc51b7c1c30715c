// Scaled scores per head
//
//   scores(h, i, j) = (query i · key j in head h) / sqrt(hd)
//
// q and k hold each head's queries and keys; hd is the width of one head.
#include <attnlab/tensor.hpp>

#include <cmath>  // std::sqrt

using namespace attnlab;

// q: (H, T, hd), k: (H, T, hd)  ->  (H, T, T): row = query token, column = key token
Tensor attention_scores(const Tensor& q, const Tensor& k) {
    const int64_t H = q.shape(0);
    const int64_t T = q.shape(1);

    // TODO: every head's (T, T) matrix of dot products between queries and keys.
    // TODO: scale them as the statement says, and return the (H, T, T) tensor.

    (void)k;
    return Tensor::zeros({H, T, T});  // TODO: replace with your result
}
