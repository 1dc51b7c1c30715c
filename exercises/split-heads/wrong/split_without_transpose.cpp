// Fixture for split-heads (wrong/split_without_transpose).
// Mistake: the (T, D) buffer is reshaped straight to (H, T, hd), so head 0
// gets whole rows of x instead of its block of columns.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor split_heads(const Tensor& x, int n_heads) {
    const int64_t T = x.shape(0), hd = x.shape(1) / n_heads;
    return x.reshape({n_heads, T, hd}).contiguous();
}
