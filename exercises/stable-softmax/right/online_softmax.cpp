// Correct alternative: the online softmax. One pass keeps a running maximum m
// and a running sum s of exp(x - m); when a larger value arrives, the sum is
// rescaled by exp(old m - new m). FlashAttention processes keys this way.
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

Tensor softmax_rows(const Tensor& x) {
    Tensor w = x.clone();
    const int64_t H = w.shape(0), rows = w.shape(1), cols = w.shape(2);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < rows; ++i) {
            float m = kNegInf, s = 0.0f;
            for (int64_t j = 0; j < cols; ++j) {
                const float v = w(h, i, j);
                // A masked entry adds nothing, and while m is still -inf,
                // exp(v - m) would be exp(-inf + inf) = NaN.
                if (v == kNegInf) continue;
                if (v > m) {
                    s = s * std::exp(m - v) + 1.0f;  // exp(-inf) = 0 on the first finite value
                    m = v;
                } else {
                    s += std::exp(v - m);
                }
            }
            for (int64_t j = 0; j < cols; ++j) w(h, i, j) = std::exp(w(h, i, j) - m) / s;
        }
    return w;
}
