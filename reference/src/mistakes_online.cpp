// The online-softmax exercise: causal attention of one head computed over
// chunks of keys with a running max, sum and accumulator (what FlashAttention
// does per tile), and the mistakes learners make in that loop. The right
// answer is plain causal attention: the chunking must not change it. Each
// variant runs the loop the way float learner code does, with one thing
// wrong, so overflow and 0/0 give inf and NaN where theirs do.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "mistakes_support.hpp"

namespace attnlab::reference::support {

namespace {

struct OnlineHead {
    Matrix q, k, v;
    Index chunk = 1;
};

OnlineHead online_inputs(const Args& a) {
    OnlineHead in{a.matrix("q"), a.matrix("k"), a.matrix("v"), 0};
    const int64_t chunk = a.int64("chunk");
    if (chunk < 1) fail("chunk: expected at least 1 key per chunk, got " + std::to_string(chunk));
    in.chunk = static_cast<Index>(chunk);
    if (in.k.rows() != in.q.rows() || in.k.cols() != in.q.cols())
        fail("k: expected the shape of q (T, hd), got (" + std::to_string(in.k.rows()) + ", " + std::to_string(in.k.cols()) + ")");
    if (in.v.rows() != in.q.rows())
        fail("v: expected T = " + std::to_string(in.q.rows()) + " rows (T, hd), got " + std::to_string(in.v.rows()));
    if (in.q.cols() < 1) fail("q: expected hd >= 1");
    return in;
}

// One way of running the loop: the default is right, each mistake changes one field.
struct OnlineVariant {
    SoftmaxKind shift = SoftmaxKind::Stable;  // NoMaxSubtraction: m stays 0; MaxFromZero: m starts at 0
    bool rescale_sum = true, rescale_acc = true;
    bool rescale_inverted = false;     // exp(m_new - m_old)
    bool first_chunk_unscaled = false; // no rescale before the first chunk (a loop that starts it at its second)
    bool mask_diagonal_chunk = true;   // false: the chunk holding the query is read whole
    bool causal = true;                // false: every chunk, every key
    bool drop_partial_chunk = false;   // the loop stops before a last, shorter chunk
    bool scaled = true;
};

// Row i of the output: query i over its chunks of keys, in float.
void online_row(const OnlineVariant& v, const OnlineHead& in, Index i, Matrix& out) {
    const Index T = in.k.rows(), hd = in.q.cols(), dv = in.v.cols();
    const float scale = v.scaled ? 1.0f / std::sqrt(static_cast<float>(hd)) : 1.0f;
    float m = v.shift == SoftmaxKind::Stable ? -std::numeric_limits<float>::infinity() : 0.0f;
    float l = 0.0f;
    std::vector<float> acc(static_cast<size_t>(dv), 0.0f), p;
    for (Index c = 0; c < T; c += in.chunk) {
        if (v.causal && c > i) break;                          // chunks wholly in the future
        if (v.drop_partial_chunk && c + in.chunk > T) break;
        Index end = std::min(c + in.chunk, T);
        if (v.causal && v.mask_diagonal_chunk) end = std::min(end, i + 1);
        p.assign(static_cast<size_t>(end - c), 0.0f);
        float chunk_max = -std::numeric_limits<float>::infinity();
        for (Index j = c; j < end; ++j) {
            float s = 0.0f;
            for (Index d = 0; d < hd; ++d) s += static_cast<float>(in.q(i, d)) * static_cast<float>(in.k(j, d));
            p[static_cast<size_t>(j - c)] = s * scale;
            chunk_max = std::fmax(chunk_max, s * scale);
        }
        const float m_new = v.shift == SoftmaxKind::NoMaxSubtraction ? 0.0f : std::fmax(m, chunk_max);
        const float alpha = v.rescale_inverted ? std::exp(m_new - m) : std::exp(m - m_new);
        const bool rescale = !(v.first_chunk_unscaled && c == 0);
        if (v.rescale_sum && rescale) l *= alpha;
        if (v.rescale_acc && rescale)
            for (float& x : acc) x *= alpha;
        for (Index j = c; j < end; ++j) {
            const float e = std::exp(p[static_cast<size_t>(j - c)] - m_new);
            l += e;
            for (Index d = 0; d < dv; ++d) acc[static_cast<size_t>(d)] += e * static_cast<float>(in.v(j, d));
        }
        m = m_new;
    }
    for (Index d = 0; d < dv; ++d) out(i, d) = acc[static_cast<size_t>(d)] / l;
}

Result run_online_variant(const OnlineVariant& v, const Args& a) {
    const OnlineHead in = online_inputs(a);
    Matrix out(in.q.rows(), in.v.cols());
    for (Index i = 0; i < in.q.rows(); ++i) online_row(v, in, i, out);
    return tensor_result(from_matrix(out));
}

struct OnlineMistake {
    const char* id;
    void (*change)(OnlineVariant&);
};

const OnlineMistake kOnlineMistakes[] = {
    {"online_no_rescale", [](OnlineVariant& v) { v.rescale_sum = v.rescale_acc = false; }},
    {"online_rescale_incomplete", [](OnlineVariant& v) { v.rescale_acc = false; }},
    {"online_rescale_incomplete", [](OnlineVariant& v) { v.rescale_sum = false; }},
    {"online_rescale_inverted", [](OnlineVariant& v) { v.rescale_inverted = true; }},
    // Inverted, in a loop that rescales only from the second chunk on: no 0·∞ = NaN at the start.
    {"online_rescale_inverted", [](OnlineVariant& v) { v.rescale_inverted = v.first_chunk_unscaled = true; }},
    {"online_diagonal_chunk_unmasked", [](OnlineVariant& v) { v.mask_diagonal_chunk = false; }},
    {"online_partial_chunk_dropped", [](OnlineVariant& v) { v.drop_partial_chunk = true; }},
    {"mask_missing", [](OnlineVariant& v) { v.causal = false; }},
    {"softmax_without_max", [](OnlineVariant& v) { v.shift = SoftmaxKind::NoMaxSubtraction; }},
    {"softmax_without_max", [](OnlineVariant& v) { v.shift = SoftmaxKind::MaxFromZero; }},
    {"no_scale", [](OnlineVariant& v) { v.scaled = false; }},
};

// The same loop in a CUDA kernel over (B, H, T, hd): every (b, h) slice on its
// own, in tiles of `tile` keys. A kernel's tile size is its own choice, so
// each mistake has one form per usual size; the right answer does not depend
// on it, a mistake's output does.
Result run_online_tiles(const OnlineVariant& v, Index tile, const Args& a) {
    const TensorData& q = a.tensor("q");
    if (q.shape.size() != 4 || a.tensor("k").shape != q.shape || a.tensor("v").shape != q.shape || q.shape[3] < 1)
        fail("q, k, v: expected three (B, H, T, hd) tensors of one shape");
    const Index T = q.shape[2], hd = q.shape[3];
    TensorData out;
    out.shape = q.shape;
    for (int64_t l = 0; l < q.shape[0] * q.shape[1]; ++l) {
        const auto slice = [&](const char* name) { return read_matrix(a.tensor(name).data.data() + l * T * hd, T, hd); };
        const OnlineHead in{slice("q"), slice("k"), slice("v"), tile};
        Matrix o(T, hd);
        for (Index i = 0; i < T; ++i) online_row(v, in, i, o);
        for (Index i = 0; i < T; ++i)
            for (Index d = 0; d < hd; ++d) out.data.push_back(static_cast<float>(o(i, d)));
    }
    return tensor_result(std::move(out));
}

}  // namespace

void add_online_tile_forms(Op& op) {
    const char* ids[] = {"online_no_rescale", "online_rescale_incomplete", "online_rescale_inverted",
                         "online_diagonal_chunk_unmasked", "online_partial_chunk_dropped"};
    for (const OnlineMistake& m : kOnlineMistakes) {
        if (std::find_if(std::begin(ids), std::end(ids), [&](const char* id) { return std::string(id) == m.id; }) == std::end(ids))
            continue;  // the others are forms the op has already, tile or not
        OnlineVariant v;
        m.change(v);
        for (Index tile : {1, 4, 8, 16, 32, 64, 128}) {
            // 1: a running max updated key by key; with one key per tile
            // there is no diagonal tile to mask and no partial last tile.
            const bool rescaling_mistake = !v.rescale_sum || !v.rescale_acc || v.rescale_inverted;
            if (tile == 1 && !rescaling_mistake) continue;
            op.mistakes.push_back(make_mistake(
                m.id, "", [v, tile](const Args& a) { return run_online_tiles(v, tile, a); }, op.params));
        }
    }
}

void add_online_softmax_op(std::vector<Op>& ops) {
    ops.push_back(make_op({
        "online_causal_attention",
        "One causal head, softmax(q·kᵀ/√hd)·v, the keys read in chunks of `chunk` (the answer does not depend on it).",
        {tensor_param("q", "(T, hd)"), tensor_param("k", "(T, hd)"), tensor_param("v", "(T, hd)"), int_param("chunk")},
        "(T, hd)", [](const Args& a) {
            // The loop's result is plain causal attention: its stages are
            // that attention's, one head of (T, T) scores, mask and weights.
            const OnlineHead in = online_inputs(a);
            const AttentionWeights aw = causal_attention_weights(Heads{in.q}, Heads{in.k});
            return tensor_result(from_matrix(attend(aw.weights[0], in.v)), attention_weight_stages(aw));
        }}));
    Op& op = ops.back();
    for (const OnlineMistake& m : kOnlineMistakes) {
        OnlineVariant v;
        m.change(v);
        op.mistakes.push_back(make_mistake(m.id, "", [v](const Args& a) { return run_online_variant(v, a); }, op.params));
    }
}

}  // namespace attnlab::reference::support
