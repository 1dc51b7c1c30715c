// Wrong on purpose: reshapes straight to (B, H, T, hd). The shape is right but
// no number moves, so head h gets a run of the buffer instead of its columns.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor batched_split_heads(const Tensor& x, int n_heads) {
    const int64_t B = x.shape(0), T = x.shape(1), D = x.shape(2);
    return x.reshape({B, n_heads, T, D / n_heads}).contiguous();
}
