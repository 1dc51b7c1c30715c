#pragma once
// Automatic stages: the tensors a learner's C++ function made, recorded by the
// learner runtime as it ran (app/learner/src/recorder.cpp) — which Tensor
// operation made each one and on which line of the learner's file — so that
// attnlab can place them among the reference's stages by shape and value
// (core/check/stage_matching) without a single probe().
#include <cstdint>

#include "attnlab/common/value.hpp"

namespace attnlab {

// What made a recorded tensor. The values travel on the wire as these
// numbers: a new operation goes at the end (and changes wire::kVersion).
enum class TensorOp : uint8_t {
    Matmul = 0,
    Transpose = 1,   // transpose, permute, swapaxes (a view, recorded as its values)
    Reshape = 2,
    Contiguous = 3,  // a row-major copy of a strided view
    Add = 4,
    Subtract = 5,
    Multiply = 6,    // elementwise, or by a scalar
    Divide = 7,
    Concat = 8,
    Stack = 9,
    Writes = 10,     // element writes (x(i, j) = ..., fill, assign, data()): the buffer once the line's loop is done
};
inline constexpr TensorOp kLastTensorOp = TensorOp::Writes;
const char* tensor_op_code(TensorOp op);  // "matmul", "writes", ... (stable: --json)

struct RecordedTensor {
    int line = 0;  // the learner's source line (of the call, or of the last element access for Writes)
    TensorOp op = TensorOp::Writes;
    TensorData tensor;
};

}  // namespace attnlab
