// expect: projection_weights_transposed
#include <attnlab/tensor.hpp>
using namespace attnlab;
Tensor fused_qkv(const Tensor& x, const Tensor& w_qkv) {
    const int64_t T = x.shape(0), D = x.shape(1);
    Tensor out = Tensor::zeros({3, T, D});
    for (int64_t p = 0; p < 3; ++p)
        for (int64_t t = 0; t < T; ++t)
            for (int64_t c = 0; c < D; ++c)
                for (int64_t e = 0; e < D; ++e) out(p, t, c) += x(t, e) * w_qkv(c, p * D + e);
    return out;
}
