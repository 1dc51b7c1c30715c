// Wrong on purpose: scaled by 1/sqrt(D), D = H * hd, the model width instead of the head width.
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

Tensor attention_scores(const Tensor& q, const Tensor& k) {
    const int64_t H = q.shape(0);
    const int64_t hd = q.shape(2);
    (void)H;
    const float scale = 1.0f / std::sqrt(static_cast<float>(H * hd));
    return matmul(q, k.transpose(0, 2, 1)) * scale;
}
