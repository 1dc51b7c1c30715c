// Mistakes catalogued for the core ops: split_heads, causal_mask,
// merge_project, causal_mhsa. Each variant is the op computed from the same
// inputs with one thing done the way learners really get it wrong, in double,
// so that the runner can say which mistake a wrong output matches. The words
// for the learner are in exercises/mistakes/<id>.json.
#include <cmath>
#include <limits>
#include <utility>

#include "registry_support.hpp"

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

Matrix apply_mask(Mask mask, const Matrix& scores) {
    const double fill = mask == Mask::WithZero ? 0.0 : mask == Mask::WithLargeNegative ? -1e9 : -kInf;
    causal_mask(scores);  // the reference's check: throws unless scores is square
    Matrix masked = scores;
    for (Index i = 0; i < masked.rows(); ++i)
        for (Index j = 0; j < masked.cols(); ++j)
            if (hidden(mask, i, j)) masked(i, j) = fill;
    return masked;
}

Heads apply_mask(Mask mask, const Heads& scores) {
    Heads masked;
    for (const Matrix& s : scores) masked.push_back(apply_mask(mask, s));
    return masked;
}


// --------------------------------------------------------------- full layer

enum class Scale { SqrtHd, SqrtD, None };
enum class ValuesFrom { V, K, Q };
enum class OutputProjection { WO, None, WOTransposed };

// One way of computing causal MHSA: the default is the right one, and each
// mistake changes one field.
struct MhsaVariant {
    Scale scale = Scale::SqrtHd;
    Mask mask = Mask::Causal;
    bool mask_after_softmax = false;  // softmax over every key, then zero the future
    bool softmax_over_queries = false;
    Layout layout = Layout::Blocks;   // used by the split and by the merge
    ValuesFrom values = ValuesFrom::V;
    OutputProjection projection = OutputProjection::WO;
};

Heads variant_weights(const MhsaVariant& v, const Heads& masked) {
    Heads weights;
    for (const Matrix& m : masked) {
        Matrix w = v.softmax_over_queries ? Matrix(softmax_rows_unchecked(m.transpose()).transpose())
                                          : softmax_rows_unchecked(m);
        if (v.mask_after_softmax)
            for (Index i = 0; i < w.rows(); ++i)
                for (Index j = i + 1; j < w.cols(); ++j) w(i, j) = 0.0;
        weights.push_back(std::move(w));
    }
    return weights;
}

MhsaStages run_mhsa_variant(const MhsaVariant& v, const Args& a) {
    const int n_heads = a.integer("n_heads");
    const Matrix w_o = a.matrix("w_o");
    MhsaStages s;
    const QKV qkv = qkv_projection(a.matrix("x"), a.matrix("w_q"), a.matrix("w_k"), a.matrix("w_v"));
    s.q = qkv.q;
    s.k = qkv.k;
    s.v = qkv.v;
    output_projection(s.q, w_o);  // the reference's check: throws unless w_o is (D, D)

    const Heads q = split_as(v.layout, s.q, n_heads);
    const Heads k = split_as(v.layout, s.k, n_heads);
    const Heads values = split_as(v.layout, v.values == ValuesFrom::K ? s.k : v.values == ValuesFrom::Q ? s.q : s.v,
                                  n_heads);
    const double hd = static_cast<double>(q.front().cols());
    const double scale = v.scale == Scale::SqrtHd ? 1.0 / std::sqrt(hd)
                         : v.scale == Scale::SqrtD ? 1.0 / std::sqrt(static_cast<double>(s.q.cols()))
                                                   : 1.0;
    for (size_t h = 0; h < q.size(); ++h) s.scores.push_back(q[h] * k[h].transpose() * scale);
    s.masked = apply_mask(v.mask_after_softmax ? Mask::None : v.mask, s.scores);
    s.weights = variant_weights(v, s.masked);
    for (size_t h = 0; h < q.size(); ++h) s.heads.push_back(s.weights[h] * values[h]);
    s.concat = merge_as(v.layout, s.heads);
    s.out = v.projection == OutputProjection::None           ? s.concat
            : v.projection == OutputProjection::WOTransposed ? Matrix(s.concat * w_o.transpose())
                                                             : Matrix(s.concat * w_o);
    return s;
}

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
    auto masked = [](Mask mask) {
        return [mask](const Args& a) {
            if (a.tensor("scores").ndim() == 2)
                return tensor_result(from_matrix(apply_mask(mask, a.matrix("scores"))));
            return tensor_result(from_matrices(apply_mask(mask, a.matrices("scores"))));
        };
    };
    const std::pair<const char*, Mask> variants[] = {
        {"mask_includes_diagonal", Mask::IncludesDiagonal},
        {"mask_misses_first_future_key", Mask::MissesFirstFutureKey},
        {"mask_with_zero", Mask::WithZero},
        {"mask_with_large_negative", Mask::WithLargeNegative},
        {"mask_below_diagonal", Mask::BelowDiagonal},
    };
    // causal_mask records no stages: the output is where the variant departs ("").
    for (const auto& [id, mask] : variants) op.mistakes.push_back(make_mistake(id, "", masked(mask), op.params));
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
    auto mistake = [&op](const char* id, const char* stage, auto change) {
        MhsaVariant v;
        change(v);
        op.mistakes.push_back(make_mistake(
            id, stage,
            [v](const Args& a) {
                const MhsaStages s = run_mhsa_variant(v, a);
                return tensor_result(from_matrix(s.out), mhsa_stages(s));
            },
            op.params));
    };
    mistake("scale_sqrt_d", "scores", [](MhsaVariant& v) { v.scale = Scale::SqrtD; });
    mistake("no_scale", "scores", [](MhsaVariant& v) { v.scale = Scale::None; });
    mistake("heads_interleaved", "scores", [](MhsaVariant& v) { v.layout = Layout::Interleaved; });
    mistake("split_without_transpose", "scores", [](MhsaVariant& v) { v.layout = Layout::Flat; });
    mistake("mask_includes_diagonal", "masked", [](MhsaVariant& v) { v.mask = Mask::IncludesDiagonal; });
    mistake("mask_misses_first_future_key", "masked", [](MhsaVariant& v) { v.mask = Mask::MissesFirstFutureKey; });
    mistake("mask_with_zero", "masked", [](MhsaVariant& v) { v.mask = Mask::WithZero; });
    mistake("mask_after_softmax", "weights", [](MhsaVariant& v) { v.mask_after_softmax = true; });
    mistake("softmax_wrong_axis", "weights", [](MhsaVariant& v) { v.softmax_over_queries = true; });
    mistake("k_used_as_v", "heads", [](MhsaVariant& v) { v.values = ValuesFrom::K; });
    mistake("q_used_as_v", "heads", [](MhsaVariant& v) { v.values = ValuesFrom::Q; });
    mistake("w_o_forgotten", "out", [](MhsaVariant& v) { v.projection = OutputProjection::None; });
    mistake("w_o_transposed", "out", [](MhsaVariant& v) { v.projection = OutputProjection::WOTransposed; });
}

}  // namespace

void add_core_mistakes(std::vector<Op>& ops) {
    add_split_heads_mistakes(op_named(ops, "split_heads"));
    add_causal_mask_mistakes(op_named(ops, "causal_mask"));
    add_merge_project_mistakes(op_named(ops, "merge_project"));
    add_causal_mhsa_mistakes(op_named(ops, "causal_mhsa"));
}

}  // namespace attnlab::reference::support
