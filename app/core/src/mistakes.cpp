#include "attnlab/core/mistakes.hpp"

#include "attnlab/core/compare.hpp"
#include "attnlab/core/runner.hpp"
#include "attnlab/reference/registry.hpp"

namespace attnlab {

namespace {

// Does the learner's output of every case that returned one equal the
// variant's, with at least one of those cases failing?
bool matches_variant(const Exercise& ex, const CheckResult& result, const reference::Mistake& variant) {
    bool any_failing = false;
    for (const CaseOutcome& c : result.cases) {
        if (!c.has_output()) continue;
        if (static_cast<size_t>(c.index) >= ex.cases.size()) return false;
        reference::Result r;
        try {
            r = variant.run(case_inputs(ex, ex.cases[static_cast<size_t>(c.index)]));
        } catch (const std::exception&) {
            return false;  // the variant does not apply to this case's shapes
        }
        if (compare_values(c.actual, r.output, ex.tolerance, 0).verdict != Verdict::Pass) return false;
        any_failing = any_failing || c.verdict != Verdict::Pass;
    }
    return any_failing;
}

}  // namespace

std::optional<MistakeMatch> diagnose_mistake(const Exercise& exercise, const CheckResult& result) {
    const reference::Op* op = reference::find_op(exercise.reference);
    if (!op) return std::nullopt;
    // A mistake may have several forms (heads interleaved in the split, in the
    // merge, or both): any one of them names it, with the stage where it starts.
    for (const MistakeSpec& spec : exercise.mistakes)
        for (const reference::Mistake& variant : op->mistakes)
            if (variant.id == spec.id && matches_variant(exercise, result, variant))
                return MistakeMatch{spec.id, variant.stage, spec.title, spec.message};
    return std::nullopt;
}

}  // namespace attnlab
