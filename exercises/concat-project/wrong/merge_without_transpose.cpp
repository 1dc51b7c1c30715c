// Fixture for concat-project (wrong/merge_without_transpose).
// Mistake: the (H, T, hd) buffer is reshaped straight to (T, D), without the transpose.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor merge_project(const Tensor& heads, const Tensor& w_o) {
    const int64_t H = heads.shape(0), T = heads.shape(1), hd = heads.shape(2);
    return matmul(heads.contiguous().reshape({T, H * hd}), w_o);
}
