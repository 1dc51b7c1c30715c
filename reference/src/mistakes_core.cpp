// Mistakes catalogued for the core ops: split_heads, causal_mask,
// merge_project, causal_mhsa, and every one of the layer's mistakes inside
// batched_causal_mhsa. Each variant is the op computed from the same
// inputs with one thing done the way learners really get it wrong, in double,
// so that the runner can say which mistake a wrong output matches. The words
// for the learner are in exercises/mistakes/<id>.json.
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "mistakes_support.hpp"

namespace attnlab::reference::support {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ------------------------------------------------------------------ layouts
// The two wrong ways to cut a (T, D) matrix into heads, and their inverses.

// Head h takes every H-th column starting at h: column c of head h is column
// c·H + h of x. What reshaping to (T, hd, H) instead of (T, H, hd) gives.
Heads split_interleaved(const Matrix& x, int n_heads) {
    const Index hd = split_heads(x, n_heads).front().cols();  // checks n_heads divides D
    Heads heads(static_cast<size_t>(n_heads), Matrix(x.rows(), hd));
    for (int h = 0; h < n_heads; ++h)
        for (Index c = 0; c < hd; ++c) heads[static_cast<size_t>(h)].col(c) = x.col(c * n_heads + h);
    return heads;
}

// The inverse of split_interleaved: column c of head h goes to column c·H + h.
Matrix merge_interleaved(const Heads& heads) {
    const Index hd = heads.front().cols();
    const Index n_heads = static_cast<Index>(heads.size());
    Matrix x(heads.front().rows(), n_heads * hd);
    for (Index h = 0; h < n_heads; ++h)
        for (Index c = 0; c < hd; ++c) x.col(c * n_heads + h) = heads[static_cast<size_t>(h)].col(c);
    return x;
}

// The row-major buffer of x read as (H, T, hd) without the transpose: head 0
// gets the first T·hd numbers of the buffer, i.e. whole rows of x.
Heads split_flat(const Matrix& x, int n_heads) {
    const Index hd = split_heads(x, n_heads).front().cols();
    const Index T = x.rows(), D = x.cols();
    Heads heads(static_cast<size_t>(n_heads), Matrix(T, hd));
    for (Index flat = 0; flat < T * D; ++flat) {
        const Index h = flat / (T * hd), t = (flat / hd) % T, c = flat % hd;
        heads[static_cast<size_t>(h)](t, c) = x(flat / D, flat % D);
    }
    return heads;
}

// The row-major buffer of (H, T, hd) read as (T, D) without the transpose.
Matrix merge_flat(const Heads& heads) {
    const Index hd = heads.front().cols(), T = heads.front().rows();
    const Index D = static_cast<Index>(heads.size()) * hd;
    Matrix x(T, D);
    for (Index flat = 0; flat < T * D; ++flat)
        x(flat / D, flat % D) = heads[static_cast<size_t>(flat / (T * hd))]((flat / hd) % T, flat % hd);
    return x;
}

enum class Layout { Blocks, Interleaved, Flat };

Heads split_as(Layout layout, const Matrix& x, int n_heads) {
    switch (layout) {
        case Layout::Interleaved: return split_interleaved(x, n_heads);
        case Layout::Flat: return split_flat(x, n_heads);
        case Layout::Blocks: break;
    }
    return split_heads(x, n_heads);
}

Matrix merge_as(Layout layout, const Heads& heads) {
    switch (layout) {
        case Layout::Interleaved: return merge_interleaved(heads);
        case Layout::Flat: return merge_flat(heads);
        case Layout::Blocks: break;
    }
    return merge_heads(heads);
}

// -------------------------------------------------------------------- masks

enum class Mask {
    Causal,                // j > i is -inf (the right one)
    IncludesDiagonal,      // j >= i: a token may not even see itself
    MissesFirstFutureKey,  // j > i + 1: the loop starts one key too late
    WithZero,              // j > i is 0 instead of -inf
    WithLargeNegative,     // j > i is -1e9 instead of -inf
    BelowDiagonal,         // j < i: hides the past and keeps the future
    None,                  // no mask (before a mask applied after the softmax)
};

bool hidden(Mask mask, Index i, Index j) {
    switch (mask) {
        case Mask::IncludesDiagonal: return j >= i;
        case Mask::MissesFirstFutureKey: return j > i + 1;
        case Mask::BelowDiagonal: return j < i;
        case Mask::None: return false;
        case Mask::Causal:
        case Mask::WithZero:
        case Mask::WithLargeNegative: break;
    }
    return j > i;
}

// `large_negative`: what Mask::WithLargeNegative fills with.
Matrix apply_mask(Mask mask, const Matrix& scores, double large_negative = kLargeNegativeFills[0]) {
    const double fill = mask == Mask::WithZero ? 0.0 : mask == Mask::WithLargeNegative ? large_negative : -kInf;
    causal_mask(scores);  // the reference's check: throws unless scores is square
    Matrix masked = scores;
    for (Index i = 0; i < masked.rows(); ++i)
        for (Index j = 0; j < masked.cols(); ++j)
            if (hidden(mask, i, j)) masked(i, j) = fill;
    return masked;
}

Heads apply_mask(Mask mask, const Heads& scores, double large_negative = kLargeNegativeFills[0]) {
    Heads masked;
    for (const Matrix& s : scores) masked.push_back(apply_mask(mask, s, large_negative));
    return masked;
}


// --------------------------------------------------------------- full layer

enum class Scale { SqrtHd, SqrtD, HeadDim, SqrtT, None };
enum class From { Q, K, V };  // which projection a tensor really comes from
enum class OutputProjection { WO, None, WOTransposed };

// One way of computing causal MHSA: the default is the right one, and each
// mistake changes one field. The same fields describe the mistake wherever it
// happens: in its own exercise or inside the full layer (causal-mhsa,
// batched-mhsa).
struct MhsaVariant {
    bool projections_transposed = false;  // X·Wᵀ for every projection
    From keys = From::K;                  // K computed with W_Q: From::Q
    Layout split = Layout::Blocks;        // how Q, K and V are cut into heads
    Layout merge = Layout::Blocks;        // how the heads are put side by side again
    Scale scale = Scale::SqrtHd;
    bool scores_transposed = false;       // K·Qᵀ
    Mask mask = Mask::Causal;
    bool mask_after_softmax = false;      // softmax over every key, then zero the future
    bool softmax_over_queries = false;
    SoftmaxKind softmax = SoftmaxKind::Stable;
    bool masked_zero = false;             // the masked cells' weights written as 0 outright (a loop over visible keys)
    bool weights_transposed = false;      // weightsᵀ·V
    From values = From::V;
    bool last_head_skipped = false;       // the loop over heads stops one short: its columns stay 0
    OutputProjection projection = OutputProjection::WO;
};

// The inputs of one layer on one sequence.
struct LayerInputs {
    Matrix x, w_q, w_k, w_v, w_o;
    int n_heads = 1;
};

LayerInputs layer_inputs(const Args& a) {
    return {a.matrix("x"), a.matrix("w_q"), a.matrix("w_k"), a.matrix("w_v"), a.matrix("w_o"), a.integer("n_heads")};
}

Matrix variant_softmax(const MhsaVariant& v, const Matrix& masked) {
    const Matrix m = v.softmax_over_queries ? Matrix(masked.transpose()) : masked;
    Matrix w = v.softmax == SoftmaxKind::Stable ? softmax_rows_unchecked(m) : softmax_in_float(m, v.softmax);
    if (v.softmax_over_queries) w.transposeInPlace();
    if (v.masked_zero)
        for (Index i = 0; i < w.size(); ++i)
            if (masked.data()[i] == -kInf) w.data()[i] = 0.0;
    if (v.mask_after_softmax)
        for (Index i = 0; i < w.rows(); ++i)
            for (Index j = i + 1; j < w.cols(); ++j) w(i, j) = 0.0;
    return w;
}

// hd: a head's width, d: the model's, t: the number of tokens.
double score_scale(Scale scale, double hd, double d, double t) {
    switch (scale) {
        case Scale::SqrtD: return 1.0 / std::sqrt(d);
        case Scale::SqrtT: return 1.0 / std::sqrt(t);
        case Scale::HeadDim: return 1.0 / hd;
        case Scale::None: return 1.0;
        case Scale::SqrtHd: break;
    }
    return 1.0 / std::sqrt(hd);
}

MhsaStages run_mhsa_variant(const MhsaVariant& v, const LayerInputs& in) {
    MhsaStages s;
    const QKV right = qkv_projection(in.x, in.w_q, in.w_k, in.w_v);  // the reference's checks
    output_projection(right.q, in.w_o);  // the reference's check: throws unless w_o is (D, D)
    auto project = [&](const Matrix& w) { return v.projections_transposed ? Matrix(in.x * w.transpose()) : Matrix(in.x * w); };
    s.q = project(in.w_q);
    s.k = project(v.keys == From::Q ? in.w_q : in.w_k);
    s.v = project(in.w_v);
    const Matrix& value_source = v.values == From::K ? s.k : v.values == From::Q ? s.q : s.v;

    const Heads q = split_as(v.split, s.q, in.n_heads);
    const Heads k = split_as(v.split, s.k, in.n_heads);
    const Heads values = split_as(v.split, value_source, in.n_heads);
    const double scale = score_scale(v.scale, static_cast<double>(q.front().cols()), static_cast<double>(s.q.cols()),
                                     static_cast<double>(s.q.rows()));
    for (size_t h = 0; h < q.size(); ++h)
        s.scores.push_back(v.scores_transposed ? Matrix(k[h] * q[h].transpose() * scale) : Matrix(q[h] * k[h].transpose() * scale));
    s.masked = apply_mask(v.mask_after_softmax ? Mask::None : v.mask, s.scores);
    for (const Matrix& m : s.masked) s.weights.push_back(variant_softmax(v, m));
    for (size_t h = 0; h < q.size(); ++h)
        s.heads.push_back(v.weights_transposed ? Matrix(s.weights[h].transpose() * values[h]) : Matrix(s.weights[h] * values[h]));
    if (v.last_head_skipped) s.heads.back().setZero();
    s.concat = merge_as(v.merge, s.heads);
    s.out = v.projection == OutputProjection::None           ? s.concat
            : v.projection == OutputProjection::WOTransposed ? Matrix(s.concat * in.w_o.transpose())
                                                             : Matrix(s.concat * in.w_o);
    return s;
}

// The batched layer: the variant on every sequence, stages stacked along B.
Result run_batched_variant(const MhsaVariant& v, const Args& a) {
    const std::vector<Matrix> xs = a.matrices("x");
    LayerInputs in{Matrix(), a.matrix("w_q"), a.matrix("w_k"), a.matrix("w_v"), a.matrix("w_o"), a.integer("n_heads")};
    (void)batched_causal_mhsa(xs, in.w_q, in.w_k, in.w_v, in.w_o, in.n_heads);  // the reference's checks
    std::vector<std::vector<NamedTensor>> per_sequence;
    for (const Matrix& x : xs) {
        in.x = x;
        per_sequence.push_back(mhsa_stages(run_mhsa_variant(v, in)));
    }
    return batched_layer_result(per_sequence);
}

// One form of a mistake inside the full layer: its id, the stage where it
// starts, and the one field it changes. A mistake may have several forms
// (heads interleaved in the split, in the merge, or in both).
struct LayerMistake {
    const char* id;
    const char* stage;
    void (*change)(MhsaVariant&);
};

const LayerMistake kLayerMistakes[] = {
    {"projection_weights_transposed", "Q", [](MhsaVariant& v) { v.projections_transposed = true; }},
    {"k_from_w_q", "K", [](MhsaVariant& v) { v.keys = From::Q; }},
    {"heads_interleaved", "scores", [](MhsaVariant& v) { v.split = v.merge = Layout::Interleaved; }},
    {"heads_interleaved", "scores", [](MhsaVariant& v) { v.split = Layout::Interleaved; }},
    {"heads_interleaved", "concat", [](MhsaVariant& v) { v.merge = Layout::Interleaved; }},
    {"split_without_transpose", "scores", [](MhsaVariant& v) { v.split = v.merge = Layout::Flat; }},
    {"split_without_transpose", "scores", [](MhsaVariant& v) { v.split = Layout::Flat; }},
    {"merge_without_transpose", "concat", [](MhsaVariant& v) { v.merge = Layout::Flat; }},
    {"scale_sqrt_d", "scores", [](MhsaVariant& v) { v.scale = Scale::SqrtD; }},
    {"no_scale", "scores", [](MhsaVariant& v) { v.scale = Scale::None; }},
    {"scale_by_hd", "scores", [](MhsaVariant& v) { v.scale = Scale::HeadDim; }},
    {"scale_sqrt_t", "scores", [](MhsaVariant& v) { v.scale = Scale::SqrtT; }},
    {"scores_transposed", "scores", [](MhsaVariant& v) { v.scores_transposed = true; }},
    {"mask_missing", "masked", [](MhsaVariant& v) { v.mask = Mask::None; }},
    {"mask_below_diagonal", "masked", [](MhsaVariant& v) { v.mask = Mask::BelowDiagonal; }},
    {"mask_includes_diagonal", "masked", [](MhsaVariant& v) { v.mask = Mask::IncludesDiagonal; }},
    {"mask_misses_first_future_key", "masked", [](MhsaVariant& v) { v.mask = Mask::MissesFirstFutureKey; }},
    {"mask_with_zero", "masked", [](MhsaVariant& v) { v.mask = Mask::WithZero; }},
    {"mask_after_softmax", "weights", [](MhsaVariant& v) { v.mask_after_softmax = true; }},
    {"softmax_wrong_axis", "weights", [](MhsaVariant& v) { v.softmax_over_queries = true; }},
    {"softmax_without_max", "weights", [](MhsaVariant& v) { v.softmax = SoftmaxKind::NoMaxSubtraction; }},
    {"softmax_without_max", "weights", [](MhsaVariant& v) { v.softmax = SoftmaxKind::MaxFromZero; }},
    {"softmax_without_max", "weights", [](MhsaVariant& v) { v.softmax = SoftmaxKind::NoMaxSubtraction, v.masked_zero = true; }},
    {"softmax_without_max", "weights", [](MhsaVariant& v) { v.softmax = SoftmaxKind::MaxFromZero, v.masked_zero = true; }},
    {"weights_transposed", "heads", [](MhsaVariant& v) { v.weights_transposed = true; }},
    {"k_used_as_v", "heads", [](MhsaVariant& v) { v.values = From::K; }},
    {"q_used_as_v", "heads", [](MhsaVariant& v) { v.values = From::Q; }},
    {"last_head_skipped", "heads", [](MhsaVariant& v) { v.last_head_skipped = true; }},
    {"w_o_forgotten", "out", [](MhsaVariant& v) { v.projection = OutputProjection::None; }},
    {"w_o_transposed", "out", [](MhsaVariant& v) { v.projection = OutputProjection::WOTransposed; }},
};

// ------------------------------------------------------------- attach them

void add_split_heads_mistakes(Op& op) {
    auto split = [](Layout layout) {
        return [layout](const Args& a) {
            return tensor_result(from_matrices(split_as(layout, a.matrix("x"), a.integer("n_heads"))));
        };
    };
    // split_heads records no stages: the output is where the variant departs ("").
    op.mistakes.push_back(make_mistake("split_without_transpose", "", split(Layout::Flat), op.params));
    op.mistakes.push_back(make_mistake("heads_interleaved", "", split(Layout::Interleaved), op.params));
}

void add_causal_mask_mistakes(Op& op) {
    auto masked = [](Mask mask, double large_negative) {
        return [mask, large_negative](const Args& a) {
            if (a.tensor("scores").ndim() == 2)
                return tensor_result(from_matrix(apply_mask(mask, a.matrix("scores"), large_negative)));
            return tensor_result(from_matrices(apply_mask(mask, a.matrices("scores"), large_negative)));
        };
    };
    const std::pair<const char*, Mask> variants[] = {
        {"mask_includes_diagonal", Mask::IncludesDiagonal},
        {"mask_misses_first_future_key", Mask::MissesFirstFutureKey},
        {"mask_with_zero", Mask::WithZero},
        {"mask_below_diagonal", Mask::BelowDiagonal},
    };
    // causal_mask records no stages: the output is where the variant departs ("").
    for (const auto& [id, mask] : variants) op.mistakes.push_back(make_mistake(id, "", masked(mask, 0), op.params));
    for (double fill : kLargeNegativeFills)
        op.mistakes.push_back(make_mistake("mask_with_large_negative", "", masked(Mask::WithLargeNegative, fill), op.params));
}

void add_merge_project_mistakes(Op& op) {
    auto merged = [](Layout layout, OutputProjection projection) {
        return [layout, projection](const Args& a) {
            const Heads heads = a.matrices("heads");
            merge_heads(heads);  // the reference's checks: equally shaped heads
            const Matrix w_o = a.matrix("w_o");
            const Matrix concat = merge_as(layout, heads);
            output_projection(concat, w_o);  // the reference's checks: w_o is (D, D)
            const Matrix out = projection == OutputProjection::None           ? concat
                               : projection == OutputProjection::WOTransposed ? Matrix(concat * w_o.transpose())
                                                                              : Matrix(concat * w_o);
            return tensor_result(from_matrix(out), {{"concat", from_matrix(concat)}, {"out", from_matrix(out)}});
        };
    };
    op.mistakes.push_back(make_mistake("merge_without_transpose", "concat",
                                       merged(Layout::Flat, OutputProjection::WO), op.params));
    op.mistakes.push_back(make_mistake("heads_interleaved", "concat",
                                       merged(Layout::Interleaved, OutputProjection::WO), op.params));
    op.mistakes.push_back(make_mistake("w_o_forgotten", "out",
                                       merged(Layout::Blocks, OutputProjection::None), op.params));
    op.mistakes.push_back(make_mistake("w_o_transposed", "out",
                                       merged(Layout::Blocks, OutputProjection::WOTransposed), op.params));
}

void add_causal_mhsa_mistakes(Op& op) {
    for (const LayerMistake& m : kLayerMistakes) {
        MhsaVariant v;
        m.change(v);
        op.mistakes.push_back(make_mistake(
            m.id, m.stage,
            [v](const Args& a) {
                const MhsaStages s = run_mhsa_variant(v, layer_inputs(a));
                return tensor_result(from_matrix(s.out), mhsa_stages(s));
            },
            op.params));
    }
}

// Every mistake of the one-sequence layer, made on each sequence of a batch.
void add_batched_layer_mistakes(Op& op) {
    for (const LayerMistake& m : kLayerMistakes) {
        MhsaVariant v;
        m.change(v);
        op.mistakes.push_back(make_mistake(m.id, m.stage, [v](const Args& a) { return run_batched_variant(v, a); }, op.params));
    }
}

// batch_head_swapped in batched-layout, in the two forms it takes besides
// registry_batched.cpp's (slices laid out head by head, read batch by batch):
// the axes permuted to (H, B, T, hd), as transpose(2, 0, 1, 3) after the
// reshape gives; and the indices swapped, out(b, h) = x[h]'s head b, which
// only has the right shape when B = H (otherwise it reads out of range).
void add_batched_layout_forms(Op& op) {
    auto dims = [](const Args& a) {
        const TensorData& x = a.tensor("x");
        a.expect_rank("x", x, 3);
        const int64_t h = a.integer("n_heads");
        (void)batched_split_heads(a.matrices("x"), static_cast<int>(h));  // the reference's checks
        return std::array<int64_t, 5>{x.shape[0], x.shape[1], x.shape[2], h, x.shape[2] / h};
    };
    op.mistakes.push_back(make_mistake(
        "batch_head_swapped", "output",
        [dims](const Args& a) {
            const auto [B, T, D, H, hd] = dims(a);
            const TensorData& x = a.tensor("x");
            TensorData out = TensorData::zeros({H, B, T, hd});
            size_t k = 0;
            for (int64_t h = 0; h < H; ++h)
                for (int64_t b = 0; b < B; ++b)
                    for (int64_t t = 0; t < T; ++t)
                        for (int64_t j = 0; j < hd; ++j) out.data[k++] = x.data[static_cast<size_t>((b * T + t) * D + h * hd + j)];
            return tensor_result(std::move(out));
        },
        op.params));
    op.mistakes.push_back(make_mistake(
        "batch_head_swapped", "output",
        [dims](const Args& a) {
            const auto [B, T, D, H, hd] = dims(a);
            if (B != H) fail("x: the swapped indices only fit when B = H");
            const TensorData& x = a.tensor("x");
            TensorData out = TensorData::zeros({B, H, T, hd});
            size_t k = 0;
            for (int64_t b = 0; b < B; ++b)
                for (int64_t h = 0; h < H; ++h)
                    for (int64_t t = 0; t < T; ++t)
                        for (int64_t j = 0; j < hd; ++j) out.data[k++] = x.data[static_cast<size_t>((h * T + t) * D + b * hd + j)];
            return tensor_result(std::move(out));
        },
        op.params));
}

}  // namespace

void add_core_mistakes(std::vector<Op>& ops) {
    add_split_heads_mistakes(op_named(ops, "split_heads"));
    add_causal_mask_mistakes(op_named(ops, "causal_mask"));
    add_merge_project_mistakes(op_named(ops, "merge_project"));
    add_causal_mhsa_mistakes(op_named(ops, "causal_mhsa"));
    add_batched_layer_mistakes(op_named(ops, "batched_causal_mhsa"));
    add_batched_layout_forms(op_named(ops, "batched_split_heads"));
}

}  // namespace attnlab::reference::support
