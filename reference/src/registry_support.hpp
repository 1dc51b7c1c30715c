#pragma once
// Internal to the reference: what every op entry needs to check its inputs and
// convert between Values (row-major float tensors) and Eigen matrices. The op
// tables (registry.cpp and the registry_*.cpp files beside it) and the mistake
// variants share these, so that a new op or a new mistake is one entry in one
// file.
//
// Layout conventions:
//   a rank-2 tensor (R, C)      <-> one Matrix
//   a rank-3 tensor (N, R, C)   <-> std::vector<Matrix> along the leading axis
//                                   (heads, or sequences in a batch)
//   a rank-4 tensor (B, H, R, C) <-> B stacks of H matrices
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "attnlab/reference/ops.hpp"
#include "attnlab/reference/registry.hpp"

namespace attnlab::reference::support {

using Index = Eigen::Index;
using RowMajorFloat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

[[noreturn]] void fail(const std::string& message);

// The finite numbers learners mask with instead of -inf (the variants of
// mask_with_large_negative): -1e9, -1e10, -1e30 and the float's lowest value
// (std::numeric_limits<float>::lowest(), -FLT_MAX).
inline constexpr double kLargeNegativeFills[] = {-1e9, -1e10, -1e30, -3.4028234663852886e38};

// ------------------------------------------------------------- conversions
Matrix read_matrix(const float* data, Index rows, Index cols);  // row-major floats, widened to double
TensorData from_matrix(const Matrix& m);
TensorData stack(const std::vector<TensorData>& parts);          // along a new leading axis
TensorData from_matrices(const std::vector<Matrix>& matrices);

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
Result tensor_result(TensorData out, std::vector<NamedTensor> stages = {});
std::vector<NamedTensor> qkv_stages(const QKV& qkv);
TensorData stacked_qkv(const QKV& qkv);  // (3, T, D): Q, K, V stacked in that order
std::vector<NamedTensor> attention_weight_stages(const AttentionWeights& aw);
std::vector<NamedTensor> mhsa_stages(const MhsaStages& s);
// A whole layer on a batch, from each sequence's mhsa_stages: stage k of the
// batch is stage k of every sequence stacked along B, the output its "out", (B, T, D).
Result batched_layer_result(const std::vector<std::vector<NamedTensor>>& per_sequence);

// A softmax over each row that, like float learner code, gives NaN for a row
// with no finite entry (exp(-inf - (-inf))) instead of refusing it, as
// ops.hpp's softmax_rows does: what a mistake's variant needs.
Matrix softmax_rows_unchecked(const Matrix& x);

// ------------------------------------------------------------------- table
Param tensor_param(const char* name, const char* shape);
Param int_param(const char* name);

// How an op is described, one row of an op table: what `attnlab dev ops`
// prints about it and the function that computes it from its inputs, checked
// against `params` first.
struct OpSpec {
    std::string name;           // what exercise.json's "reference" says
    std::string summary;        // one line, English, for authors
    std::vector<Param> params;  // in the entry point's order; a tensor's shape documented
    std::string returns_shape;  // documentation, e.g. "(T, D)"; "" for a scalar
    std::function<Result(const Args&)> run;
    ValueKind returns = ValueKind::Tensor;
};
// The op a row describes, with no mistakes yet (attach them to the result).
Op make_op(OpSpec spec);
// Appends the table's ops to `ops`, in the table's order.
void add_ops(std::vector<Op>& ops, std::vector<OpSpec> table);

// A catalogued mistake: a variant of an op computed from the same inputs.
// `stage` names the first stage where the variant departs from the op.
Mistake make_mistake(std::string id, std::string stage, std::function<Result(const Args&)> body,
                     const std::vector<Param>& params);
// The op called `name` in `ops` (throws std::logic_error when there is none:
// a programming error in the tables, caught by test_reference).
Op& op_named(std::vector<Op>& ops, const std::string& name);

// The op tables, one function per file. Each appends its ops to `ops` and may
// attach mistakes to ops already there (registry_core.cpp's run first).
void add_core_ops(std::vector<Op>& ops);         // registry_core.cpp: projections, heads, attention steps, layers
void add_step_ops(std::vector<Op>& ops);         // registry_steps.cpp: projections, scores, softmax, weighted sum
void add_batched_ops(std::vector<Op>& ops);      // registry_batched.cpp: batched layout, model figures, heads
void add_core_mistakes(std::vector<Op>& ops);    // mistakes_core.cpp: split, mask, merge, full MHSA
void add_softmax_mistakes(std::vector<Op>& ops); // mistakes_softmax.cpp: a softmax without its max, fused W transposed
void add_online_softmax_op(std::vector<Op>& ops); // mistakes_online.cpp: online softmax over chunks of keys
void add_cuda_ops(std::vector<Op>& ops);         // registry_cuda.cpp: the CUDA exercises' (B, H, ...) ops
void add_flop_counts(std::vector<Op>& ops);      // registry_flops.cpp: FLOPs per op (runs last)

}  // namespace attnlab::reference::support
