// Correct alternative: the online update one key at a time (chunks of 1
// whatever `chunk` says), the form in Milakov and Gimelshein's paper.
#include <attnlab/tensor.hpp>

#include <cmath>
#include <vector>

using namespace attnlab;

Tensor online_causal_attention(const Tensor& q, const Tensor& k, const Tensor& v, int chunk) {
    (void)chunk;
    const int64_t T = q.shape(0), hd = q.shape(1), dv = v.shape(1);
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    Tensor out = Tensor::zeros({T, dv});
    std::vector<float> acc(static_cast<size_t>(dv));
    for (int64_t i = 0; i < T; ++i) {
        float m = kNegInf, l = 0.0f;
        for (float& a : acc) a = 0.0f;
        for (int64_t j = 0; j <= i; ++j) {
            float s = 0.0f;
            for (int64_t d = 0; d < hd; ++d) s += q(i, d) * k(j, d);
            s *= scale;
            const float m_new = std::fmax(m, s);
            const float alpha = std::exp(m - m_new), p = std::exp(s - m_new);
            l = l * alpha + p;
            for (int64_t d = 0; d < dv; ++d) acc[static_cast<size_t>(d)] = acc[static_cast<size_t>(d)] * alpha + p * v(j, d);
            m = m_new;
        }
        for (int64_t d = 0; d < dv; ++d) out(i, d) = acc[static_cast<size_t>(d)] / l;
    }
    return out;
}
