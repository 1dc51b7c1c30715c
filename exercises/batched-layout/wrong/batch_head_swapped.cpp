// Wrong on purpose: folds the batch into the tokens to reuse a 2-D split,
// which gives (H, B*T, hd), then reads that as (B, H, T, hd). The slices come
// out head by head instead of sequence by sequence.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor batched_split_heads(const Tensor& x, int n_heads) {
    const int64_t B = x.shape(0), T = x.shape(1), D = x.shape(2);
    const int64_t hd = D / n_heads;
    Tensor rows = x.reshape({B * T, D});
    Tensor heads = rows.reshape({B * T, n_heads, hd}).transpose(1, 0, 2).contiguous();  // (H, B*T, hd)
    return heads.reshape({B, n_heads, T, hd});
}
