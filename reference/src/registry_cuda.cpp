// Ops for the CUDA exercises, and the mistakes learners make in their kernels.
// Every op works on rank-4 (B, H, R, C) tensors, the layout the kernels get:
// one (R, C) slice per (sequence b, head h), slice l = b·H + h in memory. A
// kernel typically gives each slice (or each row of it) to one block, so the
// ops are written slice by slice, with the same math as the core reference
// (ops.hpp) and in double. One op, attention_scores_untransposed, reads q and
// k in the layout before the head transpose, (B, T, H, hd), and writes the
// same (B, H, T, T) scores. A mistake is the op computed from the same inputs
// with that one thing done wrong (see Mistake in registry.hpp); its words for
// the learner live in exercises/mistakes/<id>.json.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "mistakes_support.hpp"
#include "registry_support.hpp"

namespace attnlab::reference::support {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ------------------------------------------------------------- slices

// A (B, H, R, C) tensor as B·H matrices of (R, C); matrix l is slice
// (b, h) = (l / H, l % H), the order the slices have in memory.
struct Slices {
    int64_t b = 0, h = 0;
    std::vector<Matrix> m;
};

Slices read_slices(const Args& a, const std::string& name) {
    const TensorData& t = a.tensor(name);
    a.expect_rank(name, t, 4);
    const std::string got = ", got shape " + shape_to_string(t.shape);
    if (t.shape[0] < 1) fail(name + ": expected at least one sequence (B >= 1)" + got);
    if (t.shape[1] < 1) fail(name + ": expected at least one head (H >= 1)" + got);
    if (t.shape[2] < 1) fail(name + ": expected at least one token (T >= 1)" + got);
    Slices s{t.shape[0], t.shape[1], {}};
    const Index rows = t.shape[2], cols = t.shape[3];
    for (int64_t l = 0; l < s.b * s.h; ++l) s.m.push_back(read_matrix(t.data.data() + l * rows * cols, rows, cols));
    return s;
}

// B·H equally shaped (R, C) matrices, in slice order, as one (B, H, R, C) tensor.
TensorData write_slices(const std::vector<Matrix>& m, int64_t b, int64_t h) {
    TensorData t = from_matrices(m);  // (B·H, R, C)
    t.shape = {b, h, t.shape[1], t.shape[2]};
    return t;
}

std::string slice_name(const Slices& s, size_t l) {
    const int64_t i = static_cast<int64_t>(l);
    return "(b, h) = (" + std::to_string(i / s.h) + ", " + std::to_string(i % s.h) + ")";
}

// ------------------------------------------------------- causal softmax

// What happens to the keys j of query row i before the softmax.
enum class KeyMask {
    Causal,            // j > i becomes -inf (right)
    None,              // every key kept (reads_future_keys)
    IncludesDiagonal,  // j >= i becomes -inf: row 0 keeps no key (mask_includes_diagonal)
    WithZero,          // j > i becomes 0, an ordinary logit (mask_with_zero)
    MissesFirstFutureKey,  // only j > i + 1 becomes -inf: key i + 1 stays visible (mask_misses_first_future_key)
};

Matrix mask_keys(KeyMask mask, const Matrix& scores) {
    Matrix masked = scores;
    if (mask == KeyMask::None) return masked;
    const double fill = mask == KeyMask::WithZero ? 0.0 : -kInf;
    const Index first_hidden = mask == KeyMask::IncludesDiagonal ? 0 : mask == KeyMask::MissesFirstFutureKey ? 2 : 1;  // from the diagonal
    for (Index i = 0; i < masked.rows(); ++i)
        for (Index j = i + first_hidden; j < masked.cols(); ++j) masked(i, j) = fill;
    return masked;
}

Slices read_scores(const Args& a) {
    Slices s = read_slices(a, "scores");
    const Matrix& first = s.m.front();
    if (first.rows() != first.cols())
        fail("scores: expected (B, H, T, T) with the last two axes equal (one score per query and key), got shape " +
             shape_to_string(a.tensor("scores").shape));
    return s;
}

// The right op refuses a row whose visible keys 0..i hold NaN or +inf, or are
// all -inf: its softmax is undefined. Future keys may hold anything: they are masked.
void expect_defined_rows(const Slices& s) {
    for (size_t l = 0; l < s.m.size(); ++l) {
        const Matrix& m = s.m[l];
        for (Index i = 0; i < m.rows(); ++i) {
            const auto visible = m.row(i).head(i + 1).array();
            const std::string row = "scores: row " + std::to_string(i) + " of slice " + slice_name(s, l);
            if (visible.isNaN().any() || (visible == kInf).any())
                fail(row + " holds NaN or +inf among its visible keys 0.." + std::to_string(i) +
                     "; its softmax is undefined");
            if ((visible == -kInf).all())
                fail(row + " is -inf on every visible key 0.." + std::to_string(i) + "; its softmax is undefined (0/0)");
        }
    }
}

// The reference's stable softmax for the right mask; for a mistake, the
// unchecked one, which gives NaN for a row with no key left (0/0) as float
// learner code does.
// With a `softmax` other than Stable, the right mask and that softmax in
// float (softmax_without_max: named from the stability case, NaN where the
// learner's float kernel gives NaN).
// `empty_rows_zero`: a row with no key left (row 0 when the diagonal is hidden)
// comes out as zeros instead of 0/0 = NaN, as a kernel that guards its
// division, or writes 0 to every hidden key of an empty row, gives.
// `future_zero`: every key read (KeyMask::None), then 0 written to the future
// outputs: the visible weights are normalised over every key of the row.
Result causal_softmax_as(KeyMask mask, const Args& a, SoftmaxKind softmax = SoftmaxKind::Stable, bool empty_rows_zero = false,
                         bool future_zero = false) {
    const Slices s = read_scores(a);
    if (mask == KeyMask::Causal) expect_defined_rows(s);
    std::vector<Matrix> masked, weights;
    for (const Matrix& m : s.m) {
        masked.push_back(mask_keys(mask, m));
        if (softmax != SoftmaxKind::Stable) {
            // A kernel writes 0 for a future key whatever its row's sum: even where 0/0 makes the visible ones NaN.
            Matrix w = softmax_in_float(masked.back(), softmax);
            for (Index i = 0; i < w.rows(); ++i)
                for (Index j = i + 1; j < w.cols(); ++j) w(i, j) = 0.0;
            weights.push_back(std::move(w));
        } else {
            weights.push_back(mask == KeyMask::Causal ? softmax_rows(masked.back()) : softmax_rows_unchecked(masked.back()));
        }
        if (empty_rows_zero)
            for (Index i = 0; i < masked.back().rows(); ++i)
                if ((masked.back().row(i).array() == -kInf).all()) weights.back().row(i).setZero();
        if (future_zero)
            for (Index i = 0; i < weights.back().rows(); ++i)
                for (Index j = i + 1; j < weights.back().cols(); ++j) weights.back()(i, j) = 0.0;
    }
    TensorData out = write_slices(weights, s.b, s.h);
    return tensor_result(out, {{"masked_scores", write_slices(masked, s.b, s.h)}});
}

void add_causal_softmax_op(std::vector<Op>& ops) {
    ops.push_back(make_op({
        "causal_softmax",
        "Row i of each (b, h) score slice: stable softmax over keys 0..i; future keys j > i get exactly 0.",
        {tensor_param("scores", "(B, H, T, T)")}, "(B, H, T, T)",
        [](const Args& a) { return causal_softmax_as(KeyMask::Causal, a); }}));
    Op& op = ops.back();
    const std::pair<const char*, KeyMask> variants[] = {
        {"reads_future_keys", KeyMask::None},
        {"mask_includes_diagonal", KeyMask::IncludesDiagonal},
        {"mask_with_zero", KeyMask::WithZero},
        {"mask_misses_first_future_key", KeyMask::MissesFirstFutureKey},
    };
    for (const auto& [id, mask] : variants)
        op.mistakes.push_back(make_mistake(
            id, "masked_scores", [mask = mask](const Args& a) { return causal_softmax_as(mask, a); }, op.params));
    op.mistakes.push_back(make_mistake(
        "mask_includes_diagonal", "masked_scores",
        [](const Args& a) { return causal_softmax_as(KeyMask::IncludesDiagonal, a, SoftmaxKind::Stable, true); }, op.params));
    op.mistakes.push_back(make_mistake(
        "reads_future_keys", "masked_scores",
        [](const Args& a) { return causal_softmax_as(KeyMask::None, a, SoftmaxKind::Stable, false, true); }, op.params));
    for (SoftmaxKind kind : {SoftmaxKind::NoMaxSubtraction, SoftmaxKind::MaxFromZero})
        op.mistakes.push_back(make_mistake(
            "softmax_without_max", "", [kind](const Args& a) { return causal_softmax_as(KeyMask::Causal, a, kind); },
            op.params));
}

// ------------------------------------------------------- causal mask, batched

// What a mask kernel writes at key j of query row i: the score, or its fill.
enum class MaskRule { Causal, IncludesDiagonal, WithZero, WithLargeNegative, BelowDiagonal };

Result batched_mask_as(MaskRule rule, const Args& a, double large_negative = kLargeNegativeFills[0]) {
    const Slices s = read_scores(a);
    const double fill = rule == MaskRule::WithZero ? 0.0 : rule == MaskRule::WithLargeNegative ? large_negative : -kInf;
    std::vector<Matrix> masked;
    for (const Matrix& m : s.m) {
        Matrix out = m;
        for (Index i = 0; i < out.rows(); ++i)
            for (Index j = 0; j < out.cols(); ++j) {
                const bool hidden = rule == MaskRule::IncludesDiagonal ? j >= i : rule == MaskRule::BelowDiagonal ? j < i : j > i;
                if (hidden) out(i, j) = fill;
            }
        masked.push_back(std::move(out));
    }
    return tensor_result(write_slices(masked, s.b, s.h));
}

void add_batched_mask_op(std::vector<Op>& ops) {
    ops.push_back(make_op({
        "batched_causal_mask",
        "Per (b, h) score slice: keys after the query (j > i) become -inf, every other score is copied.",
        {tensor_param("scores", "(B, H, T, T)")}, "(B, H, T, T)",
        [](const Args& a) { return batched_mask_as(MaskRule::Causal, a); }}));
    Op& op = ops.back();
    const std::pair<const char*, MaskRule> variants[] = {
        {"mask_includes_diagonal", MaskRule::IncludesDiagonal},
        {"mask_with_zero", MaskRule::WithZero},
        {"mask_below_diagonal", MaskRule::BelowDiagonal},
    };
    // The op records no stages: the output is where the variant departs ("").
    for (const auto& [id, rule] : variants)
        op.mistakes.push_back(make_mistake(
            id, "", [rule = rule](const Args& a) { return batched_mask_as(rule, a); }, op.params));
    for (double fill : kLargeNegativeFills)
        op.mistakes.push_back(make_mistake(
            "mask_with_large_negative", "", [fill](const Args& a) { return batched_mask_as(MaskRule::WithLargeNegative, a, fill); },
            op.params));
}

// ------------------------------------------------------------- row sums

// out[b, h, r] = the sum of row r of slice (b, h): the sum a softmax divides by.
Result batched_row_sum(const Args& a) {
    const Slices s = read_slices(a, "x");
    const TensorData& x = a.tensor("x");
    if (x.shape[3] < 1) fail("x: expected rows of at least one number (N >= 1), got shape " + shape_to_string(x.shape));
    for (float v : x.data)
        if (!std::isfinite(v)) fail("x: the reference needs finite inputs");
    TensorData out;
    out.shape = {x.shape[0], x.shape[1], x.shape[2]};
    for (const Matrix& m : s.m)
        for (Index r = 0; r < m.rows(); ++r) out.data.push_back(static_cast<float>(m.row(r).sum()));
    return tensor_result(std::move(out));
}

// Each row summed over the elements `kept` keeps (an element's index in its
// row): what a kernel that loses part of every row adds up.
template <typename Kept>
Result row_sum_kept(const Args& a, Kept kept) {
    const Slices s = read_slices(a, "x");
    const TensorData& x = a.tensor("x");
    TensorData out;
    out.shape = {x.shape[0], x.shape[1], x.shape[2]};
    for (const Matrix& m : s.m)
        for (Index r = 0; r < m.rows(); ++r) {
            double sum = 0;
            for (Index j = 0; j < m.cols(); ++j)
                if (kept(j)) sum += m(r, j);
            out.data.push_back(static_cast<float>(sum));
        }
    return tensor_result(std::move(out));
}

void add_row_sum_op(std::vector<Op>& ops) {
    ops.push_back(make_op({"batched_row_sum",
                          "Per (b, h) slice: the sum of each row, (B, H, R, N) -> (B, H, R) (a softmax's denominator is one).",
                          {tensor_param("x", "(B, H, R, N)")}, "(B, H, R)", batched_row_sum}));
    Op& op = ops.back();
    // The block sizes a kernel is launched with: a warp up to the most a block may hold.
    // One element per thread of a block, no loop striding over the rest: the row cut after a block's worth.
    for (int64_t threads = 32; threads <= 1024; threads *= 2)
        op.mistakes.push_back(make_mistake(
            "row_sum_no_stride_loop", "", [threads](const Args& a) { return row_sum_kept(a, [threads](Index j) { return j < threads; }); },
            op.params));
    // A block that strides over the row but combines the partial sums of only its first `combined` threads
    // (a warp count written as a constant): element j counts when its thread, j % threads, is one of them.
    // Up to `threads` elements this is the cut row above; a row longer than the block tells them apart.
    for (int64_t threads = 64; threads <= 1024; threads *= 2)
        for (int64_t combined = 32; combined < threads; combined *= 2)
            op.mistakes.push_back(make_mistake(
                "row_sum_no_stride_loop", "",
                [threads, combined](const Args& a) { return row_sum_kept(a, [=](Index j) { return j % threads < combined; }); },
                op.params));
}

// ------------------------------------------------------------ attention

// q and k (and v) of one call, each (B, H, T, hd) with the same shape.
struct HeadInputs {
    Slices q, k, v;
};

void expect_finite(const Args& a, const std::string& name) {
    const TensorData& t = a.tensor(name);
    for (size_t i = 0; i < t.data.size(); ++i) {
        const float x = t.data[i];
        if (std::isfinite(x)) continue;
        fail(name + ": element " + shape_to_string(t.unravel(static_cast<int64_t>(i))) + " is " +
             (std::isnan(x) ? "NaN" : x > 0 ? "+inf" : "-inf") + "; the reference needs finite inputs");
    }
}

void expect_same_shape(const Args& a, const std::string& name, const std::string& like,
                       const std::string& layout = "(B, H, T, hd)") {
    const Shape& want = a.tensor(like).shape;
    const Shape& got = a.tensor(name).shape;
    if (got != want)
        fail(name + ": expected shape " + shape_to_string(want) + " " + layout + ", like " + like + ", got shape " +
             shape_to_string(got));
}

HeadInputs read_heads(const Args& a, bool with_v) {
    HeadInputs in;
    in.q = read_slices(a, "q");
    if (in.q.m.front().cols() < 1)
        fail("q: expected a head width hd >= 1, got shape " + shape_to_string(a.tensor("q").shape));
    a.expect_rank("k", a.tensor("k"), 4);
    expect_same_shape(a, "k", "q");
    in.k = read_slices(a, "k");
    if (with_v) {
        a.expect_rank("v", a.tensor("v"), 4);
        expect_same_shape(a, "v", "q");
        in.v = read_slices(a, "v");
    }
    return in;
}

// What a kernel multiplies Q·Kᵀ by: 1/√hd (right), nothing (no_scale), 1/√D
// with D = H·hd the model's width (scale_sqrt_d), 1/hd (scale_by_hd).
enum class ScaleRule { SqrtHd, None, SqrtD, HeadDim };

double score_scale(ScaleRule rule, double hd, double heads) {
    switch (rule) {
    case ScaleRule::None: return 1.0;
    case ScaleRule::SqrtD: return 1.0 / std::sqrt(hd * heads);
    case ScaleRule::HeadDim: return 1.0 / hd;
    case ScaleRule::SqrtHd: break;
    }
    return 1.0 / std::sqrt(hd);
}

// The scale mistakes every kernel that scales scores can make.
constexpr std::pair<const char*, ScaleRule> kScaleMistakes[] = {
    {"no_scale", ScaleRule::None}, {"scale_sqrt_d", ScaleRule::SqrtD}, {"scale_by_hd", ScaleRule::HeadDim}};

// How a kernel computes attention; the default is right, each mistake changes one field.
// Where a block's (b, h) decoding goes wrong (block_mapping_swapped).
enum class BlockSwap { None, OnRead, OnStore };

struct AttentionWay {
    bool causal = true;           // false: every key is read (reads_future_keys)
    bool future_dropped = false;  // with causal false: the softmax over every key, then the future keys' weights dropped
    int extra_keys = 0;           // keys after the diagonal left visible (1: mask_misses_first_future_key)
    ScaleRule scale = ScaleRule::SqrtHd;
    BlockSwap swap = BlockSwap::None;
    SoftmaxKind softmax = SoftmaxKind::Stable;  // else softmax_without_max, in float
    bool kt_row_major = false;    // Kᵀ's 16 x 16 WMMA tiles read row_major from K's rows (wmma_kt_layout)
    bool v_col_major = false;     // V's 16 x 16 WMMA tiles read col_major from V's rows (wmma_v_layout)
    bool right() const {
        return causal && !future_dropped && extra_keys == 0 && scale == ScaleRule::SqrtHd && swap == BlockSwap::None &&
               softmax == SoftmaxKind::Stable && !kt_row_major && !v_col_major;
    }
};

// The keys a kernel multiplies when it loads Kᵀ's 16 x 16 tiles as
// wmma::row_major from K stored row by row (k[key][d]): the tile at key block
// n0 and dimension block d0 reads k[n0 + r][d0 + c] as element (r, c), where
// Kᵀ has (d0 + r, n0 + c). So key j's dimension d is taken from
// k[16·(j / 16) + d % 16][16·(d / 16) + j % 16]; keys past T are the zeros
// the kernel fills them with. hd must be a multiple of 16 (tensor cores).
// The same transposition inside each 16 x 16 tile is what a kernel reads of V
// (values(j, d), key j, dimension d) when it declares V's matrix_b fragment
// wmma::col_major: element (r, c) of the tile at (n0, d0) comes from
// v[n0 + c][d0 + r].
Matrix keys_read_as_row_major_tiles(const Matrix& k) {
    const Index T = k.rows(), hd = k.cols(), tile = 16;
    if (hd % tile != 0) fail("k: a WMMA tiling needs hd a multiple of 16");
    Matrix read(T, hd);
    for (Index j = 0; j < T; ++j)
        for (Index d = 0; d < hd; ++d) {
            const Index key = j / tile * tile + d % tile, dim = d / tile * tile + j % tile;
            read(j, d) = key < T ? k(key, dim) : 0.0;
        }
    return read;
}

// The slice whose attention lands in output slice l = b·H + h.
// - Swapped on read: block l reads its inputs as (b', h') = (l % B, l / B),
//   the decoding for a head-first grid, while its output stays at slice l.
// - Swapped on store: block l reads slice l right but writes slice
//   (l % B)·H + l / B, so slice l holds block (l % H)·B + l / H's attention.
size_t source_slice(const AttentionWay& way, size_t l, const Slices& s) {
    const int64_t i = static_cast<int64_t>(l);
    switch (way.swap) {
    case BlockSwap::None: return l;
    case BlockSwap::OnRead: return static_cast<size_t>((i % s.b) * s.h + i / s.b);
    case BlockSwap::OnStore: return static_cast<size_t>((i % s.h) * s.b + i / s.h);
    }
    return l;
}

// Keys j > i + extra_keys of query row i become -inf (extra_keys = 0: the causal mask).
Matrix mask_after(Matrix masked, int extra_keys) {
    // Column j hides rows i < j - extra_keys (column-major: whole column heads).
    for (Index j = 0; j < masked.cols(); ++j) {
        const Index hidden = std::clamp<Index>(j - extra_keys, 0, masked.rows());
        masked.col(j).head(hidden).setConstant(-kInf);
    }
    return masked;
}

Result batched_attention_as(const AttentionWay& way, const Args& a) {
    const HeadInputs in = read_heads(a, true);
    if (way.right())
        for (const char* name : {"q", "k", "v"}) expect_finite(a, name);
    const double scale = score_scale(way.scale, static_cast<double>(in.q.m.front().cols()), static_cast<double>(in.q.h));
    std::vector<Matrix> scores, weights, out;
    for (size_t l = 0; l < in.q.m.size(); ++l) {
        const size_t src = source_slice(way, l, in.q);
        const Matrix keys = way.kt_row_major ? keys_read_as_row_major_tiles(in.k.m[src]) : in.k.m[src];
        Matrix raw = (in.q.m[src] * keys.transpose()) * scale;
        scores.push_back(way.causal ? mask_after(std::move(raw), way.extra_keys) : std::move(raw));
        if (way.softmax != SoftmaxKind::Stable) weights.push_back(softmax_in_float(scores.back(), way.softmax));
        else weights.push_back(way.right() ? softmax_rows(scores.back()) : softmax_rows_unchecked(scores.back()));
        if (way.future_dropped)
            for (Index i = 0; i < weights.back().rows(); ++i)
                for (Index j = i + 1; j < weights.back().cols(); ++j) weights.back()(i, j) = 0.0;
        out.push_back(attend(weights.back(), way.v_col_major ? keys_read_as_row_major_tiles(in.v.m[src]) : in.v.m[src]));
    }
    const int64_t b = in.q.b, h = in.q.h;
    return tensor_result(write_slices(out, b, h),
                         {{"scores", write_slices(scores, b, h)}, {"weights", write_slices(weights, b, h)}});
}

void add_batched_attention_op(std::vector<Op>& ops) {
    ops.push_back(make_op({
        "batched_causal_attention",
        "Per (b, h) slice: softmax(causal_mask(Q Kᵀ / sqrt(hd))) V, stages scores (masked) and weights.",
        {tensor_param("q", "(B, H, T, hd)"), tensor_param("k", "(B, H, T, hd)"), tensor_param("v", "(B, H, T, hd)")},
        "(B, H, T, hd)", [](const Args& a) { return batched_attention_as(AttentionWay{}, a); }}));
    Op& op = ops.back();
    auto mistake = [&op](const char* id, auto change, const char* stage = "scores") {
        AttentionWay way;
        change(way);
        op.mistakes.push_back(make_mistake(
            id, stage, [way](const Args& a) { return batched_attention_as(way, a); }, op.params));
    };
    mistake("reads_future_keys", [](AttentionWay& w) { w.causal = false; });
    mistake("reads_future_keys", [](AttentionWay& w) { w.causal = false, w.future_dropped = true; });
    for (const auto& [id, rule] : kScaleMistakes) {
        AttentionWay way;
        way.scale = rule;
        op.mistakes.push_back(make_mistake(id, "scores", [way](const Args& a) { return batched_attention_as(way, a); }, op.params));
    }
    mistake("mask_misses_first_future_key", [](AttentionWay& w) { w.extra_keys = 1; });
    mistake("block_mapping_swapped", [](AttentionWay& w) { w.swap = BlockSwap::OnRead; });
    mistake("block_mapping_swapped", [](AttentionWay& w) { w.swap = BlockSwap::OnStore; });
    mistake("softmax_without_max", [](AttentionWay& w) { w.softmax = SoftmaxKind::NoMaxSubtraction; }, "weights");
    mistake("softmax_without_max", [](AttentionWay& w) { w.softmax = SoftmaxKind::MaxFromZero; }, "weights");
    add_online_tile_forms(op);  // a kernel with an online softmax over tiles of keys
    mistake("wmma_kt_layout", [](AttentionWay& w) { w.kt_row_major = true; });  // cuda-flash-attention-wmma
    mistake("wmma_v_layout", [](AttentionWay& w) { w.v_col_major = true; }, "");  // scores and weights are right: the output departs
}

// --------------------------------------------------------------- scores

// Q Kᵀ of every slice, times the scale `rule` gives.
std::vector<Matrix> slice_scores(const Slices& q, const Slices& k, ScaleRule rule) {
    const double scale = score_scale(rule, static_cast<double>(q.m.front().cols()), static_cast<double>(q.h));
    std::vector<Matrix> scores;
    for (size_t l = 0; l < q.m.size(); ++l) scores.push_back((q.m[l] * k.m[l].transpose()) * scale);
    return scores;
}

Result batched_scores_scaled(ScaleRule rule, const Args& a) {
    const HeadInputs in = read_heads(a, false);
    return tensor_result(write_slices(slice_scores(in.q, in.k, rule), in.q.b, in.q.h));
}

void add_batched_scores_op(std::vector<Op>& ops) {
    ops.push_back(make_op({
        "batched_attention_scores",
        "Per (b, h) slice: Q Kᵀ / sqrt(hd) for every query i and key j (no mask).",
        {tensor_param("q", "(B, H, T, hd)"), tensor_param("k", "(B, H, T, hd)")}, "(B, H, T, T)",
        [](const Args& a) { return batched_scores_scaled(ScaleRule::SqrtHd, a); }}));
    Op& op = ops.back();
    // The op records no stages: the output is where the variant departs ("").
    for (const auto& [id, rule] : kScaleMistakes)
        op.mistakes.push_back(make_mistake(id, "", [rule = rule](const Args& a) { return batched_scores_scaled(rule, a); }, op.params));
}

// ---------------------------------------------- scores, untransposed layout

// q or k as it comes out of the fused projection, (B, T, H, hd): token t's row
// of D = H·hd floats holds its H heads side by side. Read into the same B·H
// slices read_slices gives for (B, H, T, hd): row t of slice l = b·H + h is
// x[b, t, h, :], found at ((b·T + t)·H + h)·hd, D floats after row t - 1.
Slices read_untransposed(const Args& a, const std::string& name) {
    const TensorData& t = a.tensor(name);
    a.expect_rank(name, t, 4);
    const std::string got = ", got shape " + shape_to_string(t.shape);
    if (t.shape[0] < 1) fail(name + ": expected at least one sequence (B >= 1)" + got);
    if (t.shape[1] < 1) fail(name + ": expected at least one token (T >= 1)" + got);
    if (t.shape[2] < 1) fail(name + ": expected at least one head (H >= 1)" + got);
    if (t.shape[3] < 1) fail(name + ": expected a head width hd >= 1" + got);
    const int64_t tokens = t.shape[1], heads = t.shape[2], hd = t.shape[3];
    Slices s{t.shape[0], heads, {}};
    for (int64_t b = 0; b < s.b; ++b)
        for (int64_t h = 0; h < heads; ++h) {
            Matrix m(tokens, hd);
            for (int64_t i = 0; i < tokens; ++i)
                for (int64_t d = 0; d < hd; ++d)
                    m(i, d) = t.data[static_cast<size_t>(((b * tokens + i) * heads + h) * hd + d)];
            s.m.push_back(std::move(m));
        }
    return s;
}

// The same buffer read as if it were already (B, H, T, hd): row t of head h
// taken from ((b·H + h)·T + t)·hd (layout_read_as_bhtd).
Slices read_as_transposed(const Args& a, const std::string& name) {
    const Slices right = read_untransposed(a, name);  // the shape checks
    const TensorData& t = a.tensor(name);
    const int64_t tokens = t.shape[1], heads = t.shape[2], hd = t.shape[3];
    Slices s{right.b, heads, {}};
    for (int64_t l = 0; l < right.b * heads; ++l)
        s.m.push_back(read_matrix(t.data.data() + l * tokens * hd, tokens, hd));
    return s;
}

Result untransposed_scores_as(ScaleRule rule, bool read_transposed, const Args& a) {
    const auto read = read_transposed ? read_as_transposed : read_untransposed;
    const Slices q = read(a, "q");
    a.expect_rank("k", a.tensor("k"), 4);
    expect_same_shape(a, "k", "q", "(B, T, H, hd)");
    const Slices k = read(a, "k");
    return tensor_result(write_slices(slice_scores(q, k, rule), q.b, q.h));
}

void add_untransposed_scores_op(std::vector<Op>& ops) {
    ops.push_back(make_op({
        "attention_scores_untransposed",
        "q, k in (B, T, H, hd) (before the head transpose); per (b, h): Q Kᵀ / sqrt(hd) as (B, H, T, T), no mask.",
        {tensor_param("q", "(B, T, H, hd)"), tensor_param("k", "(B, T, H, hd)")}, "(B, H, T, T)",
        [](const Args& a) { return untransposed_scores_as(ScaleRule::SqrtHd, false, a); }}));
    Op& op = ops.back();
    for (const auto& [id, rule] : kScaleMistakes)
        op.mistakes.push_back(
            make_mistake(id, "", [rule = rule](const Args& a) { return untransposed_scores_as(rule, false, a); }, op.params));
    op.mistakes.push_back(make_mistake(
        "layout_read_as_bhtd", "", [](const Args& a) { return untransposed_scores_as(ScaleRule::SqrtHd, true, a); }, op.params));
}

}  // namespace

void add_cuda_ops(std::vector<Op>& ops) {
    add_causal_softmax_op(ops);
    add_batched_mask_op(ops);
    add_row_sum_op(ops);
    add_batched_attention_op(ops);
    add_batched_scores_op(ops);
    add_untransposed_scores_op(ops);
}

}  // namespace attnlab::reference::support
