// The Eigen reference, step by step. See ops.hpp for the shape contract of each
// function. Loops are written out where they make the math easier to read.
#include "attnlab/reference/ops.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace attnlab::reference {

namespace {

using Index = Eigen::Index;

constexpr double kInf = std::numeric_limits<double>::infinity();

[[noreturn]] void fail(const std::string& message) { throw ReferenceError(message); }

std::string shape_str(Index rows, Index cols) {
    return "(" + std::to_string(rows) + ", " + std::to_string(cols) + ")";
}

std::string shape_str(const Matrix& m) { return shape_str(m.rows(), m.cols()); }

// Shape of a non-empty, uniform stack of matrices: "(H, T, hd)".
std::string shape_str(const std::vector<Matrix>& stack) {
    return "(" + std::to_string(stack.size()) + ", " + std::to_string(stack.front().rows()) + ", " +
           std::to_string(stack.front().cols()) + ")";
}

void expect_shape(const Matrix& m, Index rows, Index cols, const std::string& name) {
    if (m.rows() != rows || m.cols() != cols)
        fail(name + ": expected shape " + shape_str(rows, cols) + ", got " + shape_str(m));
}

// A stack of matrices (heads, or sequences in a batch) is one tensor only if it
// is non-empty and every matrix has the shape of the first.
void expect_uniform(const std::vector<Matrix>& stack, const std::string& name, const char* what) {
    if (stack.empty()) fail(name + ": expected at least one " + what + ", got none");
    for (size_t i = 1; i < stack.size(); ++i) {
        if (stack[i].rows() != stack[0].rows() || stack[i].cols() != stack[0].cols())
            fail(name + "[" + std::to_string(i) + "]: expected shape " + shape_str(stack[0]) +
                 " like " + name + "[0], got " + shape_str(stack[i]));
    }
}

// Two uniform stacks that must have the same (H, T, hd).
void expect_same_heads(const Heads& ref, const std::string& ref_name, const Heads& other,
                       const std::string& name) {
    expect_uniform(ref, ref_name, "head");
    expect_uniform(other, name, "head");
    if (other.size() != ref.size() || other[0].rows() != ref[0].rows() ||
        other[0].cols() != ref[0].cols())
        fail(name + ": expected shape " + shape_str(ref) + " like " + ref_name + ", got " +
             shape_str(other));
}

// hd = D / H, or a ReferenceError when the split is impossible.
Index head_dim(Index d_model, int n_heads) {
    if (n_heads < 1) fail("n_heads: expected at least 1, got " + std::to_string(n_heads));
    if (d_model % n_heads != 0)
        fail("n_heads: D = " + std::to_string(d_model) +
             " is not divisible by n_heads = " + std::to_string(n_heads));
    return d_model / n_heads;
}

}  // namespace

// ---------------------------------------------------------------- projections

Matrix linear(const Matrix& x, const Matrix& w) {
    if (w.rows() != x.cols())
        fail("w: expected shape (" + std::to_string(x.cols()) + ", Dout) to match the " +
             std::to_string(x.cols()) + " columns of x, got " + shape_str(w));
    return x * w;
}

QKV qkv_projection(const Matrix& x, const Matrix& w_q, const Matrix& w_k, const Matrix& w_v) {
    const Index d = x.cols();
    expect_shape(w_q, d, d, "w_q");
    expect_shape(w_k, d, d, "w_k");
    expect_shape(w_v, d, d, "w_v");
    return {linear(x, w_q), linear(x, w_k), linear(x, w_v)};
}

FusedQKV fused_qkv_projection(const Matrix& x, const Matrix& w_qkv) {
    const Index d = x.cols();
    expect_shape(w_qkv, d, 3 * d, "w_qkv");
    FusedQKV result;
    result.qkv = linear(x, w_qkv);
    // Columns [0, D) are Q, [D, 2D) are K, [2D, 3D) are V.
    result.split.q = result.qkv.middleCols(0, d);
    result.split.k = result.qkv.middleCols(d, d);
    result.split.v = result.qkv.middleCols(2 * d, d);
    return result;
}

// ---------------------------------------------------------------------- heads

Heads split_heads(const Matrix& x, int n_heads) {
    const Index hd = head_dim(x.cols(), n_heads);
    Heads heads;
    heads.reserve(static_cast<size_t>(n_heads));
    for (int h = 0; h < n_heads; ++h)
        heads.push_back(x.middleCols(h * hd, hd));
    return heads;
}

Matrix merge_heads(const Heads& heads) {
    expect_uniform(heads, "heads", "head");
    const Index hd = heads[0].cols();
    Matrix x(heads[0].rows(), static_cast<Index>(heads.size()) * hd);
    for (size_t h = 0; h < heads.size(); ++h)
        x.middleCols(static_cast<Index>(h) * hd, hd) = heads[h];
    return x;
}

// ------------------------------------------------------------------ attention

Matrix scaled_scores(const Matrix& q, const Matrix& k) {
    expect_shape(k, q.rows(), q.cols(), "k");
    if (q.cols() < 1) fail("q: expected a head width hd >= 1, got shape " + shape_str(q));
    const double scale = 1.0 / std::sqrt(static_cast<double>(q.cols()));
    return (q * k.transpose()) * scale;
}

Matrix causal_mask(const Matrix& scores) {
    if (scores.rows() != scores.cols())
        fail("scores: expected a square (T, T) matrix, got " + shape_str(scores));
    Matrix masked = scores;
    for (Index i = 0; i < masked.rows(); ++i)          // query row
        for (Index j = i + 1; j < masked.cols(); ++j)  // keys in the future of i
            masked(i, j) = -kInf;
    return masked;
}

namespace {
// Names the first row (and its first bad value) that has no softmax: the
// message softmax_rows gives. Rare, so plain row-by-row scans are fine here.
[[noreturn]] void fail_on_undefined_row(const Matrix& x) {
    for (Index i = 0; i < x.rows(); ++i) {
        for (Index j = 0; j < x.cols(); ++j) {
            const double value = x(i, j);
            if (std::isnan(value) || value == kInf)
                fail("x: row " + std::to_string(i) + " contains " + (std::isnan(value) ? "NaN" : "+inf") +
                     "; its softmax is undefined");
        }
        if (x.row(i).maxCoeff() == -kInf)
            fail("x: row " + std::to_string(i) + " is entirely -inf; its softmax is undefined (0/0)");
    }
    fail("x: a row has no softmax");
}
}  // namespace

// Matrix is column-major: a row's values lie x.rows() doubles apart, so a
// row-at-a-time loop misses the cache on every value of a 1024 x 1024 score
// matrix. Every pass below walks whole columns instead, doing for each row the
// same operations in the same order (max, then exp and sum over j = 0, 1, ...,
// then the division), so the result is bit for bit the row-at-a-time one.
Matrix softmax_rows(const Matrix& x) {
    if (x.cols() < 1) fail("x: expected at least one column, got shape " + shape_str(x));
    const auto values = x.array();
    if ((values.isNaN() || values == kInf).any()) fail_on_undefined_row(x);
    Eigen::VectorXd row_max = x.col(0);
    for (Index j = 1; j < x.cols(); ++j) row_max = row_max.cwiseMax(x.col(j));
    if ((row_max.array() == -kInf).any()) fail_on_undefined_row(x);
    Matrix out(x.rows(), x.cols());
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(x.rows());
    for (Index j = 0; j < x.cols(); ++j) {
        // exp(-inf) is exactly 0; each row's sum is >= 1: its max gives exp(0).
        out.col(j) = (x.col(j) - row_max).unaryExpr([](double v) { return std::exp(v); });
        sum += out.col(j);
    }
    for (Index j = 0; j < x.cols(); ++j) out.col(j).array() /= sum.array();
    return out;
}

Matrix attend(const Matrix& weights, const Matrix& v) {
    if (v.rows() != weights.cols())
        fail("v: expected shape (" + std::to_string(weights.cols()) + ", hd) to match the " +
             std::to_string(weights.cols()) + " columns of weights, got " + shape_str(v));
    return weights * v;
}

// ------------------------------------------------------- the same, per head
// Heads never exchange information inside attention: each overload below runs
// the single-matrix version once per head.

Heads scaled_scores(const Heads& q, const Heads& k) {
    expect_same_heads(q, "q", k, "k");
    Heads scores;
    for (size_t h = 0; h < q.size(); ++h)
        scores.push_back(scaled_scores(q[h], k[h]));
    return scores;
}

Heads causal_mask(const Heads& scores) {
    expect_uniform(scores, "scores", "head");
    Heads masked;
    for (const Matrix& s : scores)
        masked.push_back(causal_mask(s));
    return masked;
}

Heads softmax_rows(const Heads& x) {
    expect_uniform(x, "x", "head");
    Heads weights;
    for (const Matrix& m : x)
        weights.push_back(softmax_rows(m));
    return weights;
}

Heads attend(const Heads& weights, const Heads& v) {
    expect_uniform(weights, "weights", "head");
    expect_uniform(v, "v", "head");
    if (v.size() != weights.size())
        fail("v: expected " + std::to_string(weights.size()) + " heads like weights, got " +
             std::to_string(v.size()));
    Heads out;
    for (size_t h = 0; h < v.size(); ++h)
        out.push_back(attend(weights[h], v[h]));
    return out;
}

AttentionWeights causal_attention_weights(const Heads& q, const Heads& k) {
    AttentionWeights result;
    result.scores = scaled_scores(q, k);
    result.masked = causal_mask(result.scores);
    result.weights = softmax_rows(result.masked);
    return result;
}

Matrix output_projection(const Matrix& concat, const Matrix& w_o) {
    expect_shape(w_o, concat.cols(), concat.cols(), "w_o");
    return concat * w_o;
}

// -------------------------------------------------------------- full layer

MhsaStages causal_mhsa_from_qkv(const QKV& qkv, const Matrix& w_o, int n_heads) {
    expect_shape(qkv.k, qkv.q.rows(), qkv.q.cols(), "K");
    expect_shape(qkv.v, qkv.q.rows(), qkv.q.cols(), "V");
    expect_shape(w_o, qkv.q.cols(), qkv.q.cols(), "w_o");

    MhsaStages s;
    s.q = qkv.q;
    s.k = qkv.k;
    s.v = qkv.v;
    const Heads q_heads = split_heads(s.q, n_heads);
    const Heads k_heads = split_heads(s.k, n_heads);
    const Heads v_heads = split_heads(s.v, n_heads);

    AttentionWeights aw = causal_attention_weights(q_heads, k_heads);
    s.scores = std::move(aw.scores);
    s.masked = std::move(aw.masked);
    s.weights = std::move(aw.weights);

    s.heads = attend(s.weights, v_heads);
    s.concat = merge_heads(s.heads);
    s.out = output_projection(s.concat, w_o);
    return s;
}

MhsaStages causal_mhsa(const Matrix& x, const Matrix& w_q, const Matrix& w_k, const Matrix& w_v,
                       const Matrix& w_o, int n_heads) {
    return causal_mhsa_from_qkv(qkv_projection(x, w_q, w_k, w_v), w_o, n_heads);
}

MhsaStages fused_causal_mhsa(const Matrix& x, const Matrix& w_qkv, const Matrix& w_o, int n_heads) {
    return causal_mhsa_from_qkv(fused_qkv_projection(x, w_qkv).split, w_o, n_heads);
}

// ------------------------------------------------------------------- batches

std::vector<Heads> batched_split_heads(const Batch& x, int n_heads) {
    expect_uniform(x, "x", "sequence");
    std::vector<Heads> out;
    for (const Matrix& sequence : x)
        out.push_back(split_heads(sequence, n_heads));
    return out;
}

std::vector<MhsaStages> batched_causal_mhsa(const Batch& x, const Matrix& w_q, const Matrix& w_k,
                                            const Matrix& w_v, const Matrix& w_o, int n_heads) {
    expect_uniform(x, "x", "sequence");
    std::vector<MhsaStages> out;
    for (const Matrix& sequence : x)
        out.push_back(causal_mhsa(sequence, w_q, w_k, w_v, w_o, n_heads));
    return out;
}

// ------------------------------------------------------------------- counting

int64_t attention_params(int64_t d_model, int64_t n_layers) {
    if (d_model < 1) fail("d_model: expected at least 1, got " + std::to_string(d_model));
    if (n_layers < 1) fail("n_layers: expected at least 1, got " + std::to_string(n_layers));
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    if (d_model > kMax / 4 / d_model || 4 * d_model * d_model > kMax / n_layers)
        fail("attention_params: 4 * d_model^2 * n_layers does not fit in 64 bits");
    const int64_t per_layer = 4 * d_model * d_model;  // W_Q, W_K, W_V, W_O: (D, D) each
    return per_layer * n_layers;
}

}  // namespace attnlab::reference
