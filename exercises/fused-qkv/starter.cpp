// One matmul for Q, K and V
//
// w_qkv is [W_Q | W_K | W_V] side by side: columns 0..D-1 are W_Q,
// D..2D-1 are W_K, 2D..3D-1 are W_V. Compute X · W_QKV with one matmul,
// then split its (T, 3D) result into Q, K and V.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// x: (T, D), w_qkv: (D, 3D)  ->  (3, T, D): index 0 is Q, 1 is K, 2 is V
Tensor fused_qkv(const Tensor& x, const Tensor& w_qkv) {
    const int64_t T = x.shape(0);
    const int64_t D = x.shape(1);

    // TODO: the one matmul, (T, 3D).
    // TODO: split it into Q, K, V and return them as one (3, T, D) tensor.

    (void)w_qkv;
    return Tensor::zeros({3, T, D});  // TODO: replace with your result
}
