// Shared pieces of the op tables: input checks, conversions, table helpers.
#include "registry_support.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace attnlab::reference::support {


void fail(const std::string& message) { throw ReferenceError(message); }

// ------------------------------------------------------------- conversions

// Rows × cols floats starting at `data`, read row-major, widened to double.
Matrix read_matrix(const float* data, Index rows, Index cols) {
    return Eigen::Map<const RowMajorFloat>(data, rows, cols).cast<double>();
}

namespace {
// Column-major doubles to row-major floats is a transpose in memory: copied in
// square blocks that fit the cache, not a whole strided row at a time.
void write_row_major(const Matrix& m, float* out_data) {
    Eigen::Map<RowMajorFloat> out(out_data, m.rows(), m.cols());
    constexpr Index kBlock = 64;
    for (Index i = 0; i < m.rows(); i += kBlock)
        for (Index j = 0; j < m.cols(); j += kBlock) {
            const Index rows = std::min(kBlock, m.rows() - i), cols = std::min(kBlock, m.cols() - j);
            out.block(i, j, rows, cols) = m.block(i, j, rows, cols).cast<float>();
        }
}
}  // namespace

TensorData from_matrix(const Matrix& m) {
    TensorData t = TensorData::zeros({m.rows(), m.cols()});
    write_row_major(m, t.data.data());
    return t;
}

// Stack equally shaped tensors along a new leading axis. Row-major storage
// makes this a plain concatenation of their data. `parts` is never empty: the
// ops reject zero heads and empty batches.
TensorData stack(const std::vector<TensorData>& parts) {
    TensorData t;
    t.shape = parts.front().shape;
    t.shape.insert(t.shape.begin(), static_cast<int64_t>(parts.size()));
    t.data.reserve(parts.size() * parts.front().data.size());
    for (const TensorData& part : parts)
        t.data.insert(t.data.end(), part.data.begin(), part.data.end());
    return t;
}

// stack(from_matrix(m) for each m), written straight into one buffer: at
// 12 heads of 1024 x 1024 scores the parts alone are 50 MB.
TensorData from_matrices(const std::vector<Matrix>& matrices) {
    const Matrix& first = matrices.front();
    TensorData t = TensorData::zeros({static_cast<int64_t>(matrices.size()), first.rows(), first.cols()});
    for (size_t k = 0; k < matrices.size(); ++k) {
        if (matrices[k].rows() != first.rows() || matrices[k].cols() != first.cols())
            throw std::logic_error("reference: from_matrices of unequal shapes");
        write_row_major(matrices[k], t.data.data() + k * static_cast<size_t>(first.size()));
    }
    return t;
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

// Column by column, as softmax_rows and for the same reason (Matrix is
// column-major), with each row's operations in the row-at-a-time order.
Matrix softmax_rows_unchecked(const Matrix& x) {
    Matrix out(x.rows(), x.cols());
    if (x.cols() == 0) return out;
    Eigen::VectorXd row_max = x.col(0);
    for (Index j = 1; j < x.cols(); ++j) row_max = row_max.cwiseMax(x.col(j));
    Eigen::VectorXd sum = Eigen::VectorXd::Zero(x.rows());
    for (Index j = 0; j < x.cols(); ++j) {
        out.col(j) = (x.col(j) - row_max).unaryExpr([](double v) { return std::exp(v); });
        sum += out.col(j);
    }
    for (Index j = 0; j < x.cols(); ++j) out.col(j).array() /= sum.array();
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
