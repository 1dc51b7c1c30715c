// A correct alternative: a loop over the sequences, each one run through the
// 2-D pipeline of the causal-mhsa exercise. Slower to write out, same numbers.
#include <attnlab/tensor.hpp>

#include <cmath>
#include <vector>

using namespace attnlab;

namespace {

Tensor to_heads(const Tensor& m, int n_heads) {  // (T, D) -> (H, T, hd)
    const int64_t T = m.shape(0), hd = m.shape(1) / n_heads;
    return m.reshape({T, n_heads, hd}).transpose(1, 0, 2).contiguous();
}

Tensor from_heads(const Tensor& m) {  // (H, T, hd) -> (T, D)
    return m.transpose(1, 0, 2).contiguous().reshape({m.shape(1), m.shape(0) * m.shape(2)});
}

Tensor one_sequence(const Tensor& x, const Tensor& w_q, const Tensor& w_k, const Tensor& w_v,
                    const Tensor& w_o, int n_heads) {
    const int64_t T = x.shape(0), hd = x.shape(1) / n_heads;
    Tensor q = to_heads(matmul(x, w_q), n_heads);
    Tensor k = to_heads(matmul(x, w_k), n_heads);
    Tensor v = to_heads(matmul(x, w_v), n_heads);
    Tensor w = matmul(q, k.transpose(0, 2, 1)) * (1.0f / std::sqrt(static_cast<float>(hd)));
    for (int64_t h = 0; h < n_heads; ++h)
        for (int64_t i = 0; i < T; ++i) {
            float m = kNegInf;
            for (int64_t j = 0; j <= i; ++j) m = std::fmax(m, w(h, i, j));
            float sum = 0.0f;
            for (int64_t j = 0; j < T; ++j) {
                w(h, i, j) = j <= i ? std::exp(w(h, i, j) - m) : 0.0f;
                sum += w(h, i, j);
            }
            for (int64_t j = 0; j < T; ++j) w(h, i, j) /= sum;
        }
    return matmul(from_heads(matmul(w, v)), w_o);
}

}  // namespace

Tensor batched_causal_mhsa(const Tensor& x, const Tensor& w_q, const Tensor& w_k,
                           const Tensor& w_v, const Tensor& w_o, int n_heads) {
    std::vector<Tensor> outs;
    for (int64_t b = 0; b < x.shape(0); ++b)
        outs.push_back(one_sequence(x.select(0, b), w_q, w_k, w_v, w_o, n_heads));
    return stack(outs, 0);
}
