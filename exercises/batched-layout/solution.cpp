// Batched layout: (B, T, D) -> (B, H, T, hd) with two views and one copy.
#include <attnlab/tensor.hpp>

#include <stdexcept>

using namespace attnlab;

// x: (B, T, D) -> (B, H, T, hd)
Tensor batched_split_heads(const Tensor& x, int n_heads) {
    const int64_t B = x.shape(0);
    const int64_t T = x.shape(1);
    const int64_t D = x.shape(2);
    if (n_heads <= 0 || D % n_heads != 0) {
        throw std::invalid_argument("batched_split_heads: n_heads must divide D");
    }
    const int64_t hd = D / n_heads;

    // (B, T, D) -> (B, T, H, hd): a free view, strides (T*D, D, hd, 1).
    Tensor chunks = x.reshape({B, T, n_heads, hd});

    // Swap the token and head axes; the batch axis stays first. Still a view:
    // strides (T*D, hd, D, 1), so one head's rows are D numbers apart.
    Tensor heads = chunks.transpose(0, 2, 1, 3);

    // One copy: strides (H*T*hd, T*hd, hd, 1). Pair (b, h) now occupies the
    // T*hd numbers starting at (b*H + h)*T*hd, the block a kernel with one
    // thread block per (sequence, head) reads in a single sweep.
    return heads.contiguous();
}
