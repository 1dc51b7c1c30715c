#include "attnlab/core/views/stages_view.hpp"

#include "attnlab/core/check/mistakes.hpp"

namespace attnlab {

namespace {

bool judged(const StageComparison& s) { return s.status != StageStatus::NotProbed; }
// A row for one of the reference's stages (or the output), not a probe of a name the reference lacks.
bool reference_row(const StageComparison& s) { return judged(s) || !s.learner_shape; }

// The stage the Results tab names for this case: the catalogued mistake's
// (it explains every case), else the located first difference of the failing case.
std::string named_stage(const Exercise& exercise, const CheckResult& result, const CaseOutcome& c, bool& by_mistake) {
    by_mistake = false;
    if (c.verdict == Verdict::Pass) return "";
    if (result.mistake) {
        by_mistake = true;
        return result.mistake->stage;
    }
    const DifferenceLocation where = locate_difference(exercise, result);
    return where.case_index == c.index ? where.stage : "";
}

}  // namespace

StagesHeadline stages_headline(const Exercise& exercise, const CheckResult& result, const CaseOutcome& c,
                               const std::vector<StageComparison>& stages) {
    StagesHeadline h;
    for (const StageComparison& s : stages) {
        h.total += reference_row(s) ? 1 : 0;
        h.recorded += judged(s) ? 1 : 0;
    }
    h.named_stage = named_stage(exercise, result, c, h.named_by_mistake);
    int limit = static_cast<int>(stages.size());
    int& named = h.named;
    for (size_t i = 0; i < stages.size() && !h.named_stage.empty(); ++i)
        if (stages[i].name == h.named_stage && reference_row(stages[i])) named = static_cast<int>(i);
    if (named >= 0) {
        limit = named;
        if (judged(stages[static_cast<size_t>(named)])) h.yours = named;
    } else if (const int first = first_divergence(stages); first >= 0) {
        limit = first;
        h.yours = first;
    }
    for (int i = 0; i < limit; ++i) {
        const StageComparison& s = stages[static_cast<size_t>(i)];
        if (s.status == StageStatus::Match) h.matching_before.push_back(i);
        else if (!s.learner_shape) h.unrecorded_before.push_back(i);
    }
    return h;
}

}  // namespace attnlab
