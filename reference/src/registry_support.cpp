// Shared pieces of the op tables: input checks, conversions, table helpers.
#include "registry_support.hpp"

#include <stdexcept>
#include <utility>

namespace attnlab::reference::support {


void fail(const std::string& message) { throw ReferenceError(message); }

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



// ---------------------------------------------------------------- outputs

Result tensor_result(TensorData out, std::vector<NamedTensor> stages) {
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

Result batched_layer_result(const std::vector<std::vector<NamedTensor>>& per_sequence) {
    std::vector<NamedTensor> stages;
    for (size_t k = 0; k < per_sequence.front().size(); ++k) {
        std::vector<TensorData> parts;
        for (const auto& seq : per_sequence) parts.push_back(seq[k].tensor);
        stages.push_back({per_sequence.front()[k].name, stack(parts)});
    }
    TensorData out = stages.back().tensor;  // "out", (B, T, D)
    return tensor_result(std::move(out), std::move(stages));
}

// ------------------------------------------------------------------- table

Param tensor_param(const char* name, const char* shape) { return {name, ValueKind::Tensor, shape}; }
Param int_param(const char* name) { return {name, ValueKind::Int, ""}; }

Op make_op(OpSpec spec) {
    Op op;
    op.name = std::move(spec.name);
    op.summary = std::move(spec.summary);
    op.params = std::move(spec.params);
    op.returns = spec.returns;
    op.returns_shape = std::move(spec.returns_shape);
    op.run = [params = op.params, body = std::move(spec.run)](const Inputs& inputs) {
        return body(Args(inputs, params));
    };
    return op;
}

void add_ops(std::vector<Op>& ops, std::vector<OpSpec> table) {
    for (OpSpec& spec : table) ops.push_back(make_op(std::move(spec)));
}

Matrix softmax_rows_unchecked(const Matrix& x) {
    Matrix out(x.rows(), x.cols());
    for (Index i = 0; i < x.rows(); ++i) {
        const double m = x.row(i).maxCoeff();
        out.row(i) = (x.row(i).array() - m).exp().matrix();
        out.row(i) /= out.row(i).sum();
    }
    return out;
}

Mistake make_mistake(std::string id, std::string stage, std::function<Result(const Args&)> body,
                     const std::vector<Param>& params) {
    Mistake m;
    m.id = std::move(id);
    m.stage = std::move(stage);
    m.run = [params, body = std::move(body)](const Inputs& inputs) { return body(Args(inputs, params)); };
    return m;
}

Op& op_named(std::vector<Op>& ops, const std::string& name) {
    for (Op& op : ops)
        if (op.name == name) return op;
    throw std::logic_error("reference: no op named " + name);
}

}  // namespace attnlab::reference::support
