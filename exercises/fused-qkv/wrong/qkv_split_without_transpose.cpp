// Wrong on purpose: the (T, 3D) buffer read straight as (3, T, D). Q gets the
// first T·D numbers, which are whole rows of the product.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor fused_qkv(const Tensor& x, const Tensor& w_qkv) {
    const int64_t T = x.shape(0);
    const int64_t D = x.shape(1);
    Tensor qkv = matmul(x, w_qkv);
    return qkv.reshape({3, T, D}).contiguous();
}
