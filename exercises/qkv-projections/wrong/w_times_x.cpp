// Wrong on purpose: W · X multiplies the wrong way round; (D, D) · (T, D) does
// not fit when T != D, so matmul throws with the two shapes.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor qkv_projections(const Tensor& x, const Tensor& w_q, const Tensor& w_k, const Tensor& w_v) {
    Tensor q = matmul(w_q, x);
    Tensor k = matmul(w_k, x);
    Tensor v = matmul(w_v, x);
    return stack({q, k, v}, 0);
}
