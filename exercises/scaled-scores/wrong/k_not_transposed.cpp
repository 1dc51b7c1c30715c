// Wrong on purpose: K used without its transpose: (T, hd) · (T, hd) does not line up when T != hd.
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

Tensor attention_scores(const Tensor& q, const Tensor& k) {
    const int64_t H = q.shape(0);
    const int64_t hd = q.shape(2);
    (void)H;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    return matmul(q, k) * scale;
}
