// Causal multi-head self-attention
//
// x: (T, D); w_q, w_k, w_v, w_o: (D, D); n_heads = H divides D; hd = D / H.
// Return out, shape (T, D):
//
//   Q, K, V = X W_Q, X W_K, X W_V                  (T, D)
//   split each into heads                          (H, T, hd), head h = columns h*hd .. (h+1)*hd - 1
//   scores  = Q_h K_h^T / sqrt(hd)                 (H, T, T)
//   masked  = scores, with -inf where key j > query i
//   weights = softmax over each row of masked      (H, T, T)
//   heads   = weights V_h                          (H, T, hd)
//   concat  = heads merged back side by side       (T, D)
//   out     = concat W_O                           (T, D)
//
// Do not modify the inputs. One case has scores in the thousands; your
// weights must stay finite there.
//
// The earlier exercises each wrote one of these steps: you may copy your own
// functions in as helpers (inside an unnamed namespace, under names that do
// not clash with those exercises' entry points).
//
// Debugging: probe("name", tensor) records a stage so attnlab can show it next
// to the reference's stage of the same name. The reference's stages are
// Q, K, V, scores, masked, weights, heads, concat, out; the first one that
// differs from yours is where to look.
#include <attnlab/tensor.hpp>

#include <cmath>  // std::exp, std::sqrt

using namespace attnlab;

// x: (T, D), w_q / w_k / w_v / w_o: (D, D)  ->  (T, D)
Tensor causal_mhsa(const Tensor& x, const Tensor& w_q, const Tensor& w_k,
                   const Tensor& w_v, const Tensor& w_o, int n_heads) {
    const int64_t T = x.shape(0);
    const int64_t D = x.shape(1);

    // TODO 1: Q, K, V, (T, D) each.                  probe("Q", q); ...
    // TODO 2: split them into heads, (H, T, hd).
    // TODO 3: scores, (H, T, T).                     probe("scores", scores);
    // TODO 4: the causal mask.                       probe("masked", masked);
    // TODO 5: the row softmax: weights, (H, T, T).   probe("weights", weights);
    // TODO 6: heads = weights V_h, (H, T, hd).       probe("heads", heads);
    // TODO 7: merge to (T, D) (probe "concat"), multiply by w_o,
    //         probe("out", out) and return it.

    (void)w_q;
    (void)w_k;
    (void)w_v;
    (void)w_o;
    (void)n_heads;
    return Tensor::zeros({T, D});  // TODO: replace with your result
}
