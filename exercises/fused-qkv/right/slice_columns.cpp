// Correct alternative: one matmul, then the three column ranges stacked.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor fused_qkv(const Tensor& x, const Tensor& w_qkv) {
    const int64_t D = x.shape(1);
    Tensor qkv = matmul(x, w_qkv);  // (T, 3D)
    return stack({qkv.slice(1, 0, D), qkv.slice(1, D, 2 * D), qkv.slice(1, 2 * D, 3 * D)}, 0);
}
