#include "attnlab/core/check/mistakes.hpp"

#include <algorithm>

#include "attnlab/core/check/stage_comparison.hpp"  // compare_stages: the stage the probes first differ in

#include "attnlab/core/check/compare.hpp"
#include "attnlab/core/check/expected.hpp"
#include "attnlab/reference/locate.hpp"
#include "attnlab/reference/registry.hpp"

namespace attnlab {

namespace {

// Does the learner's output of every case that returned one equal the
// variant's, with at least one of those outputs wrong? A mistake is named only
// for wrong values: a kernel whose sums are right and which only leaks (or
// breaks another rule) is told that, never a mistake its values do not show.
//
// A sampled case (12 heads at T = 1024) costs the reference a second or more
// per variant, and an op has dozens of variants: it is consulted only when no
// case checked whole failed, i.e. when it alone shows the learner's mistake.
bool matches_variant(const Exercise& ex, const CheckResult& result, const reference::Mistake& variant) {
    const bool whole_case_failed = std::any_of(result.cases.begin(), result.cases.end(), [&](const CaseOutcome& c) {
        return c.verdict != Verdict::Pass && static_cast<size_t>(c.index) < ex.cases.size() && !ex.cases[static_cast<size_t>(c.index)].sampled;
    });
    bool any_failing = false;
    for (const CaseOutcome& c : result.cases) {
        if (!c.has_output()) continue;
        if (static_cast<size_t>(c.index) >= ex.cases.size()) return false;
        if (whole_case_failed && ex.cases[static_cast<size_t>(c.index)].sampled) continue;
        reference::Result r;
        try {
            r = variant.run(case_inputs(ex, ex.cases[static_cast<size_t>(c.index)]));
        } catch (const std::exception&) {
            return false;  // the variant does not apply to this case's shapes
        }
        if (compare_values(c.actual, r.output, ex.tolerance, 0).verdict != Verdict::Pass) return false;
        any_failing = any_failing || (c.verdict != Verdict::Pass && compare_values(c.actual, c.expected, ex.tolerance, 0).verdict != Verdict::Pass);
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

DifferenceLocation locate_difference(const Exercise& exercise, const CheckResult& result) {
    if (result.difference) return *result.difference;
    DifferenceLocation where;
    if (result.mistake || result.failed_case < 0 || static_cast<size_t>(result.failed_case) >= result.cases.size()) return where;
    const CaseOutcome& c = result.cases[static_cast<size_t>(result.failed_case)];
    if (c.verdict != Verdict::WrongAnswer && c.verdict != Verdict::NonFinite) return where;
    if (static_cast<size_t>(c.index) >= exercise.cases.size()) return where;
    where.case_index = c.index;
    const std::vector<StageComparison> stages = compare_stages(c, exercise.tolerance);
    // A probed stage that differs says it best; the return value alone (an
    // "out" row from the output) says no more than the mismatch already did.
    if (const int k = first_divergence(stages); k >= 0 && !stages[static_cast<size_t>(k)].from_output) {
        where.stage = stages[static_cast<size_t>(k)].name;
        where.from_probes = true;
        return where;
    }
    const reference::StageLocation found = reference::locate_first_difference(
        exercise.reference, case_inputs(exercise, exercise.cases[static_cast<size_t>(c.index)]), c.actual);
    where.stage = found.stage;
    if (c.actual.kind == ValueKind::Tensor && c.actual.tensor.ndim() == 3 && !found.stage.empty()) where.sequence = found.sequence;
    return where;
}

}  // namespace attnlab
