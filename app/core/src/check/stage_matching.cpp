#include "attnlab/core/check/stage_matching.hpp"

#include <optional>

#include "attnlab/core/check/compare.hpp"
#include "attnlab/core/check/expected.hpp"
#include "attnlab/core/check/stage_comparison.hpp"
#include "attnlab/reference/registry.hpp"

namespace attnlab {

namespace {

// The recorded tensor equal to `stage`: the first after `after` (the previous
// stage's), else that one itself (two stages can hold the same numbers: the
// scores and the masked scores of one token), else any.
std::optional<size_t> find_recorded(const std::vector<RecordedTensor>& recorded, const TensorData& stage, const Tolerance& tol,
                                    std::optional<size_t> after) {
    auto equal = [&](size_t i) { return tensors_match(recorded[i].tensor, stage, tol); };
    const size_t first = after ? *after + 1 : 0;
    for (size_t i = first; i < recorded.size(); ++i)
        if (equal(i)) return i;
    if (after && equal(*after)) return after;
    for (size_t i = 0; after && i < *after; ++i)
        if (equal(i)) return i;
    return std::nullopt;
}

// The variant of the named mistake that explains this case's output: its
// own stages, on the case's inputs.
std::optional<std::vector<NamedTensor>> mistaken_stages(const Exercise& ex, const MistakeMatch& mistake, const CaseOutcome& c) {
    const reference::Op* op = reference::find_op(ex.reference);
    if (!op || !c.has_output() || static_cast<size_t>(c.index) >= ex.cases.size()) return std::nullopt;
    for (const reference::Mistake& variant : op->mistakes) {
        if (variant.id != mistake.id) continue;
        try {
            reference::Result r = variant.run(case_inputs(ex, ex.cases[static_cast<size_t>(c.index)]));
            if (compare_values(c.actual, r.output, ex.tolerance, 0).verdict == Verdict::Pass) return std::move(r.stages);
        } catch (const std::exception&) {
            // the variant does not apply to this case's shapes
        }
    }
    return std::nullopt;
}

}  // namespace

std::vector<PlacedStage> place_stages(const std::vector<RecordedTensor>& recorded, const std::vector<NamedTensor>& reference,
                                      const std::vector<NamedTensor>* mistaken, const Tolerance& tol) {
    std::vector<PlacedStage> placed;
    std::optional<size_t> previous;
    for (const NamedTensor& stage : reference) {
        std::optional<size_t> at = find_recorded(recorded, stage.tensor, tol, previous);
        bool matches = true;
        if (!at && mistaken) {
            if (const TensorData* theirs = find_stage(*mistaken, stage.name)) {
                at = find_recorded(recorded, *theirs, tol, previous);
                matches = false;
            }
        }
        if (!at) continue;
        placed.push_back({stage.name, *at, matches});
        previous = at;
    }
    return placed;
}

void place_recorded_stages(const Exercise& exercise, CheckResult& result) {
    for (CaseOutcome& c : result.cases) {
        c.placed.clear();
        if (c.recorded.empty() || c.stages.empty()) continue;
        std::optional<std::vector<NamedTensor>> mistaken;
        if (result.mistake && c.verdict != Verdict::Pass) mistaken = mistaken_stages(exercise, *result.mistake, c);
        c.placed = place_stages(c.recorded, c.stages, mistaken ? &*mistaken : nullptr, exercise.tolerance);
    }
}

}  // namespace attnlab
