#pragma once
// A case's stages side by side: the reference's named intermediates beside
// the learner's tensors of the same name (their probe() records and their
// return value) or beside the reference kernel's, each judged with the
// exercise's tolerance. Judging (mistakes.cpp names the first stage that
// differs) and the views (the stages panel, the heatmaps) both read it.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/common/value.hpp"
#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/course/course.hpp"

namespace attnlab {

// The tensor named `name` in `list`; nullptr when none is.
const TensorData* find_stage(const std::vector<NamedTensor>& list, const std::string& name);

// ---- the learner's own tensors ------------------------------------------------------

// The reference stage the entry point's result is: the last reference stage
// equal to the expected output (same shape, same values), else "output". The
// learner's return value is shown under this name without any probe().
std::string output_stage_name(const CaseOutcome& c);

// One tensor of the learner's, by stage name: a probe() record, a recorded
// tensor placed as that stage (from_record, with its line: automatic
// stages), or the value their function returned (from_output), shown as the
// exercise's output stage when nothing else stands for it. Points into the outcome.
struct LearnerStage {
    std::string name;
    const TensorData* tensor = nullptr;
    bool from_output = false;
    bool from_record = false;
    int line = 0;  // from_record: the learner's line that made it
};
// The learner's probes; then their recorded tensors placed as stages they did
// not probe (CaseOutcome::placed); then their return value as the output
// stage (when the case returned a tensor that was compared, and nothing
// else stands for that stage). One per name.
std::vector<LearnerStage> learner_stages(const CaseOutcome& c);

// ---- stage comparison -----------------------------------------------------------

enum class StageStatus { Match, Mismatch, ShapeMismatch, NotProbed };

struct StageComparison {
    std::string name;
    Shape reference_shape;
    std::optional<Shape> learner_shape;
    StageStatus status = StageStatus::NotProbed;
    bool from_output = false;  // the learner's tensor here is their return value, not a probe
    bool from_record = false;  // ... a recorded tensor placed as this stage (automatic stages)
    int line = 0;              // from_record: the learner's line that made it
    double max_abs_error = 0;
    std::vector<int64_t> first_bad_index;  // first mismatching element, when any
};

// Reference stages in pipeline order beside the learner's tensors of the same
// name (learner_stages: probes and the return value), compared with `tol`;
// an "output" row is added when no reference stage stands for the output. Probes without a reference stage are appended as
// NotProbed-with-learner-shape entries (shown, not judged).
std::vector<StageComparison> compare_stages(const CaseOutcome& c, const Tolerance& tol);
// The same for the reference op's CUDA kernel (CaseOutcome::reference_kernel): each
// reference stage beside the kernel's stage of that name (learner_shape = the
// kernel's shape). Empty when the case has no kernel outcome.
std::vector<StageComparison> compare_kernel_stages(const CaseOutcome& c, const Tolerance& tol);
// Index of the first stage that was probed and differs (-1 when none).
int first_divergence(const std::vector<StageComparison>& stages);

}  // namespace attnlab
