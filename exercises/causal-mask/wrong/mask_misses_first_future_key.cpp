// Fixture for causal-mask (wrong/mask_misses_first_future_key).
// Mistake: the loop starts at j = i + 2, so key i + 1 stays visible.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor causal_mask(const Tensor& scores) {
    Tensor out = scores.clone();
    const int64_t H = out.shape(0), T = out.shape(1);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < T; ++i)
            for (int64_t j = i + 2; j < T; ++j) out(h, i, j) = kNegInf;
    return out;
}
