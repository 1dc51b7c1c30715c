// Fixture for causal-mask (right/numeric_limits_infinity).
// A correct variant: -infinity from <limits> and an if in the loop. It must pass.
#include <attnlab/tensor.hpp>

#include <limits>

using namespace attnlab;

Tensor causal_mask(const Tensor& scores) {
    Tensor out = scores.clone();
    const int64_t H = out.shape(0), T = out.shape(1);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < T; ++i)
            for (int64_t j = 0; j < T; ++j)
                if (j > i) out(h, i, j) = -std::numeric_limits<float>::infinity();
    return out;
}
