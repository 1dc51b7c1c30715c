// Fixture for concat-project (wrong/w_o_transposed).
// Mistake: the merged heads are multiplied by W_O transposed.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor merge_project(const Tensor& heads, const Tensor& w_o) {
    const int64_t H = heads.shape(0), T = heads.shape(1), hd = heads.shape(2);
    return matmul(heads.transpose(1, 0, 2).contiguous().reshape({T, H * hd}), w_o.transpose());
}
