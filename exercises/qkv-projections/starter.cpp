// Q, K and V projections
//
// Every token (row of x) gets three roles, each from its own weight matrix:
//   Q = X · W_Q   (what the token looks for)
//   K = X · W_K   (what it offers)
//   V = X · W_V   (what it hands over)
// The weights are stored (input feature, output feature).
#include <attnlab/tensor.hpp>

using namespace attnlab;

// x: (T, D), w_q / w_k / w_v: (D, D)  ->  (3, T, D): index 0 is Q, 1 is K, 2 is V
Tensor qkv_projections(const Tensor& x, const Tensor& w_q, const Tensor& w_k, const Tensor& w_v) {
    const int64_t T = x.shape(0);
    const int64_t D = x.shape(1);

    // TODO: compute Q, K and V, each of shape (T, D).
    // TODO: return them as one (3, T, D) tensor, in the order Q, K, V.

    (void)w_q;
    (void)w_k;
    (void)w_v;
    return Tensor::zeros({3, T, D});  // TODO: replace with your result
}
