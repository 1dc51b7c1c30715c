// Fixture for causal-mhsa (wrong/projection_weights_transposed).
// Mistake: X · Wᵀ for every projection (PyTorch's nn.Linear habit).
#include <attnlab/tensor.hpp>

#include <cmath>
#include <stdexcept>

using namespace attnlab;

namespace {

// (T, D) -> (H, T, hd): head h is columns h*hd .. (h+1)*hd - 1.
Tensor to_heads(const Tensor& m, int n_heads) {
    const int64_t T = m.shape(0);
    const int64_t hd = m.shape(1) / n_heads;
    return m.reshape({T, n_heads, hd}).transpose(1, 0, 2).contiguous();
}

// (H, T, hd) -> (T, D): the exact inverse of to_heads.
Tensor from_heads(const Tensor& m) {
    const int64_t T = m.shape(1);
    const int64_t D = m.shape(0) * m.shape(2);
    return m.transpose(1, 0, 2).contiguous().reshape({T, D});
}

// Copy of scores (H, T, T) with every future key (j > i) set to -inf.
Tensor apply_causal_mask(const Tensor& scores) {
    Tensor out = scores.clone();
    const int64_t H = out.shape(0);
    const int64_t T = out.shape(1);
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < T; ++i)
            for (int64_t j = i + 1; j < T; ++j) out(h, i, j) = kNegInf;
    return out;
}

// Softmax over the last axis of an (H, T, T) tensor.
Tensor softmax_rows(const Tensor& s) {
    Tensor w = s.clone();
    const int64_t H = w.shape(0);
    const int64_t rows = w.shape(1);
    const int64_t cols = w.shape(2);
    for (int64_t h = 0; h < H; ++h) {
        for (int64_t i = 0; i < rows; ++i) {
            // Subtract the row max so exp never overflows. The diagonal is
            // never masked, so m is finite and exp(-inf - m) is exactly 0.
            float m = w(h, i, 0);
            for (int64_t j = 1; j < cols; ++j) m = std::fmax(m, w(h, i, j));
            float sum = 0.0f;
            for (int64_t j = 0; j < cols; ++j) {
                const float e = std::exp(w(h, i, j) - m);
                w(h, i, j) = e;
                sum += e;
            }
            for (int64_t j = 0; j < cols; ++j) w(h, i, j) /= sum;
        }
    }
    return w;
}

}  // namespace

// x: (T, D), w_q / w_k / w_v / w_o: (D, D)  ->  (T, D)
Tensor causal_mhsa(const Tensor& x, const Tensor& w_q, const Tensor& w_k,
                   const Tensor& w_v, const Tensor& w_o, int n_heads) {
    const int64_t D = x.shape(1);
    if (n_heads <= 0 || D % n_heads != 0) {
        throw std::invalid_argument("causal_mhsa: n_heads must divide D");
    }
    const int64_t hd = D / n_heads;

    // 1. Three wide projections cover every head: one matmul each, not H.
    Tensor q = matmul(x, w_q.transpose());
    Tensor k = matmul(x, w_k.transpose());
    Tensor v = matmul(x, w_v.transpose());
    probe("Q", q);
    probe("K", k);
    probe("V", v);

    // 2. Split into heads: from here on H acts as a batch axis.
    Tensor qh = to_heads(q, n_heads);
    Tensor kh = to_heads(k, n_heads);
    Tensor vh = to_heads(v, n_heads);

    // 3. One (T, T) score matrix per head. Each dot product runs over hd
    //    numbers, so the scale is 1/sqrt(hd), not 1/sqrt(D).
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    Tensor scores = matmul(qh, kh.transpose(0, 2, 1)) * scale;  // (H, T, T)
    probe("scores", scores);

    // 4. Hide the future, 5. turn each row into weights that sum to 1.
    Tensor masked = apply_causal_mask(scores);
    probe("masked", masked);
    Tensor weights = softmax_rows(masked);
    probe("weights", weights);

    // 6. Each token's output in each head: a weighted average of values.
    Tensor heads = matmul(weights, vh);  // (H, T, hd)
    probe("heads", heads);

    // 7. Merge the heads back side by side, then let W_O mix them.
    Tensor merged = from_heads(heads);  // (T, D)
    probe("concat", merged);
    Tensor out = matmul(merged, w_o);
    probe("out", out);
    return out;
}
