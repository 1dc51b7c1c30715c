// Merge the heads and project with W_O
//
// Every head produced a (T, hd) output. Put them side by side again, head 0's
// columns first, into one (T, D) matrix:
//
//     concat(t, h*hd + c) = heads(h, t, c)
//
// then multiply by the output projection: out = concat * W_O.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// heads: (H, T, hd), w_o: (D, D) with D = H * hd  ->  (T, D)
Tensor merge_project(const Tensor& heads, const Tensor& w_o) {
    const int64_t T = heads.shape(1);
    const int64_t D = w_o.shape(0);  // equals H * hd
    // You may also want H = heads.shape(0) and hd = heads.shape(2).

    // TODO 1: undo the split. transpose(1, 0, 2) takes (H, T, hd) back to
    //         (T, H, hd); contiguous() lays each token's H*hd numbers next to
    //         each other; reshape({T, D}) then reads them as one row per token.
    //         (Or: concat the heads' select(0, h) blocks along axis 1.)
    //         Tip: probe("concat", merged) lets you check this step on its own.

    // TODO 2: mix the heads: matmul(merged, w_o) -> (T, D).

    return Tensor::zeros({T, D});  // TODO: replace with your result
}
