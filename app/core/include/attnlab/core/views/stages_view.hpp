#pragma once
// What the Stages view says above its table, as data: the stage the check
// names — the one the Results tab names (the catalogued mistake's stage, else
// the first differing stage the check located) — the learner's tensor for it
// (a placed recorded tensor with its line, a probe, or the return value), and
// about the stages before it only what was recorded: those of the learner's
// that match, and those they have no tensor for. It never says a stage
// matches that nobody recorded. The panel words it; it judges nothing itself.
#include <string>
#include <vector>

#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/check/stage_comparison.hpp"
#include "attnlab/core/course/course.hpp"

namespace attnlab {

struct StagesHeadline {
    // The stage the check names for this case ("" when it names none: a pass,
    // or a failure no stage explains).
    std::string named_stage;
    bool named_by_mistake = false;
    int named = -1;  // its row in the comparisons (-1: not one of them)
    // The learner's tensor for the named stage, else the first of theirs that
    // differs when the check names no stage; -1: none of theirs.
    int yours = -1;  // index in the comparisons
    std::vector<int> matching_before;   // recorded stages before it that match (all of them when nothing differs)
    std::vector<int> unrecorded_before; // reference stages before it the learner has no tensor for
    int recorded = 0;                   // reference stages with a tensor of theirs
    int total = 0;                      // reference stages (and the output's row)
};

// `stages` is compare_stages(c, tolerance) for the case `c` of `result`.
StagesHeadline stages_headline(const Exercise& exercise, const CheckResult& result, const CaseOutcome& c,
                               const std::vector<StageComparison>& stages);

}  // namespace attnlab
