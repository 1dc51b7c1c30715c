// Wrong on purpose: the formula written literally, without subtracting the
// maximum. Right for small logits; exp overflows (or underflows) on large ones.
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

Tensor softmax_rows(const Tensor& x) {
    Tensor w = x.clone();
    const int64_t H = w.shape(0), rows = w.shape(1), cols = w.shape(2);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < rows; ++i) {
            float sum = 0.0f;
            for (int64_t j = 0; j < cols; ++j) {
                w(h, i, j) = std::exp(w(h, i, j));
                sum += w(h, i, j);
            }
            for (int64_t j = 0; j < cols; ++j) w(h, i, j) /= sum;
        }
    return w;
}
