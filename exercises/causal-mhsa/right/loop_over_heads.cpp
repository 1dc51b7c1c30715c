// Fixture for causal-mhsa (right/loop_over_heads): a correct variant that
// loops over the heads and slices columns instead of reshaping. Slower to
// write and to run, but the same numbers: it must pass and be flagged as nothing.
#include <attnlab/tensor.hpp>

#include <cmath>
#include <vector>

using namespace attnlab;

Tensor causal_mhsa(const Tensor& x, const Tensor& w_q, const Tensor& w_k,
                   const Tensor& w_v, const Tensor& w_o, int n_heads) {
    const int64_t T = x.shape(0), D = x.shape(1), hd = D / n_heads;
    const Tensor q = matmul(x, w_q), k = matmul(x, w_k), v = matmul(x, w_v);
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));

    std::vector<Tensor> outputs;
    for (int64_t h = 0; h < n_heads; ++h) {
        // Head h: columns h*hd .. (h+1)*hd - 1 of Q, K and V, each (T, hd).
        const Tensor qh = q.slice(1, h * hd, (h + 1) * hd);
        const Tensor kh = k.slice(1, h * hd, (h + 1) * hd);
        const Tensor vh = v.slice(1, h * hd, (h + 1) * hd);
        Tensor w = matmul(qh, kh.transpose()) * scale;  // (T, T)
        for (int64_t i = 0; i < T; ++i) {
            // Only keys 0..i exist for query i; the rest get weight 0.
            float m = w(i, 0);
            for (int64_t j = 1; j <= i; ++j) m = std::fmax(m, w(i, j));
            float sum = 0.0f;
            for (int64_t j = 0; j < T; ++j) {
                w(i, j) = j <= i ? std::exp(w(i, j) - m) : 0.0f;
                sum += w(i, j);
            }
            for (int64_t j = 0; j <= i; ++j) w(i, j) /= sum;
        }
        outputs.push_back(matmul(w, vh));  // (T, hd)
    }
    return matmul(concat(outputs, 1), w_o);
}
