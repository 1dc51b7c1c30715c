// expect: batch_head_swapped
#include <attnlab/tensor.hpp>
using namespace attnlab;
// (B, T, D) -> "(B, H, T, hd)": the head axis put first by mistake
Tensor batched_split_heads(const Tensor& x, int n_heads) {
    const int64_t B = x.shape(0), T = x.shape(1), D = x.shape(2);
    return x.reshape({B, T, n_heads, D / n_heads}).transpose(2, 0, 1, 3).contiguous();
}
