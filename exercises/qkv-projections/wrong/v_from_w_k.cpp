// Wrong on purpose: a copy-paste slip, V projected with W_K.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor qkv_projections(const Tensor& x, const Tensor& w_q, const Tensor& w_k, const Tensor& w_v) {
    (void)w_v;
    Tensor q = matmul(x, w_q);
    Tensor k = matmul(x, w_k);
    Tensor v = matmul(x, w_k);
    return stack({q, k, v}, 0);
}
