// expect: -
#include <attnlab/tensor.hpp>
#include <cmath>
using namespace attnlab;
// round 2: tensor-op style, written after the catalogue was extended
static Tensor split_cols(const Tensor& m, int H) {
    const int64_t T = m.shape(0), hd = m.shape(1) / H;
    return /*SPLIT*/m.reshape({T, H, hd}).transpose(1, 0, 2).contiguous();
}
static Tensor join_cols(const Tensor& m) {
    const int64_t H = m.shape(0), T = m.shape(1), hd = m.shape(2);
    return /*JOIN*/m.transpose(1, 0, 2).contiguous().reshape({T, H * hd});
}
Tensor causal_mhsa(const Tensor& x, const Tensor& w_q, const Tensor& w_k,
                   const Tensor& w_v, const Tensor& w_o, int n_heads) {
    const int64_t T = x.shape(0), D = x.shape(1), hd = D / n_heads;
    Tensor q = split_cols(matmul(x, w_q), n_heads);
    Tensor k = split_cols(matmul(x, w_k), n_heads);
    Tensor v = split_cols(x, n_heads);
    Tensor s = matmul(q, k.transpose(0, 2, 1)) * (1.0f / std::sqrt((float)/*SC*/hd));
    for (int64_t h = 0; h < n_heads; ++h)
        for (int64_t i = 0; i < T; ++i) {
            for (int64_t j = 0; j < T; ++j)
                if (/*M*/j > i) s(h, i, j) = kNegInf;
            float mx = /*MX*/kNegInf;
            for (int64_t j = 0; j < T; ++j) mx = std::fmax(mx, s(h, i, j));
            float z = 0.0f;
            for (int64_t j = 0; j < T; ++j) z += (s(h, i, j) = std::exp(s(h, i, j) - mx));
            for (int64_t j = 0; j < T; ++j) s(h, i, j) /= z;
        }
    return matmul(join_cols(matmul(s, v)), /*WO*/w_o);
}
