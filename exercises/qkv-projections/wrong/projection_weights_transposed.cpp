// Wrong on purpose: X · Wᵀ, the PyTorch nn.Linear habit (its weight is stored
// (output, input)); here the weights are stored (input, output).
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor qkv_projections(const Tensor& x, const Tensor& w_q, const Tensor& w_k, const Tensor& w_v) {
    Tensor q = matmul(x, w_q.transpose());
    Tensor k = matmul(x, w_k.transpose());
    Tensor v = matmul(x, w_v.transpose());
    return stack({q, k, v}, 0);
}
