// Fixture for batched-mhsa (wrong/last_head_skipped).
// Mistake: the loop over heads stops one head early, so the last head's
// columns of every sequence's concatenation stay 0.
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

Tensor batched_causal_mhsa(const Tensor& x, const Tensor& w_q, const Tensor& w_k,
                           const Tensor& w_v, const Tensor& w_o, int n_heads) {
    const int64_t B = x.shape(0), T = x.shape(1), D = x.shape(2), hd = D / n_heads;
    const Tensor q = matmul(x, w_q), k = matmul(x, w_k), v = matmul(x, w_v);  // (B, T, D)
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    Tensor concat = Tensor::zeros({B, T, D});
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h + 1 < n_heads; ++h)  // should be h < n_heads
            for (int64_t i = 0; i < T; ++i) {
                float s[64];
                float m = kNegInf;
                for (int64_t j = 0; j <= i; ++j) {
                    float dot = 0.0f;
                    for (int64_t c = 0; c < hd; ++c) dot += q(b, i, h * hd + c) * k(b, j, h * hd + c);
                    s[j] = dot * scale;
                    m = std::fmax(m, s[j]);
                }
                float sum = 0.0f;
                for (int64_t j = 0; j <= i; ++j) sum += (s[j] = std::exp(s[j] - m));
                for (int64_t c = 0; c < hd; ++c) {
                    float acc = 0.0f;
                    for (int64_t j = 0; j <= i; ++j) acc += s[j] / sum * v(b, j, h * hd + c);
                    concat(b, i, h * hd + c) = acc;
                }
            }
    return matmul(concat, w_o);
}
