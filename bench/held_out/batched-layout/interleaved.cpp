// expect: heads_interleaved
#include <attnlab/tensor.hpp>
using namespace attnlab;
Tensor batched_split_heads(const Tensor& x, int n_heads) {
    const int64_t B = x.shape(0), T = x.shape(1), D = x.shape(2);
    return x.reshape({B, T, D / n_heads, n_heads}).transpose(0, 3, 1, 2).contiguous();
}
