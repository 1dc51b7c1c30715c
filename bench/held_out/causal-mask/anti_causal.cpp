// expect: mask_below_diagonal
#include <attnlab/tensor.hpp>
using namespace attnlab;
Tensor causal_mask(const Tensor& scores) {
    Tensor out = scores.clone();
    const int64_t H = out.shape(0), T = out.shape(1);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < T; ++i)
            for (int64_t j = 0; j < T; ++j)
                if (i > j) out(h, i, j) = kNegInf;
    return out;
}
