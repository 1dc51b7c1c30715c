// A correct alternative: one (T, T) matrix at a time, each head's columns
// taken with slice(), the mask written as -inf before an ordinary softmax.
#include <attnlab/tensor.hpp>

#include <cmath>
#include <vector>

using namespace attnlab;

namespace {

// Causal weights of one head from its (T, w) query and key columns.
Tensor head_weights(const Tensor& q, const Tensor& k) {
    const int64_t T = q.shape(0);
    Tensor s = matmul(q, k.transpose()) * (1.0f / std::sqrt(static_cast<float>(q.shape(1))));
    for (int64_t i = 0; i < T; ++i) {
        for (int64_t j = i + 1; j < T; ++j) s(i, j) = kNegInf;
        float m = kNegInf;
        for (int64_t j = 0; j < T; ++j) m = std::fmax(m, s(i, j));
        float sum = 0.0f;
        for (int64_t j = 0; j < T; ++j) sum += (s(i, j) = std::exp(s(i, j) - m));
        for (int64_t j = 0; j < T; ++j) s(i, j) /= sum;
    }
    return s;
}

}  // namespace

Tensor one_vs_many_heads(const Tensor& x, const Tensor& w_q, const Tensor& w_k, int n_heads) {
    const Tensor q = matmul(x, w_q), k = matmul(x, w_k);
    const int64_t hd = x.shape(1) / n_heads;
    std::vector<Tensor> slices{head_weights(q, k)};
    for (int64_t h = 0; h < n_heads; ++h)
        slices.push_back(head_weights(q.slice(1, h * hd, (h + 1) * hd), k.slice(1, h * hd, (h + 1) * hd)));
    return stack(slices, 0);
}
