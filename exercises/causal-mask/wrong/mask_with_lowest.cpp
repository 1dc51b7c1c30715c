// Fixture for causal-mask (wrong/mask_with_lowest).
// Mistake: future scores are set to the float's lowest value instead of exactly -inf.
#include <attnlab/tensor.hpp>

#include <limits>

using namespace attnlab;

Tensor causal_mask(const Tensor& scores) {
    Tensor out = scores.clone();
    const int64_t H = out.shape(0), T = out.shape(1);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < T; ++i)
            for (int64_t j = i + 1; j < T; ++j) out(h, i, j) = std::numeric_limits<float>::lowest();
    return out;
}
