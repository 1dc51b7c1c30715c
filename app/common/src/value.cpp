#include "attnlab/common/value.hpp"

#include "attnlab/common/recorded_tensor.hpp"

#include <cassert>

namespace attnlab {

TensorData TensorData::zeros(Shape s) {
    TensorData t;
    t.shape = std::move(s);
    t.data.assign(static_cast<size_t>(t.numel()), 0.0f);
    return t;
}

int64_t TensorData::numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

int64_t TensorData::offset(const std::vector<int64_t>& index) const {
    assert(index.size() == shape.size());
    int64_t flat = 0;
    for (size_t i = 0; i < shape.size(); ++i) flat = flat * shape[i] + index[i];
    return flat;
}

std::vector<int64_t> TensorData::unravel(int64_t flat) const {
    std::vector<int64_t> index(shape.size(), 0);
    for (size_t i = shape.size(); i-- > 0;) {
        if (shape[i] == 0) continue;
        index[i] = flat % shape[i];
        flat /= shape[i];
    }
    return index;
}

std::string shape_to_string(const Shape& shape) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) s += ", ";
        s += std::to_string(shape[i]);
    }
    if (shape.size() == 1) s += ",";
    s += ")";
    return s;
}

const char* value_kind_name(ValueKind kind) {
    switch (kind) {
        case ValueKind::Tensor: return "tensor";
        case ValueKind::Int: return "int";
        case ValueKind::Float: return "float";
    }
    return "?";
}

}  // namespace attnlab

namespace attnlab {

const char* tensor_op_code(TensorOp op) {
    switch (op) {
        case TensorOp::Matmul: return "matmul";
        case TensorOp::Transpose: return "transpose";
        case TensorOp::Reshape: return "reshape";
        case TensorOp::Contiguous: return "contiguous";
        case TensorOp::Add: return "add";
        case TensorOp::Subtract: return "subtract";
        case TensorOp::Multiply: return "multiply";
        case TensorOp::Divide: return "divide";
        case TensorOp::Concat: return "concat";
        case TensorOp::Stack: return "stack";
        case TensorOp::Writes: return "writes";
    }
    return "?";
}

}  // namespace attnlab
