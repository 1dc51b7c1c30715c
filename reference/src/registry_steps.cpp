// Ops for the step-by-step exercises: projections, scaled scores, softmax,
// weighted sum, and the mistakes learners make in them.
//
// The steps reuse the core ops (qkv_projection, fused_qkv, attention_scores,
// softmax_rows, attend); this file only attaches their catalogued mistakes.
// Each variant computes the op from the same inputs with one thing done the way
// learners really get it wrong, in double, so that the runner can say which
// mistake a wrong output matches. The words for the learner are in
// exercises/mistakes/<id>.json.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "registry_support.hpp"

namespace attnlab::reference::support {

namespace {

// ---------------------------------------------------------------- projections

// Q, K, V as x·Wᵀ: the habit of PyTorch's nn.Linear, which stores its weight
// as (out, in) and computes x·Wᵀ. Here W is stored (in, out), so x·W is right.
Result projection_weights_transposed(const Args& a) {
    const Matrix x = a.matrix("x");
    // The reference's checks first: every W is (D, D) for x's D.
    qkv_projection(x, a.matrix("w_q"), a.matrix("w_k"), a.matrix("w_v"));
    const QKV qkv{linear(x, a.matrix("w_q").transpose()), linear(x, a.matrix("w_k").transpose()),
                  linear(x, a.matrix("w_v").transpose())};
    return tensor_result(stacked_qkv(qkv), qkv_stages(qkv));
}

// How a fused (T, 3D) product is cut into Q, K and V.
enum class QkvSplit {
    // The row-major buffer of qkv read straight as (3, T, D): Q gets the first
    // T·D numbers, i.e. whole rows of qkv (reshape without the transpose).
    NoTranspose,
    // Column c of Q, K, V is column 3c, 3c + 1, 3c + 2 of qkv: the (T, D, 3)
    // view, as if the three were interleaved feature by feature.
    Interleaved,
};

Result fused_qkv_split_as(QkvSplit split, const Args& a) {
    const FusedQKV right = fused_qkv_projection(a.matrix("x"), a.matrix("w_qkv"));
    const Matrix& qkv = right.qkv;
    const Index T = qkv.rows(), D = qkv.cols() / 3;
    Matrix parts[3] = {Matrix(T, D), Matrix(T, D), Matrix(T, D)};
    for (Index p = 0; p < 3; ++p)
        for (Index t = 0; t < T; ++t)
            for (Index c = 0; c < D; ++c) {
                if (split == QkvSplit::Interleaved) {
                    parts[p](t, c) = qkv(t, 3 * c + p);
                } else {
                    const Index flat = (p * T + t) * D + c;  // position in qkv's buffer
                    parts[p](t, c) = qkv(flat / (3 * D), flat % (3 * D));
                }
            }
    const QKV qkv_split{parts[0], parts[1], parts[2]};
    std::vector<NamedTensor> stages = qkv_stages(qkv_split);
    stages.insert(stages.begin(), {"qkv", from_matrix(qkv)});
    return tensor_result(stacked_qkv(qkv_split), std::move(stages));
}

// ---------------------------------------------------------------- scores

// What the learner divides Q·Kᵀ by, besides the right √hd.
enum class ScoreScale {
    SqrtModelDim,  // √D with D = H·hd: the model's width, not the head's
    None,          // not at all
    HeadDim,       // hd: the square root forgotten
    SqrtSeqLen,    // √T: the sequence's length, not the dot product's
};

Result scores_scaled_by(ScoreScale scale, const Args& a) {
    const Heads q = a.matrices("q"), k = a.matrices("k");
    scaled_scores(q, k);  // the reference's checks: q and k are the same (H, T, hd), hd >= 1
    const double hd = static_cast<double>(q.front().cols());
    const double heads = static_cast<double>(q.size());
    const double tokens = static_cast<double>(q.front().rows());
    const double divisor = scale == ScoreScale::SqrtModelDim ? std::sqrt(heads * hd)
                           : scale == ScoreScale::HeadDim    ? hd
                           : scale == ScoreScale::SqrtSeqLen ? std::sqrt(tokens)
                                                             : 1.0;
    Heads scores;
    for (size_t h = 0; h < q.size(); ++h) scores.push_back(q[h] * k[h].transpose() / divisor);
    return tensor_result(from_matrices(scores));
}

// K·Qᵀ instead of Q·Kᵀ: row i holds key i's match with every query, the
// transpose of each head's right scores.
Result scores_transposed(const Args& a) {
    Heads scores = scaled_scores(a.matrices("q"), a.matrices("k"));
    for (Matrix& s : scores) s.transposeInPlace();
    return tensor_result(from_matrices(scores));
}

// ---------------------------------------------------------------- softmax


// The softmax taken over the second-to-last axis (the queries of a score
// matrix) instead of the last one: each column sums to 1, not each row.
Result softmax_wrong_axis(const Args& a) {
    const TensorData& t = a.tensor("x");
    if (t.ndim() < 2)
        fail("x: a softmax over the wrong axis needs at least 2 axes, got shape " +
             shape_to_string(t.shape));
    const Index rows = t.shape[static_cast<size_t>(t.ndim() - 2)], cols = t.shape.back();
    if (rows < 1 || cols < 1) fail("x: expected a non-empty tensor, got shape " + shape_to_string(t.shape));
    // Every axis before the last two counts matrices: view x as (N, rows, cols).
    Index matrices = 1;
    for (int i = 0; i + 2 < t.ndim(); ++i) matrices *= t.shape[static_cast<size_t>(i)];
    TensorData out = t;
    for (Index n = 0; n < matrices; ++n) {
        const float* in = t.data.data() + n * rows * cols;
        const Matrix by_columns = softmax_rows_unchecked(read_matrix(in, rows, cols).transpose());
        const TensorData part = from_matrix(by_columns.transpose());
        std::copy(part.data.begin(), part.data.end(), out.data.begin() + n * rows * cols);
    }
    return tensor_result(std::move(out));
}

// ---------------------------------------------------------------- weighted sum

// weightsᵀ · V: output row i mixes the values with column i of the weights,
// i.e. with how much every query attends to key i.
Result attend_weights_transposed(const Args& a) {
    const Heads weights = a.matrices("weights"), v = a.matrices("v");
    attend(weights, v);  // the reference's checks
    Heads out;
    for (size_t h = 0; h < weights.size(); ++h) {
        if (weights[h].rows() != weights[h].cols())
            fail("weights: the transposed product needs square (T, T) weights, got " +
                 shape_to_string(a.tensor("weights").shape));
        out.push_back(weights[h].transpose() * v[h]);
    }
    return tensor_result(from_matrices(out));
}

}  // namespace

void add_step_ops(std::vector<Op>& ops) {
    Op& qkv = op_named(ops, "qkv_projection");
    qkv.mistakes.push_back(
        make_mistake("projection_weights_transposed", "Q", projection_weights_transposed, qkv.params));

    Op& fused = op_named(ops, "fused_qkv");
    fused.mistakes.push_back(make_mistake(
        "qkv_split_without_transpose", "Q",
        [](const Args& a) { return fused_qkv_split_as(QkvSplit::NoTranspose, a); }, fused.params));
    fused.mistakes.push_back(make_mistake(
        "qkv_interleaved", "Q", [](const Args& a) { return fused_qkv_split_as(QkvSplit::Interleaved, a); },
        fused.params));

    Op& scores = op_named(ops, "attention_scores");
    const std::pair<const char*, ScoreScale> scales[] = {
        {"scale_sqrt_d", ScoreScale::SqrtModelDim},
        {"no_scale", ScoreScale::None},
        {"scale_by_hd", ScoreScale::HeadDim},
        {"scale_sqrt_t", ScoreScale::SqrtSeqLen},
    };
    for (const auto& [id, scale] : scales)
        scores.mistakes.push_back(make_mistake(
            id, "out", [scale = scale](const Args& a) { return scores_scaled_by(scale, a); }, scores.params));
    scores.mistakes.push_back(make_mistake("scores_transposed", "out", scores_transposed, scores.params));

    Op& softmax = op_named(ops, "softmax_rows");
    softmax.mistakes.push_back(make_mistake("softmax_wrong_axis", "out", softmax_wrong_axis, softmax.params));

    Op& weighted = op_named(ops, "attend");
    weighted.mistakes.push_back(
        make_mistake("weights_transposed", "out", attend_weights_transposed, weighted.params));
}

}  // namespace attnlab::reference::support
