// Correct alternative: the weighted sums written out.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor attend(const Tensor& weights, const Tensor& v) {
    const int64_t H = v.shape(0), T = v.shape(1), hd = v.shape(2);
    Tensor out = Tensor::zeros({H, T, hd});
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < T; ++i)
            for (int64_t j = 0; j < T; ++j) {
                const float w = weights(h, i, j);
                for (int64_t c = 0; c < hd; ++c) out(h, i, c) += w * v(h, j, c);
            }
    return out;
}
