// Wrong on purpose: subtracts one maximum per head (of the whole (T, T)
// slice) instead of each row's own maximum. A row far below its head's
// maximum underflows to 0/0.
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

Tensor softmax_rows(const Tensor& x) {
    Tensor w = x.clone();
    const int64_t H = w.shape(0), rows = w.shape(1), cols = w.shape(2);
    for (int64_t h = 0; h < H; ++h) {
        float m = kNegInf;
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) m = std::fmax(m, w(h, i, j));
        for (int64_t i = 0; i < rows; ++i) {
            float sum = 0.0f;
            for (int64_t j = 0; j < cols; ++j) {
                w(h, i, j) = std::exp(w(h, i, j) - m);
                sum += w(h, i, j);
            }
            for (int64_t j = 0; j < cols; ++j) w(h, i, j) /= sum;
        }
    }
    return w;
}
