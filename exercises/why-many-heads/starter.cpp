// One wide head or several narrow ones?
//
//   x: (T, D), w_q / w_k: (D, D), n_heads = H divides D, hd = D / H.
//   Q = x w_q and K = x w_k serve both designs.
//   Return (1 + H, T, T):
//     slice 0       the causal attention weights of ONE head of width D
//                   (scores over all D columns, scaled by 1/sqrt(D))
//     slices 1..H   the causal attention weights of H heads of width hd
//                   (head h: columns h*hd .. (h+1)*hd - 1, scaled by 1/sqrt(hd))
//   Every row of every slice is a softmax over keys 0..i (future keys get 0).
//   One case has scores in the thousands; the weights must stay finite there.
//
// probe("weights", t) shows your (1 + H, T, T) tensor beside the reference's;
// probe("scores", ...) and probe("masked", ...) work the same way.
#include <attnlab/tensor.hpp>

#include <cmath>  // std::exp, std::sqrt

using namespace attnlab;

namespace {

// TODO: helpers, under names no other exercise uses for its entry point.

}  // namespace

// x: (T, D), w_q / w_k: (D, D)  ->  (1 + H, T, T)
Tensor one_vs_many_heads(const Tensor& x, const Tensor& w_q, const Tensor& w_k, int n_heads) {
    const int64_t T = x.shape(0);

    // TODO: the weights of the wide head, then those of the H narrow heads.

    (void)w_q; (void)w_k;  // TODO: remove once used
    return Tensor::zeros({1 + n_heads, T, T});  // TODO: replace with your result
}
