// Merge the heads and project with W_O: the split, reversed, then one matmul.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// heads: (H, T, hd), w_o: (D, D) with D = H * hd  ->  (T, D)
Tensor merge_project(const Tensor& heads, const Tensor& w_o) {
    const int64_t H = heads.shape(0);
    const int64_t T = heads.shape(1);
    const int64_t hd = heads.shape(2);
    const int64_t D = H * hd;

    // (H, T, hd) -> (T, H, hd): a view, token t's chunks still scattered.
    // contiguous() copies them into head order, so the reshape to (T, D) is a
    // plain reinterpretation: merged(t, h*hd + c) = heads(h, t, c).
    Tensor merged = heads.transpose(1, 0, 2).contiguous().reshape({T, D});

    // Up to here each column block belongs to exactly one head. W_O gives
    // every head an (hd, D) strip of rows and sums the results, so each
    // output column mixes all heads.
    return matmul(merged, w_o);
}
