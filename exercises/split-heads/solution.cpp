// Split into heads: (T, D) -> (H, T, hd) using views, then one copy.
#include <attnlab/tensor.hpp>

#include <stdexcept>

using namespace attnlab;

// x: (T, D) -> (H, T, hd)
Tensor split_heads(const Tensor& x, int n_heads) {
    const int64_t T = x.shape(0);
    const int64_t D = x.shape(1);
    if (n_heads <= 0 || D % n_heads != 0) {
        throw std::invalid_argument("split_heads: n_heads must divide D");
    }
    const int64_t hd = D / n_heads;

    // (T, D) -> (T, H, hd). x is row-major, so this is a free view:
    // strides (D, hd, 1), element (t, h, c) is x(t, h*hd + c).
    Tensor chunks = x.reshape({T, n_heads, hd});

    // (T, H, hd) -> (H, T, hd). Another view: strides become (hd, D, 1), so a
    // head's rows are D apart with the other heads' numbers in between.
    Tensor heads = chunks.transpose(1, 0, 2);

    // One copy now gives strides (T*hd, hd, 1): every head is a tight
    // (T, hd) block, which is what the per-head matmuls Q_h * K_h^T want.
    return heads.contiguous();
}
