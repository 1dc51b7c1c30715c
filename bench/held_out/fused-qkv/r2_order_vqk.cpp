// expect: qkv_blocks_out_of_order
#include <attnlab/tensor.hpp>
using namespace attnlab;
// round 2: the blocks rotated: Q from K's third, K from V's, V from Q's
Tensor fused_qkv(const Tensor& x, const Tensor& w_qkv) {
    const int64_t D = x.shape(1);
    Tensor p = matmul(x, w_qkv);
    return stack({p.slice(1, D, 2 * D), p.slice(1, 2 * D, 3 * D), p.slice(1, 0, D)}, 0);
}
