// Wrong on purpose: a stable softmax, but down each column (over the queries)
// instead of along each row.
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

Tensor softmax_rows(const Tensor& x) {
    Tensor w = x.clone();
    const int64_t H = w.shape(0), rows = w.shape(1), cols = w.shape(2);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t j = 0; j < cols; ++j) {
            float m = w(h, 0, j);
            for (int64_t i = 1; i < rows; ++i) m = std::fmax(m, w(h, i, j));
            float sum = 0.0f;
            for (int64_t i = 0; i < rows; ++i) {
                w(h, i, j) = std::exp(w(h, i, j) - m);
                sum += w(h, i, j);
            }
            for (int64_t i = 0; i < rows; ++i) w(h, i, j) /= sum;
        }
    return w;
}
