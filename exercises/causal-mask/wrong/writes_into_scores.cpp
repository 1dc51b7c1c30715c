// Fixture for causal-mask (wrong/writes_into_scores).
// Mistake: `Tensor out = scores;` shares the caller's storage, so masking it
// writes -inf into the caller's scores. The result is right; the input is not.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor causal_mask(const Tensor& scores) {
    Tensor out = scores;  // a view of the same storage, not a copy
    const int64_t H = out.shape(0), T = out.shape(1);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < T; ++i)
            for (int64_t j = i + 1; j < T; ++j) out(h, i, j) = kNegInf;
    return out;
}
