// A softmax that never overflows: subtract each row's maximum first.
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

// x: (H, T, T) -> (H, T, T), softmax over the last axis; x itself unchanged
Tensor softmax_rows(const Tensor& x) {
    Tensor w = x.clone();  // clone(): a plain copy would write into x
    const int64_t H = w.shape(0);
    const int64_t rows = w.shape(1);
    const int64_t cols = w.shape(2);
    for (int64_t h = 0; h < H; ++h) {
        for (int64_t i = 0; i < rows; ++i) {
            // This row's own maximum (never 0, never the whole tensor's): it
            // is finite because every row has a finite entry.
            float m = w(h, i, 0);
            for (int64_t j = 1; j < cols; ++j) m = std::fmax(m, w(h, i, j));
            // exp(x - m) <= 1 cannot overflow, the maximum contributes
            // exp(0) = 1 so the sum is >= 1, and exp(-inf - m) is exactly 0.
            float sum = 0.0f;
            for (int64_t j = 0; j < cols; ++j) {
                const float e = std::exp(w(h, i, j) - m);
                w(h, i, j) = e;
                sum += e;
            }
            for (int64_t j = 0; j < cols; ++j) w(h, i, j) /= sum;
        }
    }
    probe("weights", w);
    return w;
}
