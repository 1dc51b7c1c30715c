#pragma once
// Plain, owning values exchanged between the course data, the Eigen reference,
// the learner's process and the comparison code. Dense, row-major, no views:
// the learner-facing Tensor (with strides and views) lives in app/learner.
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

using Shape = std::vector<int64_t>;

// A dense row-major float tensor. shape {} is a scalar holding one value.
struct TensorData {
    Shape shape;
    std::vector<float> data;

    TensorData() = default;
    TensorData(Shape s, std::vector<float> d) : shape(std::move(s)), data(std::move(d)) {}
    static TensorData zeros(Shape s);

    int64_t numel() const;
    int ndim() const { return static_cast<int>(shape.size()); }
    // Row-major flat offset of a multi-index (no bounds check beyond an assert).
    int64_t offset(const std::vector<int64_t>& index) const;
    // Multi-index of a flat offset.
    std::vector<int64_t> unravel(int64_t flat) const;
};

// "(2, 4, 8)" — how shapes are written everywhere a learner reads them.
std::string shape_to_string(const Shape& shape);

// The kinds of values an entry point takes or returns.
enum class ValueKind { Tensor, Int, Float };
const char* value_kind_name(ValueKind kind);  // "tensor", "int", "float"

struct Value {
    ValueKind kind = ValueKind::Tensor;
    TensorData tensor;     // kind == Tensor
    int64_t int_value = 0; // kind == Int
    double float_value = 0;// kind == Float

    static Value of_tensor(TensorData t) { Value v; v.kind = ValueKind::Tensor; v.tensor = std::move(t); return v; }
    static Value of_int(int64_t i) { Value v; v.kind = ValueKind::Int; v.int_value = i; return v; }
    static Value of_float(double f) { Value v; v.kind = ValueKind::Float; v.float_value = f; return v; }
};

// A tensor with a name: reference intermediates and learner probes.
struct NamedTensor {
    std::string name;
    TensorData tensor;
};

}  // namespace attnlab
