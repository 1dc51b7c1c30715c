// Wrong on purpose: `Tensor w = x;` shares x's storage, so the softmax is
// written into the caller's scores. The values returned are right.
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

Tensor softmax_rows(const Tensor& x) {
    Tensor w = x;
    const int64_t H = w.shape(0), rows = w.shape(1), cols = w.shape(2);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < rows; ++i) {
            float m = w(h, i, 0);
            for (int64_t j = 1; j < cols; ++j) m = std::fmax(m, w(h, i, j));
            float sum = 0.0f;
            for (int64_t j = 0; j < cols; ++j) {
                w(h, i, j) = std::exp(w(h, i, j) - m);
                sum += w(h, i, j);
            }
            for (int64_t j = 0; j < cols; ++j) w(h, i, j) /= sum;
        }
    return w;
}
