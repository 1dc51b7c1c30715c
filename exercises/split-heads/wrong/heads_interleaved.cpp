// Fixture for split-heads (wrong/heads_interleaved).
// Mistake: viewed as (T, hd, H) instead of (T, H, hd), so head h takes the
// columns h, h + H, h + 2H, ... instead of one block.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor split_heads(const Tensor& x, int n_heads) {
    const int64_t T = x.shape(0), hd = x.shape(1) / n_heads;
    return x.reshape({T, hd, n_heads}).transpose(2, 0, 1).contiguous();
}
