// How many floating-point operations each op needs, from its inputs' shapes:
// the arithmetic side of the performance report's roofline (the emulator
// counts every memory access exactly but no arithmetic). Conventions: a
// multiply-add is 2 FLOPs; a softmax element about 5 (max, subtract, exp,
// sum, divide); a causal op computes only the visible half (key j <= query i,
// T·(T+1)/2 pairs per (b, h)); copies, splits and masks are 0. The counts are
// the operation's, not a kernel's: a kernel that recomputes does more.
#include <cstdint>
#include <string>
#include <vector>

#include "registry_support.hpp"

namespace attnlab::reference::support {

namespace {

const Shape& shape_of(const Inputs& in, const std::string& name, size_t rank) {
    const auto it = in.find(name);
    if (it == in.end() || it->second.kind != ValueKind::Tensor) throw ReferenceError("flops: no tensor named " + name);
    const Shape& s = it->second.tensor.shape;
    if (s.size() != rank) throw ReferenceError("flops: " + name + " has rank " + std::to_string(s.size()));
    return s;
}

double d(int64_t v) { return static_cast<double>(v); }

// Visible (query, key) pairs of one causal (T, T) slice.
double causal_pairs(int64_t t) { return d(t) * d(t + 1) / 2.0; }

constexpr double kSoftmaxPerElement = 5.0;

void set(std::vector<Op>& ops, const std::string& name, const std::string& formula, std::function<double(const Inputs&)> f) {
    Op& op = op_named(ops, name);
    op.flops = std::move(f);
    op.flops_formula = formula;
}

void needs_only(std::vector<Op>& ops, const std::string& name, const std::string& input, const std::string& formula,
                std::function<double(const Inputs&)> f) {
    op_named(ops, name).partial_reads.push_back({input, formula, std::move(f)});
}

}  // namespace

void add_flop_counts(std::vector<Op>& ops) {
    // (B, H, T, hd): QKᵀ and PV over the causal half, a softmax per visible score.
    set(ops, "batched_causal_attention", "(4·hd + 5)·B·H·T·(T+1)/2", [](const Inputs& in) {
        const Shape& q = shape_of(in, "q", 4);
        return d(q[0] * q[1]) * causal_pairs(q[2]) * (4.0 * d(q[3]) + kSoftmaxPerElement);
    });
    set(ops, "batched_attention_scores", "2·B·H·T·T·hd", [](const Inputs& in) {
        const Shape& q = shape_of(in, "q", 4);  // (B, H, T, hd)
        return 2.0 * d(q[0] * q[1]) * d(q[2]) * d(q[2]) * d(q[3]);
    });
    set(ops, "attention_scores_untransposed", "2·B·H·T·T·hd", [](const Inputs& in) {
        const Shape& q = shape_of(in, "q", 4);  // (B, T, H, hd)
        return 2.0 * d(q[0] * q[2]) * d(q[1]) * d(q[1]) * d(q[3]);
    });
    set(ops, "causal_softmax", "5·B·H·T·(T+1)/2", [](const Inputs& in) {
        const Shape& s = shape_of(in, "scores", 4);
        return kSoftmaxPerElement * d(s[0] * s[1]) * causal_pairs(s[2]);
    });
    // x (..., N): a softmax per element of every row.
    set(ops, "softmax_rows", "5·(elements of x)", [](const Inputs& in) {
        const auto x = in.find("x");
        if (x == in.end() || x->second.kind != ValueKind::Tensor) throw ReferenceError("flops: no tensor named x");
        return kSoftmaxPerElement * d(x->second.tensor.numel());
    });
    set(ops, "batched_row_sum", "B·H·R·(N-1)", [](const Inputs& in) {
        const Shape& x = shape_of(in, "x", 4);
        return d(x[0] * x[1] * x[2]) * d(x[3] - 1);
    });
    set(ops, "batched_causal_mask", "0 (a copy)", [](const Inputs& in) {
        shape_of(in, "scores", 4);
        return 0.0;
    });
    set(ops, "batched_split_heads", "0 (a copy)", [](const Inputs& in) {
        shape_of(in, "x", 3);
        return 0.0;
    });
    set(ops, "split_heads", "0 (a copy)", [](const Inputs& in) {
        shape_of(in, "x", 2);
        return 0.0;
    });
    // x (T, D) or (B, T, D) times w_qkv (D, 3D): one multiply-add per x element and output column.
    set(ops, "fused_qkv", "2·T·D·3D", [](const Inputs& in) {
        const auto x = in.find("x");
        if (x == in.end() || x->second.kind != ValueKind::Tensor) throw ReferenceError("flops: no tensor named x");
        const Shape& w = shape_of(in, "w_qkv", 2);
        return 2.0 * d(x->second.tensor.numel()) * d(w[1]);
    });

    // The least traffic's exceptions: a causal op never needs the future
    // scores (key j > query i); it still writes every output cell.
    auto visible_scores = [](const Inputs& in) {
        const Shape& s = shape_of(in, "scores", 4);
        return d(s[0] * s[1]) * causal_pairs(s[2]);
    };
    needs_only(ops, "batched_causal_mask", "scores", "B·H·T·(T+1)/2 (the visible scores)", visible_scores);
    needs_only(ops, "causal_softmax", "scores", "B·H·T·(T+1)/2 (the visible scores)", visible_scores);
}

}  // namespace attnlab::reference::support
