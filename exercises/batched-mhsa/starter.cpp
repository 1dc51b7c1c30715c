// Batched causal multi-head self-attention
//
//   x: (B, T, D), the four weights: (D, D), n_heads = H divides D, hd = D / H.
//   Returns (B, T, D): sequence b of the result is the causal multi-head
//   self-attention of sequence b alone (projections, H heads with scores
//   scaled by 1/sqrt(hd), causal mask, row softmax, weighted values, merge,
//   W_O). No token may attend to a token of another sequence.
//
// One case has scores in the thousands; the weights must stay finite there.
//
// Debugging: probe("name", tensor) records a stage so attnlab can show it next
// to the reference's stage of the same name: Q, K, V, scores, masked, weights,
// heads, concat, out (each with the leading B axis).
#include <attnlab/tensor.hpp>

#include <cmath>  // std::exp, std::sqrt

using namespace attnlab;

namespace {

// TODO: helpers, under names no other exercise uses for its entry point.

}  // namespace

// x: (B, T, D), w_q / w_k / w_v / w_o: (D, D)  ->  (B, T, D)
Tensor batched_causal_mhsa(const Tensor& x, const Tensor& w_q, const Tensor& w_k,
                           const Tensor& w_v, const Tensor& w_o, int n_heads) {
    const int64_t B = x.shape(0);
    const int64_t T = x.shape(1);
    const int64_t D = x.shape(2);

    // TODO: compute the layer for every sequence of the batch.

    (void)w_q; (void)w_k; (void)w_v; (void)w_o; (void)n_heads;  // TODO: remove once used
    return Tensor::zeros({B, T, D});  // TODO: replace with your result
}
