// The core ops: projections, heads, the steps of attention, whole layers and
// the parameter count. Each op is a function that computes it from checked
// inputs (Args) and a row in a table below that names it, says what it does in
// one line, and lists its parameters with their documented shapes; add_ops
// registers the rows in order (the order `attnlab dev ops` prints).
//
// A new op is one run function and one row. Its mistakes are attached by name
// in the mistakes_*.cpp files, its FLOPs in registry_flops.cpp.
#include <utility>

#include "registry_support.hpp"

namespace attnlab::reference::support {

namespace {

// ------------------------------------------------------------ shared params

// Parameters several ops take, with the same name and documented shape.
Param x_td() { return tensor_param("x", "(T, D)"); }
Param x_btd() { return tensor_param("x", "(B, T, D)"); }
Param w_q() { return tensor_param("w_q", "(D, D)"); }
Param w_k() { return tensor_param("w_k", "(D, D)"); }
Param w_v() { return tensor_param("w_v", "(D, D)"); }
Param w_o() { return tensor_param("w_o", "(D, D)"); }
Param w_qkv() { return tensor_param("w_qkv", "(D, 3D)"); }
Param q_heads() { return tensor_param("q", "(H, T, hd)"); }
Param k_heads() { return tensor_param("k", "(H, T, hd)"); }
Param heads() { return tensor_param("heads", "(H, T, hd)"); }
Param n_heads() { return int_param("n_heads"); }

// ------------------------------------------------------------- projections

Result run_linear(const Args& a) { return tensor_result(from_matrix(linear(a.matrix("x"), a.matrix("w")))); }

Result run_qkv_projection(const Args& a) {
    const QKV qkv = qkv_projection(a.matrix("x"), a.matrix("w_q"), a.matrix("w_k"), a.matrix("w_v"));
    return tensor_result(stacked_qkv(qkv), qkv_stages(qkv));
}

Result run_fused_qkv(const Args& a) {
    const FusedQKV f = fused_qkv_projection(a.matrix("x"), a.matrix("w_qkv"));
    std::vector<NamedTensor> stages = qkv_stages(f.split);
    stages.insert(stages.begin(), {"qkv", from_matrix(f.qkv)});
    return tensor_result(stacked_qkv(f.split), std::move(stages));
}

// -------------------------------------------------------------------- heads

Result run_split_heads(const Args& a) {
    return tensor_result(from_matrices(split_heads(a.matrix("x"), a.integer("n_heads"))));
}

Result run_merge_heads(const Args& a) { return tensor_result(from_matrix(merge_heads(a.matrices("heads")))); }

// ---------------------------------------------------------- attention steps

Result run_attention_scores(const Args& a) {
    return tensor_result(from_matrices(scaled_scores(a.matrices("q"), a.matrices("k"))));
}

Result run_causal_mask(const Args& a) {
    if (a.tensor("scores").ndim() == 2) return tensor_result(from_matrix(causal_mask(a.matrix("scores"))));
    return tensor_result(from_matrices(causal_mask(a.matrices("scores"))));
}

Result run_softmax_rows(const Args& a) {
    const TensorData& t = a.tensor("x");
    if (t.ndim() < 1 || t.shape.back() < 1)
        fail("x: expected a tensor (..., N) with N >= 1, got shape " + shape_to_string(t.shape));
    // Every axis but the last one just counts rows: view x as (rows, N).
    Index rows = 1;
    for (int i = 0; i + 1 < t.ndim(); ++i) rows *= t.shape[i];
    const Matrix x = read_matrix(t.data.data(), rows, t.shape.back());
    TensorData out = from_matrix(softmax_rows(x));
    out.shape = t.shape;
    return tensor_result(std::move(out));
}

Result run_causal_attention_weights(const Args& a) {
    const AttentionWeights aw = causal_attention_weights(a.matrices("q"), a.matrices("k"));
    return tensor_result(from_matrices(aw.weights), attention_weight_stages(aw));
}

Result run_attend(const Args& a) {
    return tensor_result(from_matrices(attend(a.matrices("weights"), a.matrices("v"))));
}

Result run_merge_project(const Args& a) {
    const Matrix concat = merge_heads(a.matrices("heads"));
    const Matrix out = output_projection(concat, a.matrix("w_o"));
    return tensor_result(from_matrix(out), {{"concat", from_matrix(concat)}, {"out", from_matrix(out)}});
}

// ------------------------------------------------------------- whole layers

Result run_causal_mhsa(const Args& a) {
    const MhsaStages s = causal_mhsa(a.matrix("x"), a.matrix("w_q"), a.matrix("w_k"), a.matrix("w_v"),
                                     a.matrix("w_o"), a.integer("n_heads"));
    return tensor_result(from_matrix(s.out), mhsa_stages(s));
}

Result run_fused_causal_mhsa(const Args& a) {
    const MhsaStages s = fused_causal_mhsa(a.matrix("x"), a.matrix("w_qkv"), a.matrix("w_o"), a.integer("n_heads"));
    return tensor_result(from_matrix(s.out), mhsa_stages(s));
}

Result run_batched_split_heads(const Args& a) {
    std::vector<TensorData> per_sequence;
    for (const Heads& h : batched_split_heads(a.matrices("x"), a.integer("n_heads")))
        per_sequence.push_back(from_matrices(h));
    return tensor_result(stack(per_sequence));
}

Result run_batched_causal_mhsa(const Args& a) {
    const std::vector<MhsaStages> batch = batched_causal_mhsa(a.matrices("x"), a.matrix("w_q"), a.matrix("w_k"),
                                                              a.matrix("w_v"), a.matrix("w_o"), a.integer("n_heads"));
    std::vector<std::vector<NamedTensor>> per_sequence;
    for (const MhsaStages& s : batch) per_sequence.push_back(mhsa_stages(s));
    return batched_layer_result(per_sequence);
}

// ----------------------------------------------------------------- counting

Result run_attention_params(const Args& a) {
    return Result{Value::of_int(attention_params(a.int64("d_model"), a.int64("n_layers"))), {}};
}

// ------------------------------------------------------------------- tables

// One table per part of the pipeline, in the order `attnlab dev ops` lists them.
std::vector<OpSpec> projection_and_head_ops() {
    return {
        {"linear", "Project every row of x with the same weight matrix: x · w.",
         {tensor_param("x", "(T, Din)"), tensor_param("w", "(Din, Dout)")}, "(T, Dout)", run_linear},
        {"qkv_projection", "Q, K, V from three separate projections, stacked as (3, T, D).",
         {x_td(), w_q(), w_k(), w_v()}, "(3, T, D)", run_qkv_projection},
        {"fused_qkv", "Q, K, V from one (D, 3D) matmul, columns split in order Q | K | V.",
         {x_td(), w_qkv()}, "(3, T, D)", run_fused_qkv},
        {"split_heads", "Split the D columns into n_heads heads of hd = D / H columns each.",
         {x_td(), n_heads()}, "(H, T, hd)", run_split_heads},
        {"merge_heads", "Put the heads side by side again (inverse of split_heads).",
         {heads()}, "(T, D)", run_merge_heads},
    };
}

std::vector<OpSpec> attention_step_ops() {
    return {
        {"attention_scores", "Per head, Q · K^T / sqrt(hd): how well each query matches each key.",
         {q_heads(), k_heads()}, "(H, T, T)", run_attention_scores},
        {"causal_mask", "Set scores above the diagonal (key after query) to -inf.",
         {tensor_param("scores", "(H, T, T) or (T, T)")}, "same as scores", run_causal_mask},
        {"softmax_rows", "Stable softmax over the last axis; -inf gives 0; an all -inf row is an error.",
         {tensor_param("x", "(..., N)")}, "(..., N)", run_softmax_rows},
        {"causal_attention_weights", "Per head: scaled scores, causal mask, row softmax.",
         {q_heads(), k_heads()}, "(H, T, T)", run_causal_attention_weights},
        {"attend", "Per head, weights · V: each output row averages the value rows.",
         {tensor_param("weights", "(H, T, T)"), tensor_param("v", "(H, T, hd)")}, "(H, T, hd)", run_attend},
        {"merge_project", "Merge the heads into (T, D), then project with W_O.",
         {heads(), w_o()}, "(T, D)", run_merge_project},
    };
}

// Whole layers, on one sequence or a batch, and what a model's attention weighs.
std::vector<OpSpec> layer_ops() {
    return {
        {"causal_mhsa", "Full causal multi-head self-attention with separate W_Q, W_K, W_V.",
         {x_td(), w_q(), w_k(), w_v(), w_o(), n_heads()}, "(T, D)", run_causal_mhsa},
        {"fused_causal_mhsa", "Full causal multi-head self-attention with a fused (D, 3D) W_QKV.",
         {x_td(), w_qkv(), w_o(), n_heads()}, "(T, D)", run_fused_causal_mhsa},
        {"batched_split_heads", "Split heads for every sequence: (B, T, D) -> (B, H, T, hd).",
         {x_btd(), n_heads()}, "(B, H, T, hd)", run_batched_split_heads},
        {"batched_causal_mhsa", "Causal MHSA on each sequence of a batch; stages gain a leading B axis.",
         {x_btd(), w_q(), w_k(), w_v(), w_o(), n_heads()}, "(B, T, D)", run_batched_causal_mhsa},
        {"attention_params", "Attention weights in n_layers layers: 4 * d_model^2 each (no biases).",
         {int_param("d_model"), int_param("n_layers")}, "", run_attention_params, ValueKind::Int},
    };
}

}  // namespace

void add_core_ops(std::vector<Op>& ops) {
    add_ops(ops, projection_and_head_ops());
    add_ops(ops, attention_step_ops());
    add_ops(ops, layer_ops());
}

}  // namespace attnlab::reference::support
