// Ops for batched layouts, model figures and head comparisons, and the
// mistakes learners make in them. A mistake is the op's computation with that
// one thing done wrong, from the same inputs (see Mistake in registry.hpp), so
// a learner's output can be recognised by value, never by its source text.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "registry_support.hpp"

namespace attnlab::reference::support {

namespace {

// ------------------------------------------------------------ batch layout

// The sizes of a (B, T, D) batch split into H heads of hd columns.
struct BatchDims {
    int64_t b = 0, t = 0, d = 0, h = 0, hd = 0;
};

BatchDims batch_dims(const Args& a) {
    const TensorData& x = a.tensor("x");
    a.expect_rank("x", x, 3);
    const int n_heads = a.integer("n_heads");
    if (n_heads < 1) fail("n_heads: expected at least 1, got " + std::to_string(n_heads));
    if (x.shape[0] < 1) fail("x: expected at least one sequence, got shape " + shape_to_string(x.shape));
    if (x.shape[2] % n_heads != 0)
        fail("n_heads: D = " + std::to_string(x.shape[2]) + " is not divisible by n_heads = " +
             std::to_string(n_heads));
    return {x.shape[0], x.shape[1], x.shape[2], n_heads, x.shape[2] / n_heads};
}

// Where column j of head h comes from in a token's D features.
enum class HeadColumns {
    Blocks,       // h·hd + j: head h owns one block of hd neighbouring columns (right)
    Interleaved,  // h + j·H: head h takes every H-th column (heads_interleaved)
};

int64_t source_column(HeadColumns columns, int64_t h, int64_t j, int64_t n_heads, int64_t hd) {
    return columns == HeadColumns::Blocks ? h * hd + j : h + j * n_heads;
}

// Which (sequence, head) pair fills slot (b, h) of a (B, H, ...) result.
// Batch-first is right. Head-first is what one gets by laying the slices out
// as (H, B, ...) and reading them as (B, H, ...) (batch_head_swapped): slot
// s = b·H + h holds pair (s mod B, s div B).
struct SlicePair {
    int64_t b, h;
};

SlicePair source_pair(bool head_first, int64_t b, int64_t h, const BatchDims& s) {
    if (!head_first) return {b, h};
    const int64_t slot = b * s.h + h;
    return {slot % s.b, slot / s.b};
}

// (B, T, D) -> (B, H, T, hd), copying floats exactly:
// out(b, h, t, j) = x(b', t, column(h', j)) with (b', h') = source_pair(b, h).
TensorData gather_heads(const TensorData& x, const BatchDims& s, HeadColumns columns, bool head_first) {
    TensorData out = TensorData::zeros({s.b, s.h, s.t, s.hd});
    size_t k = 0;
    for (int64_t b = 0; b < s.b; ++b)
        for (int64_t h = 0; h < s.h; ++h) {
            const SlicePair from = source_pair(head_first, b, h, s);
            for (int64_t t = 0; t < s.t; ++t)
                for (int64_t j = 0; j < s.hd; ++j) {
                    const int64_t col = source_column(columns, from.h, j, s.h, s.hd);
                    out.data[k++] = x.data[static_cast<size_t>((from.b * s.t + t) * s.d + col)];
                }
        }
    return out;
}

void add_layout_mistakes(std::vector<Op>& ops) {
    Op& op = op_named(ops, "batched_split_heads");
    // Reshaping (T, D) straight to (H, T, hd): every head gets whole consecutive
    // runs of the row-major buffer, i.e. x's numbers in their original order.
    op.mistakes.push_back(make_mistake(
        "split_without_transpose", "output",
        [](const Args& a) {
            const BatchDims s = batch_dims(a);
            TensorData out = a.tensor("x");
            out.shape = {s.b, s.h, s.t, s.hd};
            return tensor_result(std::move(out));
        },
        op.params));
    op.mistakes.push_back(make_mistake(
        "heads_interleaved", "output",
        [](const Args& a) {
            const BatchDims s = batch_dims(a);
            return tensor_result(gather_heads(a.tensor("x"), s, HeadColumns::Interleaved, false));
        },
        op.params));
    op.mistakes.push_back(make_mistake(
        "batch_head_swapped", "output",
        [](const Args& a) {
            const BatchDims s = batch_dims(a);
            return tensor_result(gather_heads(a.tensor("x"), s, HeadColumns::Blocks, true));
        },
        op.params));
}

// --------------------------------------------------------- batched MHSA

// One causal head: softmax(mask(q·kᵀ·scale))·v, (T, hd) slices in and out.
Matrix causal_head(const Matrix& q, const Matrix& k, const Matrix& v, double scale) {
    return attend(softmax_rows(causal_mask(Matrix((q * k.transpose()) * scale))), v);
}

struct BatchedLayer {
    std::vector<Matrix> x;
    Matrix w_q, w_k, w_v, w_o;
    int n_heads;
};

BatchedLayer batched_layer(const Args& a) {
    BatchedLayer l{a.matrices("x"), a.matrix("w_q"), a.matrix("w_k"), a.matrix("w_v"), a.matrix("w_o"),
                   a.integer("n_heads")};
    // The right op's checks, so that a variant never runs on inputs it rejects.
    (void)batched_causal_mhsa(l.x, l.w_q, l.w_k, l.w_v, l.w_o, l.n_heads);
    return l;
}

// The layer with the head slices of slot (b, h) taken from source_pair(b, h)
// and each score scaled by `scale`; everything else as the reference does it.
TensorData batched_layer_variant(const BatchedLayer& l, double scale, bool head_first) {
    const BatchDims s{static_cast<int64_t>(l.x.size()), l.x[0].rows(), l.x[0].cols(), l.n_heads,
                      l.x[0].cols() / l.n_heads};
    std::vector<Heads> q, k, v;
    for (const Matrix& sequence : l.x) {
        const QKV p = qkv_projection(sequence, l.w_q, l.w_k, l.w_v);
        q.push_back(split_heads(p.q, l.n_heads));
        k.push_back(split_heads(p.k, l.n_heads));
        v.push_back(split_heads(p.v, l.n_heads));
    }
    std::vector<TensorData> outs;
    for (int64_t b = 0; b < s.b; ++b) {
        Heads heads;
        for (int64_t h = 0; h < s.h; ++h) {
            const SlicePair from = source_pair(head_first, b, h, s);
            const size_t fb = static_cast<size_t>(from.b), fh = static_cast<size_t>(from.h);
            heads.push_back(causal_head(q[fb][fh], k[fb][fh], v[fb][fh], scale));
        }
        outs.push_back(from_matrix(output_projection(merge_heads(heads), l.w_o)));
    }
    return stack(outs);
}

void add_batched_mhsa_mistakes(std::vector<Op>& ops) {
    Op& op = op_named(ops, "batched_causal_mhsa");
    op.mistakes.push_back(make_mistake(
        "scale_sqrt_d", "scores",
        [](const Args& a) {
            const BatchedLayer l = batched_layer(a);
            const double d = static_cast<double>(l.x[0].cols());
            return tensor_result(batched_layer_variant(l, 1.0 / std::sqrt(d), false));
        },
        op.params));
    op.mistakes.push_back(make_mistake(
        "scale_sqrt_t", "scores",
        [](const Args& a) {
            const BatchedLayer l = batched_layer(a);
            const double t = static_cast<double>(l.x[0].rows());
            return tensor_result(batched_layer_variant(l, 1.0 / std::sqrt(t), false));
        },
        op.params));
    // The B sequences laid end to end as one sequence of B·T tokens: under the
    // causal mask, every token of sequence b also sees all of sequences 0..b-1.
    op.mistakes.push_back(make_mistake(
        "attends_across_batch", "scores",
        [](const Args& a) {
            const BatchedLayer l = batched_layer(a);
            const Index t = l.x[0].rows(), d = l.x[0].cols();
            Matrix joined(t * static_cast<Index>(l.x.size()), d);
            for (size_t b = 0; b < l.x.size(); ++b) joined.middleRows(static_cast<Index>(b) * t, t) = l.x[b];
            const Matrix out = causal_mhsa(joined, l.w_q, l.w_k, l.w_v, l.w_o, l.n_heads).out;
            std::vector<TensorData> parts;
            for (size_t b = 0; b < l.x.size(); ++b)
                parts.push_back(from_matrix(out.middleRows(static_cast<Index>(b) * t, t)));
            return tensor_result(stack(parts));
        },
        op.params));
    op.mistakes.push_back(make_mistake(
        "batch_head_swapped", "heads",
        [](const Args& a) {
            const BatchedLayer l = batched_layer(a);
            const double hd = static_cast<double>(l.x[0].cols() / l.n_heads);
            return tensor_result(batched_layer_variant(l, 1.0 / std::sqrt(hd), true));
        },
        op.params));
}

// ------------------------------------------------------- parameter count

Result int_result(int64_t value) { return Result{Value::of_int(value), {}}; }

void add_param_count_mistakes(std::vector<Op>& ops) {
    Op& op = op_named(ops, "attention_params");
    // Each variant first runs the right count, for its input checks.
    op.mistakes.push_back(make_mistake(
        "count_misses_w_o", "output",
        [](const Args& a) {
            const int64_t all = attention_params(a.int64("d_model"), a.int64("n_layers"));
            return int_result(all / 4 * 3);  // W_Q, W_K, W_V only
        },
        op.params));
    op.mistakes.push_back(make_mistake(
        "count_one_layer", "output",
        [](const Args& a) {
            (void)attention_params(a.int64("d_model"), a.int64("n_layers"));
            return int_result(attention_params(a.int64("d_model"), 1));
        },
        op.params));
    // 4 * d_model * d_model * n_layers evaluated in 32-bit int: the product
    // wraps modulo 2^32 (what g++ does with the undefined overflow) before it
    // is widened to the long long that is returned.
    op.mistakes.push_back(make_mistake(
        "int_overflow", "output",
        [](const Args& a) {
            const int64_t all = attention_params(a.int64("d_model"), a.int64("n_layers"));
            const auto low_bits = static_cast<uint32_t>(static_cast<uint64_t>(all));
            return int_result(static_cast<int32_t>(low_bits));
        },
        op.params));
    // Every projection counted with its bias: 4 · (d_model² + d_model) per layer.
    op.mistakes.push_back(make_mistake(
        "count_biases", "output",
        [](const Args& a) {
            const int64_t d = a.int64("d_model"), layers = a.int64("n_layers");
            (void)attention_params(d, layers);
            return int_result(4 * (d * d + d) * layers);
        },
        op.params));
    // The count computed in float, left to right as written (4.0f * d * d * n):
    // exact below 2^24, rounded to float's 24-bit significand above it.
    op.mistakes.push_back(make_mistake(
        "count_in_float", "output",
        [](const Args& a) {
            const int64_t d = a.int64("d_model"), layers = a.int64("n_layers");
            (void)attention_params(d, layers);
            volatile float product = 4.0f * static_cast<float>(d);  // volatile: each step rounded to float, as a learner's float is
            product = product * static_cast<float>(d);
            product = product * static_cast<float>(layers);
            return int_result(static_cast<int64_t>(product));
        },
        op.params));
}

// ------------------------------------------------------ tensor-core tiles

constexpr int64_t kTileWidth = 16;  // columns a tensor-core tile takes at a time

int64_t checked_head_dim(const Args& a) {
    const int64_t hd = a.int64("head_dim");
    if (hd < 1) fail("head_dim: expected at least 1, got " + std::to_string(hd));
    if (hd > (int64_t{1} << 40)) fail("head_dim: " + std::to_string(hd) + " is far too large");
    return hd;
}

void add_tile_ops(std::vector<Op>& ops) {
    ops.push_back(make_op({
        "padded_head_dim",
        "head_dim rounded up to whole 16-wide tensor-core tiles: 64 -> 64, 72 -> 80, 1 -> 16.",
        {int_param("head_dim")}, "",
        [](const Args& a) {
            const int64_t hd = checked_head_dim(a);
            return int_result((hd + kTileWidth - 1) / kTileWidth * kTileWidth);
        },
        ValueKind::Int}));
    Op& op = ops.back();
    // Integer division truncates, so hd / 16 * 16 (or std::ceil(hd / 16)) drops
    // the last, partial tile: 72 -> 64, leaving 8 columns out.
    op.mistakes.push_back(make_mistake(
        "pad_rounds_down", "output",
        [](const Args& a) { return int_result(checked_head_dim(a) / kTileWidth * kTileWidth); },
        op.params));
    // (hd / 16 + 1) * 16 rounds up correctly only when hd is not already a
    // multiple of 16: 64 -> 80, a whole tile of padding for nothing.
    op.mistakes.push_back(make_mistake(
        "pad_adds_extra_tile", "output",
        [](const Args& a) { return int_result((checked_head_dim(a) / kTileWidth + 1) * kTileWidth); },
        op.params));
}

// --------------------------------------------------- one head vs H heads

// How the narrow heads' (T, hd) slices are cut out of a (T, D) projection.
enum class NarrowSplit {
    Blocks,        // head h = columns h·hd .. (h+1)·hd − 1 (right)
    Interleaved,   // head h = columns h, h + H, h + 2H, … (heads_interleaved)
    NoTranspose,   // the row-major buffer read as (H, T, hd) (split_without_transpose)
};

Heads narrow_slices(const Matrix& m, int n_heads, NarrowSplit split) {
    const Index t = m.rows(), d = m.cols(), hd = d / n_heads;
    Heads heads(static_cast<size_t>(n_heads), Matrix(t, hd));
    for (Index h = 0; h < n_heads; ++h)
        for (Index r = 0; r < t; ++r)
            for (Index j = 0; j < hd; ++j) {
                Index row = r, col = h * hd + j;
                if (split == NarrowSplit::Interleaved) col = h + j * n_heads;
                if (split == NarrowSplit::NoTranspose) {
                    const Index flat = (h * t + r) * hd + j;  // position in the (T, D) buffer
                    row = flat / d;
                    col = flat % d;
                }
                heads[static_cast<size_t>(h)](r, j) = m(row, col);
            }
    return heads;
}

struct HeadComparison {
    Matrix q, k;  // (T, D) projections
    int n_heads;
};

HeadComparison head_comparison(const Args& a) {
    const Matrix x = a.matrix("x");
    const Matrix w_q = a.matrix("w_q"), w_k = a.matrix("w_k");
    const Index d = x.cols();
    if (w_q.rows() != d || w_q.cols() != d)
        fail("w_q: expected shape (" + std::to_string(d) + ", " + std::to_string(d) + "), got (" +
             std::to_string(w_q.rows()) + ", " + std::to_string(w_q.cols()) + ")");
    if (w_k.rows() != d || w_k.cols() != d)
        fail("w_k: expected shape (" + std::to_string(d) + ", " + std::to_string(d) + "), got (" +
             std::to_string(w_k.rows()) + ", " + std::to_string(w_k.cols()) + ")");
    const int n_heads = a.integer("n_heads");
    (void)split_heads(x, n_heads);  // n_heads >= 1 and divides D, or a ReferenceError
    return {linear(x, w_q), linear(x, w_k), n_heads};
}

// Slice 0: the one wide head (hd = D); slices 1..H: the H narrow heads.
Result stacked_weights(const AttentionWeights& wide, const AttentionWeights& narrow) {
    auto joined = [](const Heads& first, const Heads& rest) {
        Heads all = first;
        all.insert(all.end(), rest.begin(), rest.end());
        return from_matrices(all);
    };
    TensorData weights = joined(wide.weights, narrow.weights);
    return tensor_result(weights, {{"scores", joined(wide.scores, narrow.scores)},
                                   {"masked", joined(wide.masked, narrow.masked)},
                                   {"weights", weights}});
}

// Which width the narrow heads' scores are divided by the square root of.
enum class NarrowScale { HeadDim, ModelDim };

// The narrow heads cut by `split` and scaled by 1/sqrt(`by`); the wide head right.
Result head_comparison_variant(const Args& a, NarrowSplit split, NarrowScale by) {
    const HeadComparison c = head_comparison(a);
    const Index width = by == NarrowScale::HeadDim ? c.q.cols() / c.n_heads : c.q.cols();
    const double scale = 1.0 / std::sqrt(static_cast<double>(width));
    const AttentionWeights wide = causal_attention_weights(Heads{c.q}, Heads{c.k});
    const Heads q = narrow_slices(c.q, c.n_heads, split), k = narrow_slices(c.k, c.n_heads, split);
    AttentionWeights narrow;
    for (size_t h = 0; h < q.size(); ++h) {
        narrow.scores.push_back((q[h] * k[h].transpose()) * scale);
        narrow.masked.push_back(causal_mask(narrow.scores.back()));
        narrow.weights.push_back(softmax_rows(narrow.masked.back()));
    }
    return stacked_weights(wide, narrow);
}

void add_head_comparison_op(std::vector<Op>& ops) {
    ops.push_back(make_op({
        "one_vs_many_heads",
        "Causal attention weights of 1 wide head then of H narrow heads, stacked as (1 + H, T, T).",
        {tensor_param("x", "(T, D)"), tensor_param("w_q", "(D, D)"), tensor_param("w_k", "(D, D)"),
         int_param("n_heads")},
        "(1 + H, T, T)",
        [](const Args& a) {
            const HeadComparison c = head_comparison(a);
            return stacked_weights(
                causal_attention_weights(Heads{c.q}, Heads{c.k}),
                causal_attention_weights(split_heads(c.q, c.n_heads), split_heads(c.k, c.n_heads)));
        }}));
    Op& op = ops.back();
    op.mistakes.push_back(make_mistake(
        "scale_sqrt_d", "scores",
        [](const Args& a) { return head_comparison_variant(a, NarrowSplit::Blocks, NarrowScale::ModelDim); },
        op.params));
    op.mistakes.push_back(make_mistake(
        "heads_interleaved", "scores",
        [](const Args& a) { return head_comparison_variant(a, NarrowSplit::Interleaved, NarrowScale::HeadDim); },
        op.params));
    op.mistakes.push_back(make_mistake(
        "split_without_transpose", "scores",
        [](const Args& a) { return head_comparison_variant(a, NarrowSplit::NoTranspose, NarrowScale::HeadDim); },
        op.params));
}

}  // namespace

void add_batched_ops(std::vector<Op>& ops) {
    add_tile_ops(ops);
    add_head_comparison_op(ops);
    add_layout_mistakes(ops);
    add_batched_mhsa_mistakes(ops);
    add_param_count_mistakes(ops);
}

}  // namespace attnlab::reference::support
