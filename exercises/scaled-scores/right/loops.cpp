// Correct alternative: the dot products written out.
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

Tensor attention_scores(const Tensor& q, const Tensor& k) {
    const int64_t H = q.shape(0), T = q.shape(1), hd = q.shape(2);
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    Tensor scores = Tensor::zeros({H, T, T});
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < T; ++i)
            for (int64_t j = 0; j < T; ++j) {
                float dot = 0.0f;
                for (int64_t c = 0; c < hd; ++c) dot += q(h, i, c) * k(h, j, c);
                scores(h, i, j) = dot * scale;
            }
    return scores;
}
