// Correct alternative: scale the queries before the product; (q / sqrt(hd)) · k^T
// is the same matrix.
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

Tensor attention_scores(const Tensor& q, const Tensor& k) {
    const float scale = 1.0f / std::sqrt(static_cast<float>(q.shape(2)));
    return matmul(q * scale, k.swapaxes(1, 2));
}
