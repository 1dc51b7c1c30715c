#pragma once
// The Eigen reference: causal multi-head self-attention, one small step per
// function, in double precision. These results are the truth that learner code
// is checked against, so each function stays close to the textbook formula.
// Speed does not matter here. Each one checks its inputs and throws
// ReferenceError, naming the input that is wrong and the shape it should have.
//
// Notation used in every shape comment:
//   T  sequence length (tokens)       D  model width (d_model)
//   H  number of heads                hd head width, D / H
//   B  batch size
//
// Layout: one sequence is a (T, D) matrix, one row per token. Per-head data is a
// std::vector of H matrices (`Heads`). A batch is a std::vector of B sequences.
// The registry (registry.cpp) turns these into rank-3/rank-4 tensors.
#include <cstdint>
#include <vector>

#include <Eigen/Dense>

#include "attnlab/reference/registry.hpp"  // ReferenceError

namespace attnlab::reference {

using Matrix = Eigen::MatrixXd;
using Heads = std::vector<Matrix>;  // H matrices, head h at index h
using Batch = std::vector<Matrix>;  // B sequences, each (T, D)

// ---------------------------------------------------------------- projections

// x: (T, Din), w: (Din, Dout) -> (T, Dout)
// Every token (row of x) is multiplied by the same weight matrix. A projection
// mixes the features of one token and never looks at other tokens.
Matrix linear(const Matrix& x, const Matrix& w);

struct QKV {
    Matrix q, k, v;  // each (T, D)
};

// x: (T, D), w_q/w_k/w_v: (D, D) -> Q, K, V, each (T, D)
// Q (query) is "what this token is looking for", K (key) is "what this token
// offers", V (value) is "what this token passes on when it is attended to".
QKV qkv_projection(const Matrix& x, const Matrix& w_q, const Matrix& w_k, const Matrix& w_v);

struct FusedQKV {
    Matrix qkv;  // (T, 3D): columns [Q | K | V]
    QKV split;   // the three (T, D) thirds of qkv
};

// x: (T, D), w_qkv: (D, 3D) -> qkv (T, 3D), split into Q, K, V (T, D)
// w_qkv is [w_q | w_k | w_v] side by side. Column block c of x·w_qkv only sees
// column block c of w_qkv, so one wide matmul gives the same Q, K, V as three
// separate ones. Real implementations fuse them because one large matmul runs
// faster than three small ones.
FusedQKV fused_qkv_projection(const Matrix& x, const Matrix& w_qkv);

// ---------------------------------------------------------------------- heads

// x: (T, D) -> H matrices of (T, hd), hd = D / H
// Head h takes columns h·hd … (h+1)·hd − 1. No arithmetic happens: each head
// gets its own slice of the features and attends on its own.
// Throws when n_heads < 1 or D is not divisible by n_heads.
Heads split_heads(const Matrix& x, int n_heads);

// H matrices of (T, hd) -> (T, D), D = H·hd
// The inverse of split_heads: the heads go side by side again ("concat").
Matrix merge_heads(const Heads& heads);

// ------------------------------------------------------------------ attention

// q: (T, hd), k: (T, hd) -> (T, T), one head
// scores(i, j) = q_i · k_j / √hd: how well query i matches key j. The dot
// product of two random hd-vectors grows like √hd. Dividing by √hd keeps the
// scores around 1, so the softmax does not saturate into a one-hot.
Matrix scaled_scores(const Matrix& q, const Matrix& k);

// scores: (T, T) -> (T, T)
// Causal: token i may only look at tokens j ≤ i (the past and itself). Entries
// with j > i become -infinity, which the softmax turns into exactly 0 weight.
// The diagonal is never masked, so no row is masked entirely.
Matrix causal_mask(const Matrix& scores);

// x: (R, N) -> (R, N), each row sums to 1
// Numerically stable: subtracting the row max before exp leaves the result
// unchanged, because the factor exp(-max) cancels. It makes the largest
// exponent exp(0) = 1, so nothing overflows and the sum is at least 1.
// A -inf entry gives exp(-inf) = 0, exactly 0 weight.
// Choice: a row with no finite entry (all -inf) has no meaningful softmax
// (0/0), and NaN or +inf would give NaN. These throw ReferenceError, so no NaN
// comes out silently. Causal masking never produces such a row.
Matrix softmax_rows(const Matrix& x);

// weights: (T, T), v: (T, hd) -> (T, hd)
// Output row i is the weighted average of the value rows: Σ_j weights(i, j)·v_j.
Matrix attend(const Matrix& weights, const Matrix& v);

// The same four steps for H heads at once: head h of the result comes from
// head h of the inputs only. Inputs are H × (T, hd) or H × (T, T), as above.
Heads scaled_scores(const Heads& q, const Heads& k);  // -> H × (T, T)
Heads causal_mask(const Heads& scores);               // -> H × (T, T)
Heads softmax_rows(const Heads& x);                   // -> H × (T, T)
Heads attend(const Heads& weights, const Heads& v);   // -> H × (T, hd)

struct AttentionWeights {
    Heads scores;   // H × (T, T), scaled
    Heads masked;   // H × (T, T), -inf above the diagonal
    Heads weights;  // H × (T, T), rows sum to 1, exactly 0 above the diagonal
};

// q: H × (T, hd), k: H × (T, hd) -> scores, masked, weights, each H × (T, T)
// scaled_scores → causal_mask → softmax_rows, for each head independently.
AttentionWeights causal_attention_weights(const Heads& q, const Heads& k);

// concat: (T, D), w_o: (D, D) -> (T, D)
// The heads worked separately. W_O mixes their outputs back into one
// D-dimensional vector per token.
Matrix output_projection(const Matrix& concat, const Matrix& w_o);

// -------------------------------------------------------------- full layer

// Every named stage of one causal multi-head self-attention layer, in order.
struct MhsaStages {
    Matrix q, k, v;  // (T, D) each
    Heads scores;    // H × (T, T)
    Heads masked;    // H × (T, T)
    Heads weights;   // H × (T, T)
    Heads heads;     // H × (T, hd): weights_h · V_h
    Matrix concat;   // (T, D): merge_heads(heads)
    Matrix out;      // (T, D): concat · W_O
};

// x: (T, D), w_q/w_k/w_v/w_o: (D, D) -> all stages, out (T, D)
MhsaStages causal_mhsa(const Matrix& x, const Matrix& w_q, const Matrix& w_k, const Matrix& w_v,
                       const Matrix& w_o, int n_heads);

// x: (T, D), w_qkv: (D, 3D), w_o: (D, D) -> all stages, out (T, D)
// Same layer with the fused projection. Only the way Q, K, V are computed
// differs.
MhsaStages fused_causal_mhsa(const Matrix& x, const Matrix& w_qkv, const Matrix& w_o, int n_heads);

// Q, K, V: (T, D) each, w_o: (D, D) -> all stages, out (T, D)
// Everything after the projection: split heads, attend causally, merge and
// project. Both layers above end here.
MhsaStages causal_mhsa_from_qkv(const QKV& qkv, const Matrix& w_o, int n_heads);

// ------------------------------------------------------------------- batches

// x: B × (T, D) -> B × H × (T, hd)
// Element (b, h, t, j) = x[b](t, h·hd + j). Sequences in a batch never
// interact: a batch applies the same layer to B sequences.
std::vector<Heads> batched_split_heads(const Batch& x, int n_heads);

// x: B × (T, D), w_q/w_k/w_v/w_o: (D, D) -> B × all stages
std::vector<MhsaStages> batched_causal_mhsa(const Batch& x, const Matrix& w_q, const Matrix& w_k,
                                            const Matrix& w_v, const Matrix& w_o, int n_heads);

// ------------------------------------------------------------------- counting

// d_model, n_layers -> 4·d_model²·n_layers
// Attention weights per layer: W_Q, W_K, W_V, W_O, each (D, D), no biases. The
// head count does not change this, because heads only split D.
// Example: d_model 768, 12 layers -> 28,311,552.
int64_t attention_params(int64_t d_model, int64_t n_layers);

}  // namespace attnlab::reference
