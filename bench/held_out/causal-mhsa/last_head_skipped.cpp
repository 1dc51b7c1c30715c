// expect: last_head_skipped (catalogued after round 1, which left it unnamed)
#include <attnlab/tensor.hpp>
#include <cmath>
#include <vector>
using namespace attnlab;

static float dotp(const std::vector<float>& a, const std::vector<float>& b) {
    float s = 0.0f;
    for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
}

Tensor causal_mhsa(const Tensor& x, const Tensor& w_q, const Tensor& w_k,
                   const Tensor& w_v, const Tensor& w_o, int n_heads) {
    const int64_t T = x.shape(0), D = x.shape(1), hd = D / n_heads;
    Tensor q = Tensor::zeros({T, D}), k = Tensor::zeros({T, D}), v = Tensor::zeros({T, D});
    for (int64_t t = 0; t < T; ++t)
        for (int64_t c = 0; c < D; ++c)
            for (int64_t e = 0; e < D; ++e) {
                q(t, c) += x(t, e) * /*WQ*/w_q(e, c);
                k(t, c) += x(t, e) * /*WK*/w_k(e, c);
                v(t, c) += x(t, e) * /*WV*/w_v(e, c);
            }
    Tensor concat = Tensor::zeros({T, D});
    for (int64_t h = 0; h + 1 < n_heads; ++h) {
        auto col = [&](int64_t j) { return /*COL*/h * hd + j; };
        for (int64_t i = 0; i < T; ++i) {
            std::vector<float> qi(hd), s(T, -INFINITY);
            for (int64_t j = 0; j < hd; ++j) qi[j] = q(i, col(j));
            float mx = -INFINITY;
            for (int64_t t = 0; t < T; ++t) {
                if (/*MASK*/t > i) continue;
                std::vector<float> kt(hd);
                for (int64_t j = 0; j < hd; ++j) kt[j] = k(t, col(j));
                s[t] = dotp(qi, kt) /*SCALE*// std::sqrt((float)hd);
                mx = std::fmax(mx, s[t]);
            }
            /*MAX*/
            float z = 0.0f;
            for (int64_t t = 0; t < T; ++t) z += std::exp(s[t] - mx);
            for (int64_t j = 0; j < hd; ++j) {
                float acc = 0.0f;
                for (int64_t t = 0; t < T; ++t) acc += std::exp(s[t] - mx) / z * /*VAL*/v(t, col(j));
                concat(i, /*OUTCOL*/col(j)) = acc;
            }
        }
    }
    Tensor out = Tensor::zeros({T, D});
    for (int64_t t = 0; t < T; ++t)
        for (int64_t c = 0; c < D; ++c)
            for (int64_t e = 0; e < D; ++e) out(t, c) += concat(t, e) * /*WO*/w_o(e, c);
    return out;
}
