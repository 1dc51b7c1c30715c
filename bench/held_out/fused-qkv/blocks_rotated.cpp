// expect: qkv_blocks_out_of_order (catalogued after round 1, which left it unnamed)
#include <attnlab/tensor.hpp>
using namespace attnlab;
Tensor fused_qkv(const Tensor& x, const Tensor& w_qkv) {
    const int64_t T = x.shape(0), D = x.shape(1);
    Tensor out = Tensor::zeros({3, T, D});
    for (int64_t p = 0; p < 3; ++p)
        for (int64_t t = 0; t < T; ++t)
            for (int64_t c = 0; c < D; ++c)
                for (int64_t e = 0; e < D; ++e) out(p, t, c) += x(t, e) * w_qkv(e, ((p + 1) % 3) * D + c);
    return out;
}
