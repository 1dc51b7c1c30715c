// Wrong on purpose: scaled by 1/sqrt(T), the number of tokens, instead of 1/sqrt(hd).
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

Tensor attention_scores(const Tensor& q, const Tensor& k) {
    const int64_t T = q.shape(1);
    const float scale = 1.0f / std::sqrt(static_cast<float>(T));
    return matmul(q, k.transpose(0, 2, 1)) * scale;
}
