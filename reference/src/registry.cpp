// The registry: each named op checks and converts its Values (row-major float
// tensors) into Eigen matrices, calls the functions in ops.hpp and converts the
// results back. No attention math lives here, only layout.
//
// Layout conventions:
//   a rank-2 tensor (R, C)      <-> one Matrix
//   a rank-3 tensor (N, R, C)   <-> std::vector<Matrix> along the leading axis
//                                   (heads, or sequences in a batch)
//   a rank-4 tensor (B, H, R, C) <-> B stacks of H matrices
#include "attnlab/reference/registry.hpp"

#include <limits>
#include <utility>

#include "attnlab/reference/ops.hpp"

namespace attnlab::reference {

namespace {

using Index = Eigen::Index;
using RowMajorFloat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

[[noreturn]] void fail(const std::string& message) { throw ReferenceError(message); }

// ------------------------------------------------------------- conversions

// Rows × cols floats starting at `data`, read row-major, widened to double.
Matrix read_matrix(const float* data, Index rows, Index cols) {
    return Eigen::Map<const RowMajorFloat>(data, rows, cols).cast<double>();
}

TensorData from_matrix(const Matrix& m) {
    TensorData t = TensorData::zeros({m.rows(), m.cols()});
    Eigen::Map<RowMajorFloat>(t.data.data(), m.rows(), m.cols()) = m.cast<float>();
    return t;
}

// Stack equally shaped tensors along a new leading axis. Row-major storage
// makes this a plain concatenation of their data. `parts` is never empty: the
// ops reject zero heads and empty batches.
TensorData stack(const std::vector<TensorData>& parts) {
    TensorData t;
    t.shape = parts.front().shape;
    t.shape.insert(t.shape.begin(), static_cast<int64_t>(parts.size()));
    for (const TensorData& part : parts)
        t.data.insert(t.data.end(), part.data.begin(), part.data.end());
    return t;
}

TensorData from_matrices(const std::vector<Matrix>& matrices) {
    std::vector<TensorData> parts;
    for (const Matrix& m : matrices) parts.push_back(from_matrix(m));
    return stack(parts);
}

// ----------------------------------------------------------------- inputs

// The inputs of one call, checked against the op's params before any math:
// every param present, of the right kind, and tensors consistent with their shape.
class Args {
public:
    Args(const Inputs& inputs, const std::vector<Param>& params) : inputs_(inputs) {
        for (const Param& p : params) {
            const auto it = inputs.find(p.name);
            const std::string expected =
                std::string(value_kind_name(p.kind)) + (p.shape.empty() ? "" : " " + p.shape);
            if (it == inputs.end()) fail(p.name + ": missing input, expected " + expected);
            const Value& v = it->second;
            if (v.kind != p.kind)
                fail(p.name + ": expected " + expected + ", got " + value_kind_name(v.kind));
            if (v.kind == ValueKind::Tensor) check_storage(p.name, v.tensor);
            docs_[p.name] = p.shape;
        }
    }

    const TensorData& tensor(const std::string& name) const { return inputs_.at(name).tensor; }

    // A rank-2 tensor as one matrix.
    Matrix matrix(const std::string& name) const {
        const TensorData& t = tensor(name);
        expect_rank(name, t, 2);
        return read_matrix(t.data.data(), t.shape[0], t.shape[1]);
    }

    // A rank-3 tensor (N, R, C) as N matrices of (R, C).
    std::vector<Matrix> matrices(const std::string& name) const {
        const TensorData& t = tensor(name);
        expect_rank(name, t, 3);
        if (t.shape[0] < 1)
            fail(name + ": expected a non-empty leading axis " + docs_.at(name) + ", got shape " +
                 shape_to_string(t.shape));
        const Index rows = t.shape[1], cols = t.shape[2];
        std::vector<Matrix> out;
        for (int64_t i = 0; i < t.shape[0]; ++i)
            out.push_back(read_matrix(t.data.data() + i * rows * cols, rows, cols));
        return out;
    }

    int64_t int64(const std::string& name) const { return inputs_.at(name).int_value; }

    int integer(const std::string& name) const {
        const int64_t v = int64(name);
        if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
            fail(name + ": value " + std::to_string(v) + " is out of range");
        return static_cast<int>(v);
    }

    void expect_rank(const std::string& name, const TensorData& t, int rank) const {
        if (t.ndim() != rank)
            fail(name + ": expected a rank-" + std::to_string(rank) + " tensor " +
                 docs_.at(name) + ", got shape " + shape_to_string(t.shape));
    }

private:
    static void check_storage(const std::string& name, const TensorData& t) {
        for (int64_t d : t.shape)
            if (d < 0) fail(name + ": negative dimension in shape " + shape_to_string(t.shape));
        if (static_cast<int64_t>(t.data.size()) != t.numel())
            fail(name + ": shape " + shape_to_string(t.shape) + " needs " +
                 std::to_string(t.numel()) + " values, got " + std::to_string(t.data.size()));
    }

    const Inputs& inputs_;
    std::map<std::string, std::string> docs_;  // param name -> shape doc, for messages
};

// ---------------------------------------------------------------- outputs

Result tensor_result(TensorData out, std::vector<NamedTensor> stages = {}) {
    return {Value::of_tensor(std::move(out)), std::move(stages)};
}

std::vector<NamedTensor> qkv_stages(const QKV& qkv) {
    return {{"Q", from_matrix(qkv.q)}, {"K", from_matrix(qkv.k)}, {"V", from_matrix(qkv.v)}};
}

// (3, T, D): Q, K, V stacked in that order.
TensorData stacked_qkv(const QKV& qkv) { return from_matrices({qkv.q, qkv.k, qkv.v}); }

std::vector<NamedTensor> attention_weight_stages(const AttentionWeights& aw) {
    return {{"scores", from_matrices(aw.scores)},
            {"masked", from_matrices(aw.masked)},
            {"weights", from_matrices(aw.weights)}};
}

std::vector<NamedTensor> mhsa_stages(const MhsaStages& s) {
    return {{"Q", from_matrix(s.q)},
            {"K", from_matrix(s.k)},
            {"V", from_matrix(s.v)},
            {"scores", from_matrices(s.scores)},
            {"masked", from_matrices(s.masked)},
            {"weights", from_matrices(s.weights)},
            {"heads", from_matrices(s.heads)},
            {"concat", from_matrix(s.concat)},
            {"out", from_matrix(s.out)}};
}

// ------------------------------------------------------------------- table

Param tensor_param(const char* name, const char* shape) { return {name, ValueKind::Tensor, shape}; }
Param int_param(const char* name) { return {name, ValueKind::Int, ""}; }

Op make_op(std::string name, std::string summary, std::vector<Param> params,
           std::string returns_shape, std::function<Result(const Args&)> body,
           ValueKind returns = ValueKind::Tensor) {
    Op op;
    op.name = std::move(name);
    op.summary = std::move(summary);
    op.params = std::move(params);
    op.returns = returns;
    op.returns_shape = std::move(returns_shape);
    op.run = [params = op.params, body = std::move(body)](const Inputs& inputs) {
        return body(Args(inputs, params));
    };
    return op;
}

std::vector<Op> build_ops() {
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

    std::vector<Op> ops;

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

}  // namespace attnlab::reference
