#pragma once
// Output vs reference: shape first, then values with |a - r| <= atol + rtol*|r|.
// Masked reference entries (-inf) must be exactly -inf; a NaN or an infinity
// where the reference is finite is its own verdict, not a "wrong value".
#include <cstdint>
#include <vector>

#include "attnlab/common/value.hpp"
#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/course/course.hpp"

namespace attnlab {

struct Comparison {
    Verdict verdict = Verdict::Pass;  // Pass, WrongAnswer, WrongShape or NonFinite
    double max_abs_error = 0;         // over finite, unmasked entries
    int64_t mismatch_count = 0;
    int64_t one_sided_count = 0;       // mismatches where one side is ±inf or NaN (no finite error)
    std::vector<Mismatch> mismatches;  // first `max_reported`
    std::vector<int64_t> nonfinite_index;
    double nonfinite_value = 0;
    double nonfinite_expected = 0;
};

Comparison compare_values(const Value& actual, const Value& expected, const Tolerance& tol, size_t max_reported = 5);

// One element against the reference's: the rule compare_values applies.
bool element_matches(double actual, double expected, const Tolerance& tol);
// compare_values(...).verdict == Pass for two tensors, stopping at the first difference.
bool tensors_match(const TensorData& actual, const TensorData& expected, const Tolerance& tol);

}  // namespace attnlab
