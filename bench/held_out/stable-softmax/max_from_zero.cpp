// expect: softmax_without_max
#include <attnlab/tensor.hpp>
#include <cmath>
using namespace attnlab;
Tensor softmax_rows(const Tensor& x) {
    Tensor w = x.clone();
    const int64_t H = x.shape(0), R = x.shape(1), C = x.shape(2);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < R; ++i) {
            float m = 0.0f;
            for (int64_t j = 0; j < C; ++j) if (x(h, i, j) > m) m = x(h, i, j);
            float z = 0.0f;
            for (int64_t j = 0; j < C; ++j) z += std::exp(x(h, i, j) - m);
            for (int64_t j = 0; j < C; ++j) w(h, i, j) = std::exp(x(h, i, j) - m) / z;
        }
    return w;
}
