// Fixture for concat-project (wrong/heads_interleaved).
// Mistake: column c of head h lands in column c*H + h ((T, hd, H) instead of (T, H, hd)).
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor merge_project(const Tensor& heads, const Tensor& w_o) {
    const int64_t H = heads.shape(0), T = heads.shape(1), hd = heads.shape(2);
    return matmul(heads.transpose(1, 2, 0).contiguous().reshape({T, H * hd}), w_o);
}
