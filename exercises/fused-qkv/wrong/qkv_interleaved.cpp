// Wrong on purpose: the product viewed as (T, D, 3), as if Q, K and V were
// interleaved feature by feature: Q gets columns 0, 3, 6, ...
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor fused_qkv(const Tensor& x, const Tensor& w_qkv) {
    const int64_t T = x.shape(0);
    const int64_t D = x.shape(1);
    Tensor qkv = matmul(x, w_qkv);
    return qkv.reshape({T, D, 3}).transpose(2, 0, 1).contiguous();
}
