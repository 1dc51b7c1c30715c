// Wrong on purpose: scales the scores by 1/sqrt(T), the number of tokens, instead of 1/sqrt(hd).

#include <attnlab/tensor.hpp>

#include <cmath>
#include <stdexcept>

using namespace attnlab;

namespace {

// (B, T, D) -> (B, H, T, hd): the batched-layout exercise.
Tensor to_heads(const Tensor& m, int n_heads) {
    const int64_t B = m.shape(0), T = m.shape(1), hd = m.shape(2) / n_heads;
    return m.reshape({B, T, n_heads, hd}).transpose(0, 2, 1, 3).contiguous();
}

// (B, H, T, hd) -> (B, T, D): the exact inverse of to_heads.
Tensor from_heads(const Tensor& m) {
    const int64_t B = m.shape(0), T = m.shape(2), D = m.shape(1) * m.shape(3);
    return m.transpose(0, 2, 1, 3).contiguous().reshape({B, T, D});
}

// Copy of scores (B, H, T, T) with every future key (j > i) set to -inf. The
// mask is the same for every sequence and head: position i of a sequence may
// see positions 0..i of the same sequence, nothing else.
Tensor apply_causal_mask(const Tensor& scores) {
    Tensor out = scores.clone();
    const int64_t B = out.shape(0), H = out.shape(1), T = out.shape(2);
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < T; ++i)
                for (int64_t j = i + 1; j < T; ++j) out(b, h, i, j) = kNegInf;
    return out;
}

// Softmax over the last axis of a (B, H, T, T) tensor.
Tensor softmax_rows(const Tensor& s) {
    Tensor w = s.clone();
    const int64_t B = w.shape(0), H = w.shape(1), T = w.shape(2), N = w.shape(3);
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < T; ++i) {
                // Subtract the row max so exp never overflows, even for scores
                // in the thousands. The diagonal is never masked, so m is finite.
                float m = w(b, h, i, 0);
                for (int64_t j = 1; j < N; ++j) m = std::fmax(m, w(b, h, i, j));
                float sum = 0.0f;
                for (int64_t j = 0; j < N; ++j) {
                    const float e = std::exp(w(b, h, i, j) - m);
                    w(b, h, i, j) = e;
                    sum += e;
                }
                for (int64_t j = 0; j < N; ++j) w(b, h, i, j) /= sum;
            }
    return w;
}

}  // namespace

// x: (B, T, D), w_q / w_k / w_v / w_o: (D, D)  ->  (B, T, D)
Tensor batched_causal_mhsa(const Tensor& x, const Tensor& w_q, const Tensor& w_k,
                           const Tensor& w_v, const Tensor& w_o, int n_heads) {
    const int64_t D = x.shape(2);
    if (n_heads <= 0 || D % n_heads != 0) {
        throw std::invalid_argument("batched_causal_mhsa: n_heads must divide D");
    }
    // 1. Project: a 2-D weight is applied to every sequence of the batch.
    Tensor q = matmul(x, w_q);
    Tensor k = matmul(x, w_k);
    Tensor v = matmul(x, w_v);
    probe("Q", q);
    probe("K", k);
    probe("V", v);

    // 2. Split: (B, T, D) -> (B, H, T, hd). From here on B and H are both
    //    batch axes of the matmuls: each (sequence, head) pair is on its own.
    Tensor qh = to_heads(q, n_heads);
    Tensor kh = to_heads(k, n_heads);
    Tensor vh = to_heads(v, n_heads);

    // 3. Scores per pair, scaled by 1/sqrt(hd): (B, H, T, T).
    const float scale = 1.0f / std::sqrt(static_cast<float>(x.shape(1)));  // the mistake: T
    Tensor scores = matmul(qh, kh.transpose(0, 1, 3, 2)) * scale;
    probe("scores", scores);

    // 4-5. Hide the future, then turn each row into weights summing to 1.
    Tensor masked = apply_causal_mask(scores);
    probe("masked", masked);
    Tensor weights = softmax_rows(masked);
    probe("weights", weights);

    // 6. Weighted averages of the values: (B, H, T, hd).
    Tensor heads = matmul(weights, vh);
    probe("heads", heads);

    // 7. Merge back to (B, T, D) and let W_O mix the heads.
    Tensor concat = from_heads(heads);
    probe("concat", concat);
    Tensor out = matmul(concat, w_o);
    probe("out", out);
    return out;
}
