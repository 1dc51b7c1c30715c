// Wrong on purpose: the softmax does not subtract the row max, so exp()
// overflows to inf on scores in the thousands and inf / inf gives NaN.

#include <attnlab/tensor.hpp>

#include <cmath>
#include <stdexcept>

using namespace attnlab;

namespace {

// (T, D) -> (H, T, hd): head h is columns h*hd .. (h+1)*hd - 1.
Tensor to_heads(const Tensor& m, int n_heads) {
    const int64_t T = m.shape(0), hd = m.shape(1) / n_heads;
    return m.reshape({T, n_heads, hd}).transpose(1, 0, 2).contiguous();
}

// Causal attention weights of every head: q, k (H, T, hd) -> (H, T, T).
Tensor causal_weights(const Tensor& q, const Tensor& k) {
    const int64_t H = q.shape(0), T = q.shape(1), hd = q.shape(2);
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));  // this design's head width
    Tensor w = matmul(q, k.transpose(0, 2, 1)) * scale;
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < T; ++i) {
            float sum = 0.0f;
            for (int64_t j = 0; j < T; ++j) {
                w(h, i, j) = j <= i ? std::exp(w(h, i, j))  /* the mistake: no max subtracted */ : 0.0f;
                sum += w(h, i, j);
            }
            for (int64_t j = 0; j < T; ++j) w(h, i, j) /= sum;
        }
    return w;
}

}  // namespace

// x: (T, D), w_q / w_k: (D, D)  ->  (1 + H, T, T)
Tensor one_vs_many_heads(const Tensor& x, const Tensor& w_q, const Tensor& w_k, int n_heads) {
    const int64_t D = x.shape(1);
    if (n_heads <= 0 || D % n_heads != 0) {
        throw std::invalid_argument("one_vs_many_heads: n_heads must divide D");
    }
    // Both designs start from the same projections: same parameters.
    const Tensor q = matmul(x, w_q);
    const Tensor k = matmul(x, w_k);

    // One head of width D: all D features in every dot product, scale 1/sqrt(D).
    const Tensor wide = causal_weights(to_heads(q, 1), to_heads(k, 1));
    // H heads of width hd: each dot product sees one block of features, 1/sqrt(hd).
    const Tensor narrow = causal_weights(to_heads(q, n_heads), to_heads(k, n_heads));

    Tensor weights = concat({wide, narrow}, 0);
    probe("weights", weights);
    return weights;
}
