// Merge the heads and project with W_O
//
// heads has shape (H, T, hd): one (T, hd) output per head. w_o has shape
// (D, D) with D = H * hd. Put the heads side by side again, head 0's columns
// first, into one (T, D) matrix
//
//     concat(t, h*hd + c) = heads(h, t, c)
//
// and return concat * W_O, shape (T, D). Do not modify heads or w_o.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// heads: (H, T, hd), w_o: (D, D) with D = H * hd  ->  (T, D)
Tensor merge_project(const Tensor& heads, const Tensor& w_o) {
    const int64_t T = heads.shape(1);
    const int64_t D = w_o.shape(0);  // equals H * hd

    // TODO 1: build the merged (T, D) matrix defined above as concat.
    //         probe("concat", merged) shows it next to the reference's, so
    //         you can check this step on its own.

    // TODO 2: return concat * W_O.

    return Tensor::zeros({T, D});  // TODO: replace with your result
}
