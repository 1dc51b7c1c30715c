// Correct alternative: no chunks at all. The whole row of scores first, then
// a max-subtracted softmax and the weighted sum. The answer does not depend
// on the chunk size, so this passes too; it just needs the whole row at once,
// which is what a kernel cannot afford for long sequences.
#include <attnlab/tensor.hpp>

#include <cmath>
#include <vector>

using namespace attnlab;

Tensor online_causal_attention(const Tensor& q, const Tensor& k, const Tensor& v, int chunk) {
    (void)chunk;
    const int64_t T = q.shape(0), hd = q.shape(1), dv = v.shape(1);
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    Tensor out = Tensor::zeros({T, dv});
    std::vector<float> s(static_cast<size_t>(T));
    for (int64_t i = 0; i < T; ++i) {
        float m = kNegInf;
        for (int64_t j = 0; j <= i; ++j) {
            float dot = 0.0f;
            for (int64_t d = 0; d < hd; ++d) dot += q(i, d) * k(j, d);
            s[static_cast<size_t>(j)] = dot * scale;
            m = std::fmax(m, dot * scale);
        }
        float sum = 0.0f;
        for (int64_t j = 0; j <= i; ++j) sum += (s[static_cast<size_t>(j)] = std::exp(s[static_cast<size_t>(j)] - m));
        for (int64_t j = 0; j <= i; ++j)
            for (int64_t d = 0; d < dv; ++d) out(i, d) += s[static_cast<size_t>(j)] / sum * v(j, d);
    }
    return out;
}
