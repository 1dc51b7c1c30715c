// A correct alternative: PyTorch-style transpose(1, 2), which swaps two axes
// of a 4-D tensor, is the same permutation as (0, 2, 1, 3).
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor batched_split_heads(const Tensor& x, int n_heads) {
    const int64_t B = x.shape(0), T = x.shape(1), D = x.shape(2);
    return x.reshape({B, T, n_heads, D / n_heads}).transpose(1, 2).contiguous();
}
