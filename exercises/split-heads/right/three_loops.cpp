// Fixture for split-heads (right/three_loops): a correct variant that copies
// every number with three loops instead of using views. It must pass.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor split_heads(const Tensor& x, int n_heads) {
    const int64_t T = x.shape(0), hd = x.shape(1) / n_heads;
    Tensor out = Tensor::zeros({n_heads, T, hd});
    for (int64_t h = 0; h < n_heads; ++h)
        for (int64_t t = 0; t < T; ++t)
            for (int64_t c = 0; c < hd; ++c) out(h, t, c) = x(t, h * hd + c);
    return out;
}
