// Scaled scores per head: one batched matmul over the head axis.
#include <attnlab/tensor.hpp>

#include <cmath>

using namespace attnlab;

// q: (H, T, hd), k: (H, T, hd)  ->  (H, T, T): row = query token, column = key token
Tensor attention_scores(const Tensor& q, const Tensor& k) {
    const int64_t hd = q.shape(2);
    // Each dot product runs over one head's hd features, so its spread grows
    // like sqrt(hd): divide by sqrt(hd), not by sqrt(D) = sqrt(H * hd).
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));

    // k.transpose(0, 2, 1) is (H, hd, T); matmul treats H as a batch axis.
    Tensor scores = matmul(q, k.transpose(0, 2, 1)) * scale;  // (H, T, T)
    probe("scores", scores);
    return scores;
}
