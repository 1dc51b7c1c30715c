// expect: batch_head_swapped
#include <attnlab/tensor.hpp>
using namespace attnlab;
Tensor batched_split_heads(const Tensor& x, int n_heads) {
    const int64_t B = x.shape(0), T = x.shape(1), D = x.shape(2), hd = D / n_heads;
    Tensor out = Tensor::zeros({B, n_heads, T, hd});
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < n_heads; ++h)
            for (int64_t t = 0; t < T; ++t)
                for (int64_t j = 0; j < hd; ++j) out(b, h, t, j) = x(h, t, b * hd + j);
    return out;
}
