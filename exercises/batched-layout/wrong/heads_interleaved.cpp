// Wrong on purpose: cuts each row as (hd, H) instead of (H, hd), so head h
// takes columns h, h + H, h + 2H, ... instead of one block of hd columns.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor batched_split_heads(const Tensor& x, int n_heads) {
    const int64_t B = x.shape(0), T = x.shape(1), D = x.shape(2);
    const int64_t hd = D / n_heads;
    // (B, T, hd, H) -> (B, H, T, hd)
    return x.reshape({B, T, hd, n_heads}).permute({0, 3, 1, 2}).contiguous();
}
