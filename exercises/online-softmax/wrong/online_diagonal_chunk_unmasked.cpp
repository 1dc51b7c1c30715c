// Fixture for online-softmax (wrong/online_diagonal_chunk_unmasked).
// Mistake: chunks wholly in the future are skipped, but the chunk holding query i is read whole.
#include <attnlab/tensor.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

using namespace attnlab;

// q, k, v: (T, hd), chunk >= 1  ->  (T, hd)
Tensor online_causal_attention(const Tensor& q, const Tensor& k, const Tensor& v, int chunk) {
    const int64_t T = q.shape(0), hd = q.shape(1), dv = v.shape(1);
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    Tensor out = Tensor::zeros({T, dv});
    std::vector<float> acc(static_cast<size_t>(dv)), s(static_cast<size_t>(chunk));
    for (int64_t i = 0; i < T; ++i) {
        float m = kNegInf;  // the largest score seen so far
        float l = 0.0f;     // Σ exp(s_j − m) over the keys seen so far
        std::fill(acc.begin(), acc.end(), 0.0f);  // Σ exp(s_j − m) · v_j
        // Chunks that start after i hold only future keys: stop there.
        for (int64_t c = 0; c <= i; c += chunk) {
            const int64_t end = std::min<int64_t>(c + chunk, T);
            float chunk_max = kNegInf;
            for (int64_t j = c; j < end; ++j) {
                float dot = 0.0f;
                for (int64_t d = 0; d < hd; ++d) dot += q(i, d) * k(j, d);
                s[static_cast<size_t>(j - c)] = dot * scale;
                chunk_max = std::fmax(chunk_max, dot * scale);
            }
            // Everything added so far was relative to m: move it to m_new.
            const float m_new = std::fmax(m, chunk_max);
            const float alpha = std::exp(m - m_new);  // 0 on the first chunk (m = −∞)
            l *= alpha;
            for (float& a : acc) a *= alpha;
            for (int64_t j = c; j < end; ++j) {
                const float p = std::exp(s[static_cast<size_t>(j - c)] - m_new);
                l += p;
                for (int64_t d = 0; d < dv; ++d) acc[static_cast<size_t>(d)] += p * v(j, d);
            }
            m = m_new;
        }
        for (int64_t d = 0; d < dv; ++d) out(i, d) = acc[static_cast<size_t>(d)] / l;
    }
    return out;
}
