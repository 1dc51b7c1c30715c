// Q, K and V projections: three matmuls of the same X.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// x: (T, D), w_q / w_k / w_v: (D, D)  ->  (3, T, D): index 0 is Q, 1 is K, 2 is V
Tensor qkv_projections(const Tensor& x, const Tensor& w_q, const Tensor& w_k, const Tensor& w_v) {
    // One matmul per role covers every token: row t of the product depends on
    // row t of x only. The weights are stored (input, output), so X · W, not
    // X · Wᵀ as with PyTorch's nn.Linear.
    Tensor q = matmul(x, w_q);  // (T, D)
    Tensor k = matmul(x, w_k);  // (T, D)
    Tensor v = matmul(x, w_v);  // (T, D)
    probe("Q", q);
    probe("K", k);
    probe("V", v);
    return stack({q, k, v}, 0);  // (3, T, D)
}
