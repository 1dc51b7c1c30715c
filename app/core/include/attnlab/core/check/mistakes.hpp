#pragma once
// Naming the mistake behind a failing check. Each exercise lists catalogued
// mistakes of its reference op (course data); each mistake is a variant of
// the op computed from the same inputs (reference/). A learner whose output
// matches a variant on every case that returned a value, failing ones
// included, made that mistake. Computed, never guessed from the source text.
#include <optional>
#include <string>

#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/course/course.hpp"

namespace attnlab {

std::optional<MistakeMatch> diagnose_mistake(const Exercise& exercise, const CheckResult& result);

// Where a wrong answer no catalogued mistake explains first differs
// (DifferenceLocation, check_result.hpp): the learner's probes when a probed
// stage differs, else worked out from the output alone
// (reference::locate_first_difference). The runner's answer when it stored
// one (CheckResult::difference), else worked out now.
DifferenceLocation locate_difference(const Exercise& exercise, const CheckResult& result);

}  // namespace attnlab
