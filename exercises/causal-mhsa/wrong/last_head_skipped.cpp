// Fixture for causal-mhsa (wrong/last_head_skipped).
// Mistake: the loop over heads stops one head early, so the last head's
// columns of the concatenation stay 0.
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

Tensor causal_mhsa(const Tensor& x, const Tensor& w_q, const Tensor& w_k,
                   const Tensor& w_v, const Tensor& w_o, int n_heads) {
    const int64_t T = x.shape(0), D = x.shape(1), hd = D / n_heads;
    const Tensor q = matmul(x, w_q), k = matmul(x, w_k), v = matmul(x, w_v);
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    Tensor concat = Tensor::zeros({T, D});
    for (int64_t h = 0; h + 1 < n_heads; ++h) {  // should be h < n_heads
        const Tensor qh = q.slice(1, h * hd, (h + 1) * hd);
        const Tensor kh = k.slice(1, h * hd, (h + 1) * hd);
        const Tensor vh = v.slice(1, h * hd, (h + 1) * hd);
        Tensor w = matmul(qh, kh.transpose()) * scale;
        for (int64_t i = 0; i < T; ++i) {
            float m = kNegInf;
            for (int64_t j = 0; j <= i; ++j) m = std::fmax(m, w(i, j));
            float sum = 0.0f;
            for (int64_t j = 0; j < T; ++j) sum += (w(i, j) = j <= i ? std::exp(w(i, j) - m) : 0.0f);
            for (int64_t j = 0; j < T; ++j) w(i, j) /= sum;
        }
        const Tensor out_h = matmul(w, vh);
        for (int64_t t = 0; t < T; ++t)
            for (int64_t c = 0; c < hd; ++c) concat(t, h * hd + c) = out_h(t, c);
    }
    return matmul(concat, w_o);
}
