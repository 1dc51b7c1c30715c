// Correct but not fused: three matmuls with the column blocks of w_qkv. Same
// values; the fused version does the same arithmetic in one call.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor fused_qkv(const Tensor& x, const Tensor& w_qkv) {
    const int64_t D = x.shape(1);
    Tensor q = matmul(x, w_qkv.slice(1, 0, D));
    Tensor k = matmul(x, w_qkv.slice(1, D, 2 * D));
    Tensor v = matmul(x, w_qkv.slice(1, 2 * D, 3 * D));
    return stack({q, k, v}, 0);
}
