#pragma once
// Naming the mistake behind a failing check. Each exercise lists catalogued
// mistakes of its reference op (course data); each mistake is a variant of
// the op computed from the same inputs (reference/). A learner whose output
// matches a variant on every case that returned a value, failing ones
// included, made that mistake. Computed, never guessed from the source text.
#include <optional>

#include "attnlab/core/check_result.hpp"
#include "attnlab/core/course.hpp"

namespace attnlab {

std::optional<MistakeMatch> diagnose_mistake(const Exercise& exercise, const CheckResult& result);

}  // namespace attnlab
