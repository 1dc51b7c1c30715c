#pragma once
// Case inputs as written in cases.json: nested arrays, {shape,data}, or the
// deterministic generators random / eye / full / arange.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "attnlab/common/value.hpp"

namespace attnlab {

// Parses a tensor literal. Throws std::invalid_argument with a message that
// says what is wrong (the caller adds file and field).
TensorData parse_tensor_literal(const nlohmann::json& j);

// Uniform in [-scale, scale], from splitmix64: the same numbers everywhere.
TensorData random_tensor(const Shape& shape, uint64_t seed, double scale);

}  // namespace attnlab
