// Correct alternative: weight = exp(x - logsumexp(row)), where
// logsumexp = m + log(sum of exp(x - m)). The exponent is evaluated as
// (x - m) - log(sum): adding m back first would round the log-sum-exp to
// float32's spacing at |m| (about 0.001 near 10000) and cost accuracy.
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

Tensor softmax_rows(const Tensor& x) {
    Tensor w = x.clone();
    const int64_t H = w.shape(0), rows = w.shape(1), cols = w.shape(2);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < rows; ++i) {
            float m = kNegInf;
            for (int64_t j = 0; j < cols; ++j) m = std::fmax(m, w(h, i, j));
            float sum = 0.0f;
            for (int64_t j = 0; j < cols; ++j) sum += std::exp(w(h, i, j) - m);
            const float log_sum = std::log(sum);
            for (int64_t j = 0; j < cols; ++j) w(h, i, j) = std::exp((w(h, i, j) - m) - log_sum);
        }
    return w;
}
