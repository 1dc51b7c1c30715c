// Fixture for fused-qkv (wrong/projection_weights_transposed).
// Mistake: each (D, D) block of W_QKV is used transposed, X · W_Qᵀ and so on:
// PyTorch's nn.Linear stores its weight (out, in) and computes X · Wᵀ, but
// here the weights are stored (in, out).
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor fused_qkv(const Tensor& x, const Tensor& w_qkv) {
    const int64_t D = x.shape(1);
    Tensor q = matmul(x, w_qkv.slice(1, 0, D).transpose());
    Tensor k = matmul(x, w_qkv.slice(1, D, 2 * D).transpose());
    Tensor v = matmul(x, w_qkv.slice(1, 2 * D, 3 * D).transpose());
    return stack({q, k, v}, 0);
}
