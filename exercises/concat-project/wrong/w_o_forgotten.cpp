// Fixture for concat-project (wrong/w_o_forgotten).
// Mistake: the merged heads are returned without the W_O projection.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor merge_project(const Tensor& heads, const Tensor& w_o) {
    const int64_t H = heads.shape(0), T = heads.shape(1), hd = heads.shape(2);
    (void)w_o;
    return heads.transpose(1, 0, 2).contiguous().reshape({T, H * hd});
}
