// Fixture for causal-mhsa (wrong/scale_sqrt_t).
// Mistake: scores scaled by 1/sqrt(T), the number of tokens, instead of 1/sqrt(hd).
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

namespace {

// (T, D) -> (H, T, hd), head h = columns h*hd .. (h+1)*hd - 1
Tensor to_heads(const Tensor& m, int n_heads) {
    const int64_t T = m.shape(0), hd = m.shape(1) / n_heads;
    return m.reshape({T, n_heads, hd}).transpose(1, 0, 2).contiguous();
}

// (H, T, hd) -> (T, D), the inverse of to_heads
Tensor from_heads(const Tensor& m) {
    const int64_t T = m.shape(1), D = m.shape(0) * m.shape(2);
    return m.transpose(1, 0, 2).contiguous().reshape({T, D});
}

Tensor apply_causal_mask(const Tensor& scores) {
    Tensor out = scores.clone();
    const int64_t H = out.shape(0), T = out.shape(1);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < T; ++i)
            for (int64_t j = i + 1; j < T; ++j) out(h, i, j) = kNegInf;
    return out;
}

// Softmax along each row (the last axis) of an (H, T, T) tensor.
Tensor softmax_rows(const Tensor& s) {
    Tensor w = s.clone();
    const int64_t H = w.shape(0), T = w.shape(1);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < T; ++i) {
            float m = kNegInf;
            for (int64_t j = 0; j < T; ++j) m = std::fmax(m, w(h, i, j));
            float sum = 0.0f;
            for (int64_t j = 0; j < T; ++j) sum += (w(h, i, j) = std::exp(w(h, i, j) - m));
            for (int64_t j = 0; j < T; ++j) w(h, i, j) /= sum;
        }
    return w;
}

}  // namespace

Tensor causal_mhsa(const Tensor& x, const Tensor& w_q, const Tensor& w_k,
                   const Tensor& w_v, const Tensor& w_o, int n_heads) {
    const int64_t T = x.shape(0), D = x.shape(1), hd = D / n_heads;
    const Tensor q = to_heads(matmul(x, w_q), n_heads);
    const Tensor k = to_heads(matmul(x, w_k), n_heads);
    const Tensor v = to_heads(matmul(x, w_v), n_heads);
    (void)hd;
    (void)D;
    Tensor scores = matmul(q, k.transpose(0, 2, 1)) * (1.0f / std::sqrt(static_cast<float>(T)));
    Tensor weights = softmax_rows(apply_causal_mask(scores));
    Tensor heads = matmul(weights, v);
    return matmul(from_heads(heads), w_o);
}
