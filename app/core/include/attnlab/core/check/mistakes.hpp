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

// A wrong answer no catalogued mistake explains still gets the first stage
// that differs, on the first failing case: from the learner's probes when a
// probed stage differs, else worked out from the output alone
// (reference::locate_first_difference). `stage` is "" when neither says.
struct DifferenceLocation {
    std::string stage;
    int case_index = -1;
    int sequence = -1;         // batched exercises: the first sequence that differs
    bool from_probes = false;
};
DifferenceLocation locate_difference(const Exercise& exercise, const CheckResult& result);

}  // namespace attnlab
