// The registry: each named op checks and converts its Values (row-major float
// tensors) into Eigen matrices, calls the functions in ops.hpp and converts the
// results back. No attention math lives here, only layout. The conversions and
// the table helpers are in registry_support.hpp; more ops are in the
// registry_*.cpp files beside this one.
#include "attnlab/reference/registry.hpp"

#include <utility>

#include "registry_support.hpp"

namespace attnlab::reference {

namespace support {

void add_core_ops(std::vector<Op>& ops) {
    const Param x_td = tensor_param("x", "(T, D)");
    const Param w_q = tensor_param("w_q", "(D, D)");
    const Param w_k = tensor_param("w_k", "(D, D)");
    const Param w_v = tensor_param("w_v", "(D, D)");
    const Param w_o = tensor_param("w_o", "(D, D)");
    const Param w_qkv = tensor_param("w_qkv", "(D, 3D)");
    const Param q_heads = tensor_param("q", "(H, T, hd)");
    const Param k_heads = tensor_param("k", "(H, T, hd)");
    const Param heads = tensor_param("heads", "(H, T, hd)");
    const Param n_heads = int_param("n_heads");

    ops.push_back(make_op(
        "linear", "Project every row of x with the same weight matrix: x · w.",
        {tensor_param("x", "(T, Din)"), tensor_param("w", "(Din, Dout)")}, "(T, Dout)",
        [](const Args& a) {
            return tensor_result(from_matrix(linear(a.matrix("x"), a.matrix("w"))));
        }));

    ops.push_back(make_op(
        "qkv_projection", "Q, K, V from three separate projections, stacked as (3, T, D).",
        {x_td, w_q, w_k, w_v}, "(3, T, D)", [](const Args& a) {
            const QKV qkv = qkv_projection(a.matrix("x"), a.matrix("w_q"), a.matrix("w_k"),
                                           a.matrix("w_v"));
            return tensor_result(stacked_qkv(qkv), qkv_stages(qkv));
        }));

    ops.push_back(make_op(
        "fused_qkv", "Q, K, V from one (D, 3D) matmul, columns split in order Q | K | V.",
        {x_td, w_qkv}, "(3, T, D)", [](const Args& a) {
            const FusedQKV f = fused_qkv_projection(a.matrix("x"), a.matrix("w_qkv"));
            std::vector<NamedTensor> stages = qkv_stages(f.split);
            stages.insert(stages.begin(), {"qkv", from_matrix(f.qkv)});
            return tensor_result(stacked_qkv(f.split), std::move(stages));
        }));

    ops.push_back(make_op(
        "split_heads", "Split the D columns into n_heads heads of hd = D / H columns each.",
        {x_td, n_heads}, "(H, T, hd)", [](const Args& a) {
            return tensor_result(from_matrices(split_heads(a.matrix("x"), a.integer("n_heads"))));
        }));

    ops.push_back(make_op(
        "merge_heads", "Put the heads side by side again (inverse of split_heads).", {heads},
        "(T, D)", [](const Args& a) {
            return tensor_result(from_matrix(merge_heads(a.matrices("heads"))));
        }));

    ops.push_back(make_op(
        "attention_scores", "Per head, Q · K^T / sqrt(hd): how well each query matches each key.",
        {q_heads, k_heads}, "(H, T, T)", [](const Args& a) {
            return tensor_result(from_matrices(scaled_scores(a.matrices("q"), a.matrices("k"))));
        }));

    ops.push_back(make_op(
        "causal_mask", "Set scores above the diagonal (key after query) to -inf.",
        {tensor_param("scores", "(H, T, T) or (T, T)")}, "same as scores", [](const Args& a) {
            if (a.tensor("scores").ndim() == 2)
                return tensor_result(from_matrix(causal_mask(a.matrix("scores"))));
            return tensor_result(from_matrices(causal_mask(a.matrices("scores"))));
        }));

    ops.push_back(make_op(
        "softmax_rows",
        "Stable softmax over the last axis; -inf gives 0; an all -inf row is an error.",
        {tensor_param("x", "(..., N)")}, "(..., N)", [](const Args& a) {
            const TensorData& t = a.tensor("x");
            if (t.ndim() < 1 || t.shape.back() < 1)
                fail("x: expected a tensor (..., N) with N >= 1, got shape " +
                     shape_to_string(t.shape));
            // Every axis but the last one just counts rows: view x as (rows, N).
            Index rows = 1;
            for (int i = 0; i + 1 < t.ndim(); ++i) rows *= t.shape[i];
            const Matrix x = read_matrix(t.data.data(), rows, t.shape.back());
            TensorData out = from_matrix(softmax_rows(x));
            out.shape = t.shape;
            return tensor_result(std::move(out));
        }));

    ops.push_back(make_op(
        "causal_attention_weights", "Per head: scaled scores, causal mask, row softmax.",
        {q_heads, k_heads}, "(H, T, T)", [](const Args& a) {
            const AttentionWeights aw = causal_attention_weights(a.matrices("q"), a.matrices("k"));
            return tensor_result(from_matrices(aw.weights), attention_weight_stages(aw));
        }));

    ops.push_back(make_op(
        "attend", "Per head, weights · V: each output row averages the value rows.",
        {tensor_param("weights", "(H, T, T)"), tensor_param("v", "(H, T, hd)")}, "(H, T, hd)",
        [](const Args& a) {
            return tensor_result(from_matrices(attend(a.matrices("weights"), a.matrices("v"))));
        }));

    ops.push_back(make_op(
        "merge_project", "Merge the heads into (T, D), then project with W_O.", {heads, w_o},
        "(T, D)", [](const Args& a) {
            const Matrix concat = merge_heads(a.matrices("heads"));
            const Matrix out = output_projection(concat, a.matrix("w_o"));
            return tensor_result(from_matrix(out),
                                 {{"concat", from_matrix(concat)}, {"out", from_matrix(out)}});
        }));

    ops.push_back(make_op(
        "causal_mhsa", "Full causal multi-head self-attention with separate W_Q, W_K, W_V.",
        {x_td, w_q, w_k, w_v, w_o, n_heads}, "(T, D)", [](const Args& a) {
            const MhsaStages s =
                causal_mhsa(a.matrix("x"), a.matrix("w_q"), a.matrix("w_k"), a.matrix("w_v"),
                            a.matrix("w_o"), a.integer("n_heads"));
            return tensor_result(from_matrix(s.out), mhsa_stages(s));
        }));

    ops.push_back(make_op(
        "fused_causal_mhsa", "Full causal multi-head self-attention with a fused (D, 3D) W_QKV.",
        {x_td, w_qkv, w_o, n_heads}, "(T, D)", [](const Args& a) {
            const MhsaStages s = fused_causal_mhsa(a.matrix("x"), a.matrix("w_qkv"),
                                                   a.matrix("w_o"), a.integer("n_heads"));
            return tensor_result(from_matrix(s.out), mhsa_stages(s));
        }));

    ops.push_back(make_op(
        "batched_split_heads", "Split heads for every sequence: (B, T, D) -> (B, H, T, hd).",
        {tensor_param("x", "(B, T, D)"), n_heads}, "(B, H, T, hd)", [](const Args& a) {
            std::vector<TensorData> per_sequence;
            for (const Heads& h : batched_split_heads(a.matrices("x"), a.integer("n_heads")))
                per_sequence.push_back(from_matrices(h));
            return tensor_result(stack(per_sequence));
        }));

    ops.push_back(make_op(
        "batched_causal_mhsa",
        "Causal MHSA on each sequence of a batch; stages gain a leading B axis.",
        {tensor_param("x", "(B, T, D)"), w_q, w_k, w_v, w_o, n_heads}, "(B, T, D)",
        [](const Args& a) {
            const std::vector<MhsaStages> batch =
                batched_causal_mhsa(a.matrices("x"), a.matrix("w_q"), a.matrix("w_k"),
                                    a.matrix("w_v"), a.matrix("w_o"), a.integer("n_heads"));
            // Stage k of the batch = stage k of every sequence, stacked along B.
            std::vector<std::vector<NamedTensor>> per_sequence;
            for (const MhsaStages& s : batch) per_sequence.push_back(mhsa_stages(s));
            std::vector<NamedTensor> stages;
            for (size_t k = 0; k < per_sequence.front().size(); ++k) {
                std::vector<TensorData> parts;
                for (const auto& seq : per_sequence) parts.push_back(seq[k].tensor);
                stages.push_back({per_sequence.front()[k].name, stack(parts)});
            }
            TensorData out = stages.back().tensor;  // "out", (B, T, D)
            return tensor_result(std::move(out), std::move(stages));
        }));

    ops.push_back(make_op(
        "attention_params", "Attention weights in n_layers layers: 4 * d_model^2 each (no biases).",
        {int_param("d_model"), int_param("n_layers")}, "",
        [](const Args& a) {
            const int64_t count = attention_params(a.int64("d_model"), a.int64("n_layers"));
            return Result{Value::of_int(count), {}};
        },
        ValueKind::Int));

}

}  // namespace support

namespace {

std::vector<Op> build_ops() {
    std::vector<Op> ops;
    support::add_core_ops(ops);
    support::add_step_ops(ops);
    support::add_batched_ops(ops);
    support::add_core_mistakes(ops);
    support::add_softmax_mistakes(ops);
    support::add_online_softmax_op(ops);
    support::add_cuda_ops(ops);
    support::add_flop_counts(ops);
    return ops;
}

}  // namespace

const std::vector<Op>& all_ops() {
    static const std::vector<Op> ops = build_ops();
    return ops;
}

const Op* find_op(const std::string& name) {
    for (const Op& op : all_ops())
        if (op.name == name) return &op;
    return nullptr;
}

std::optional<double> op_flops(const Op& op, const Inputs& inputs) {
    if (!op.flops) return std::nullopt;
    try {
        return op.flops(inputs);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<double> needed_elements(const Op& op, const std::string& input, const Inputs& inputs) {
    for (const PartialRead& r : op.partial_reads) {
        if (r.input != input) continue;
        try {
            return r.elements(inputs);
        } catch (const std::exception&) {
            return std::nullopt;
        }
    }
    const auto it = inputs.find(input);
    if (it == inputs.end() || it->second.kind != ValueKind::Tensor) return std::nullopt;
    return static_cast<double>(it->second.tensor.data.size());
}

const Mistake* find_mistake(const std::string& op_name, const std::string& id) {
    const Op* op = find_op(op_name);
    if (!op) return nullptr;
    for (const Mistake& m : op->mistakes)
        if (m.id == id) return &m;
    return nullptr;
}

}  // namespace attnlab::reference
