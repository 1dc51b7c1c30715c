// Fixture for fused-qkv (wrong/qkv_blocks_out_of_order).
// Mistake: the first two thirds of X · W_QKV are taken the wrong way round:
// K from columns 0..D-1 and Q from D..2D-1.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor fused_qkv(const Tensor& x, const Tensor& w_qkv) {
    const int64_t D = x.shape(1);
    Tensor qkv = matmul(x, w_qkv);  // (T, 3D)
    Tensor k = qkv.slice(1, 0, D);
    Tensor q = qkv.slice(1, D, 2 * D);
    Tensor v = qkv.slice(1, 2 * D, 3 * D);
    return stack({q, k, v}, 0);
}
