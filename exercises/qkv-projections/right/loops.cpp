// Correct alternative: the sums written out, one output element at a time.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor qkv_projections(const Tensor& x, const Tensor& w_q, const Tensor& w_k, const Tensor& w_v) {
    const int64_t T = x.shape(0);
    const int64_t D = x.shape(1);
    Tensor out = Tensor::zeros({3, T, D});
    const Tensor* weights[3] = {&w_q, &w_k, &w_v};
    for (int64_t p = 0; p < 3; ++p)
        for (int64_t t = 0; t < T; ++t)
            for (int64_t c = 0; c < D; ++c) {
                float sum = 0.0f;
                for (int64_t d = 0; d < D; ++d) sum += x(t, d) * (*weights[p])(d, c);
                out(p, t, c) = sum;
            }
    return out;
}
