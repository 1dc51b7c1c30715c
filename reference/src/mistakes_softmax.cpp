// The softmax without its max subtraction wherever a softmax is written
// (stable-softmax, why-many-heads; the full layers' forms are in
// mistakes_core.cpp), named from the stability case: the variant is computed
// in float like learner code, so it overflows and gives NaN exactly where
// theirs does. And the fused projection with each weight block transposed,
// or its three blocks taken in another order.
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "mistakes_support.hpp"

namespace attnlab::reference::support {

Matrix softmax_in_float(const Matrix& x, SoftmaxKind kind, double tensor_max) {
    Matrix out(x.rows(), x.cols());
    std::vector<float> e(static_cast<size_t>(x.cols()));
    for (Index i = 0; i < x.rows(); ++i) {
        float m = kind == SoftmaxKind::Stable ? -std::numeric_limits<float>::infinity() : 0.0f;
        if (kind == SoftmaxKind::GlobalMax || kind == SoftmaxKind::HeadMax) m = static_cast<float>(tensor_max);
        if (kind == SoftmaxKind::Stable || kind == SoftmaxKind::MaxFromZero)
            for (Index j = 0; j < x.cols(); ++j) m = std::fmax(m, static_cast<float>(x(i, j)));
        float sum = 0.0f;
        for (Index j = 0; j < x.cols(); ++j) sum += e[static_cast<size_t>(j)] = std::exp(static_cast<float>(x(i, j)) - m);
        for (Index j = 0; j < x.cols(); ++j) out(i, j) = e[static_cast<size_t>(j)] / sum;
    }
    return out;
}

namespace {

// softmax_rows's x (..., N) viewed as (rows, N), softmaxed with `kind`;
// `masked_zero`: a -inf cell written as 0 outright (a loop that skips the
// masked keys), even where the row's 0/0 makes the others NaN.
Result softmax_rows_as(SoftmaxKind kind, const Args& a, bool masked_zero = false) {
    const TensorData& t = a.tensor("x");
    if (t.ndim() < 1 || t.shape.back() < 1)
        fail("x: expected a tensor (..., N) with N >= 1, got shape " + shape_to_string(t.shape));
    Index rows = 1;
    for (int i = 0; i + 1 < t.ndim(); ++i) rows *= t.shape[static_cast<size_t>(i)];
    const Matrix x = read_matrix(t.data.data(), rows, t.shape.back());
    // The rows that share one max: the whole tensor (GlobalMax), one head's (HeadMax: a leading-axis slice).
    const Index group = kind == SoftmaxKind::HeadMax && t.ndim() >= 3 ? rows / t.shape.front() : rows;
    Matrix weights(x.rows(), x.cols());
    for (Index first = 0; first < rows; first += group) {
        const Matrix part = x.middleRows(first, group);
        double group_max = -std::numeric_limits<double>::infinity();
        for (Index i = 0; i < part.size(); ++i) group_max = std::fmax(group_max, part.data()[i]);
        weights.middleRows(first, group) = softmax_in_float(part, kind, group_max);
    }
    if (masked_zero)
        for (Index i = 0; i < x.size(); ++i)
            if (x.data()[i] == -std::numeric_limits<double>::infinity()) weights.data()[i] = 0.0;
    TensorData out = from_matrix(weights);
    out.shape = t.shape;
    return tensor_result(std::move(out));
}

void add_stable_softmax_forms(Op& op) {
    for (SoftmaxKind kind : {SoftmaxKind::NoMaxSubtraction, SoftmaxKind::MaxFromZero, SoftmaxKind::GlobalMax, SoftmaxKind::HeadMax})
        for (bool masked_zero : {false, true})
            op.mistakes.push_back(make_mistake(
                "softmax_without_max", "", [kind, masked_zero](const Args& a) { return softmax_rows_as(kind, a, masked_zero); },
                op.params));
}

// why-many-heads with a softmax that does not subtract the max: slice 0 the
// wide head, slices 1..H the narrow ones, as one_vs_many_heads stacks them.
Result heads_without_max(SoftmaxKind kind, const Args& a) {
    const Op* right = find_op("one_vs_many_heads");
    const Result checked = right->run({{"x", Value::of_tensor(a.tensor("x"))},
                                       {"w_q", Value::of_tensor(a.tensor("w_q"))},
                                       {"w_k", Value::of_tensor(a.tensor("w_k"))},
                                       {"n_heads", Value::of_int(a.int64("n_heads"))}});
    (void)checked;  // the reference's checks, and its masked scores below
    const Matrix q = a.matrix("x") * a.matrix("w_q"), k = a.matrix("x") * a.matrix("w_k");
    const int n_heads = a.integer("n_heads");
    Heads scores{q * k.transpose() / std::sqrt(static_cast<double>(q.cols()))};
    for (size_t h = 0; h < static_cast<size_t>(n_heads); ++h) {
        const Heads qh = split_heads(q, n_heads), kh = split_heads(k, n_heads);
        scores.push_back(qh[h] * kh[h].transpose() / std::sqrt(static_cast<double>(qh[h].cols())));
    }
    Heads masked, weights;
    for (const Matrix& s : scores) {
        masked.push_back(causal_mask(s));
        weights.push_back(softmax_in_float(masked.back(), kind));
    }
    const TensorData w = from_matrices(weights);
    return tensor_result(w, {{"scores", from_matrices(scores)}, {"masked", from_matrices(masked)}, {"weights", w}});
}

void add_head_comparison_forms(Op& op) {
    for (SoftmaxKind kind : {SoftmaxKind::NoMaxSubtraction, SoftmaxKind::MaxFromZero})
        op.mistakes.push_back(make_mistake(
            "softmax_without_max", "weights", [kind](const Args& a) { return heads_without_max(kind, a); }, op.params));
}

// Each (D, D) block of W_QKV used transposed: Q = X·W_Qᵀ and so on, the habit
// of PyTorch's nn.Linear (weight stored (out, in)) applied block by block.
Result fused_blocks_transposed(const Args& a) {
    const Matrix x = a.matrix("x"), w = a.matrix("w_qkv");
    const FusedQKV right = fused_qkv_projection(x, w);  // the reference's checks
    const Index d = x.cols();
    const QKV qkv{x * w.middleCols(0, d).transpose(), x * w.middleCols(d, d).transpose(),
                  x * w.middleCols(2 * d, d).transpose()};
    std::vector<NamedTensor> stages = qkv_stages(qkv);
    Matrix joined(x.rows(), 3 * d);
    joined << qkv.q, qkv.k, qkv.v;
    stages.insert(stages.begin(), {"qkv", from_matrix(joined)});
    (void)right;
    return tensor_result(stacked_qkv(qkv), std::move(stages));
}

// W_QKV's buffer read as nn.Linear stores a weight, (out, in) = (3D, D):
// element (c, k) of that matrix at c·D + k, and the product X·(that)ᵀ. A
// kernel indexing w[col·D + k] instead of w[k·3D + col] computes it.
Result fused_buffer_read_out_in(const Args& a) {
    const FusedQKV right = fused_qkv_projection(a.matrix("x"), a.matrix("w_qkv"));  // the reference's checks
    const Matrix x = a.matrix("x");
    const Index d = x.cols();
    const Matrix w_out_in = read_matrix(a.tensor("w_qkv").data.data(), 3 * d, d);
    const Matrix joined = x * w_out_in.transpose();
    const QKV qkv{joined.middleCols(0, d), joined.middleCols(d, d), joined.middleCols(2 * d, d)};
    std::vector<NamedTensor> stages = qkv_stages(qkv);
    stages.insert(stages.begin(), {"qkv", from_matrix(joined)});
    (void)right;
    return tensor_result(stacked_qkv(qkv), std::move(stages));
}

// Q, K and V cut from the right product in another order: block p of
// X·W_QKV read as part order[p] (K | Q | V, V | K | Q, ...).
Result fused_blocks_in_order(const std::array<int, 3>& order, const Args& a) {
    const FusedQKV right = fused_qkv_projection(a.matrix("x"), a.matrix("w_qkv"));  // the reference's checks
    const Index d = right.split.q.cols();
    Matrix parts[3];
    for (int p = 0; p < 3; ++p) parts[p] = right.qkv.middleCols(order[static_cast<size_t>(p)] * d, d);
    const QKV qkv{parts[0], parts[1], parts[2]};
    std::vector<NamedTensor> stages = qkv_stages(qkv);
    stages.insert(stages.begin(), {"qkv", from_matrix(right.qkv)});
    return tensor_result(stacked_qkv(qkv), std::move(stages));
}

// The fused projection on tensor cores with a fragment loaded in the wrong
// way, as a kernel over 16 x 16 tiles computes it: x padded with zero rows to
// whole tiles (Tp, D), W_QKV (D, N) read from its row-major buffer.
// - `a_col_major` / `b_col_major`: the fragment declared col_major for a
//   row-major matrix: every 16 x 16 tile of x or of W used transposed.
// - `b_ldm` (0: N, right): W's tile rows read `b_ldm` floats apart (ldm = D,
//   x's width, instead of W's N).
struct WmmaLoad {
    bool a_col_major = false, b_col_major = false;
    Index b_ldm = 0;
};

Result fused_wmma_as(const WmmaLoad& how, const Args& a) {
    const FusedQKV right = fused_qkv_projection(a.matrix("x"), a.matrix("w_qkv"));  // the reference's checks
    const Matrix x = a.matrix("x");
    const TensorData& w = a.tensor("w_qkv");
    const Index t = x.rows(), d = x.cols(), n = 3 * d, tile = 16, tp = (t + tile - 1) / tile * tile;
    if (d % tile != 0) fail("x: a tensor-core tiling needs D a multiple of 16");
    Matrix xa = Matrix::Zero(tp, d);
    for (Index i = 0; i < tp; ++i)
        for (Index k = 0; k < d; ++k) {
            const Index r = how.a_col_major ? i / tile * tile + k % tile : i, c = how.a_col_major ? k / tile * tile + i % tile : k;
            xa(i, k) = r < t ? x(r, c) : 0.0;
        }
    const Index ldm = how.b_ldm > 0 ? how.b_ldm : n;
    Matrix wb(d, n);
    for (Index k = 0; k < d; ++k)
        for (Index j = 0; j < n; ++j) {
            const Index k0 = k / tile * tile, r = k % tile, c = j % tile, base = k0 * n + j / tile * tile;
            const Index at = how.b_col_major ? base + c * ldm + r : base + r * ldm + c;
            if (at >= d * n) fail("w_qkv: this ldm reads past the buffer");
            wb(k, j) = w.data[static_cast<size_t>(at)];
        }
    const Matrix joined = (xa * wb).topRows(t);
    const QKV qkv{joined.middleCols(0, d), joined.middleCols(d, d), joined.middleCols(2 * d, d)};
    std::vector<NamedTensor> stages = qkv_stages(qkv);
    stages.insert(stages.begin(), {"qkv", from_matrix(joined)});
    (void)right;
    return tensor_result(stacked_qkv(qkv), std::move(stages));
}

}  // namespace

void add_softmax_mistakes(std::vector<Op>& ops) {
    add_stable_softmax_forms(op_named(ops, "softmax_rows"));
    add_head_comparison_forms(op_named(ops, "one_vs_many_heads"));
    Op& fused = op_named(ops, "fused_qkv");
    fused.mistakes.push_back(make_mistake("projection_weights_transposed", "qkv", fused_blocks_transposed, fused.params));
    fused.mistakes.push_back(make_mistake("projection_weights_transposed", "qkv", fused_buffer_read_out_in, fused.params));
    // Every order of the three blocks but the right one.
    const std::array<int, 3> orders[] = {{1, 0, 2}, {0, 2, 1}, {2, 1, 0}, {1, 2, 0}, {2, 0, 1}};
    for (const auto& order : orders)
        fused.mistakes.push_back(make_mistake(
            "qkv_blocks_out_of_order", "Q", [order](const Args& a) { return fused_blocks_in_order(order, a); }, fused.params));
    // Tensor-core forms (cuda-tensor-core-qkv lists them; a C++ exercise of the op cannot make them).
    for (const WmmaLoad how : {WmmaLoad{true, false, 0}, WmmaLoad{false, true, 0}, WmmaLoad{true, true, 0}})
        fused.mistakes.push_back(make_mistake("wmma_layout_mismatch", "qkv", [how](const Args& a) { return fused_wmma_as(how, a); }, fused.params));
    // ldm = D (x's width) for W, whose rows are N = 3D apart: a row-major B tile is read within W's first third of rows.
    fused.mistakes.push_back(make_mistake(
        "wmma_ldm_wrong", "qkv",
        [](const Args& a) { return fused_wmma_as(WmmaLoad{false, false, a.matrix("x").cols()}, a); }, fused.params));
}

}  // namespace attnlab::reference::support
