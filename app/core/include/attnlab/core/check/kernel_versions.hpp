#pragma once
// "Beat your v1", as llm.c's dev/cuda goes from attention_forward1 to
// forward5: the learner's kernel from an earlier exercise of the same
// operation, run on the case this exercise's performance report is of, its
// counters and roofline point beside the new kernel's. Which exercises are
// versions of one another comes from the schema alone (same runtime,
// reference op, parameters and output; only the entry's name may differ):
// the runner never knows an exercise by name.
#include <optional>
#include <string>
#include <vector>

#include "attnlab/common/launch_report.hpp"
#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/check/performance.hpp"
#include "attnlab/core/course/course.hpp"

namespace attnlab {

// The exercises before `current` in the course whose kernels compute the same
// operation from the same parameters into the same output, in course order
// (the first is the learner's v1). Empty for an exercise that is not a CUDA
// kernel exercise.
std::vector<const Exercise*> earlier_versions(const Course& course, const Exercise& current);

// Whether `earlier` is such a version of `current` (either order of the course).
bool same_kernel_interface(const Exercise& earlier, const Exercise& current);

// `earlier` set up to run case `case_index` of `current` alone, under
// `current`'s limits and tolerance, with no kernel rules, mistakes or
// fixtures: a run for its values and counters, not a verdict under the rules
// of either exercise.
Exercise version_on_case(const Exercise& earlier, const Exercise& current, int case_index);

// One run's side of the comparison: its performance report and its launches'
// counters, summed.
struct VersionFigures {
    Performance performance;
    emu::LaunchCounters counters;
    int launches = 0;
};

// The figures of `r`'s case `case_index` of `exercise` (that case's launches
// must all have completed and been checked whole); nullopt otherwise.
std::optional<VersionFigures> version_figures(const CheckResult& r, const Exercise& exercise, int case_index);

// Which way a row improves.
enum class Better { Lower, Higher, Neither };

// One row of the side-by-side table. `counter` is stable: JSON, tests and the
// message key versions.row.<counter>.
struct VersionRow {
    std::string counter;
    double before = 0, after = 0;
    Better better = Better::Lower;
};

// The rows comparing the earlier kernel (`before`) with the current one
// (`after`), their estimates for gpu_models()[gpu]. Rows that neither run has
// (FLOPs of an op without a count, tensor-core FLOPs of two FP32 kernels) are
// left out. Pure.
std::vector<VersionRow> version_rows(const VersionFigures& before, const VersionFigures& after, size_t gpu);

// The whole comparison, as the CLI prints it and the Kernel tab shows it.
struct VersionComparison {
    std::string earlier_id;
    std::string current_id;
    int case_index = -1;          // of the current exercise (its performance report's case)
    CheckResult earlier_result;   // the earlier kernel's run on that case alone
    std::optional<VersionFigures> before, after;
    // The earlier kernel's values on that case were right (within the current
    // exercise's tolerance); figures of a wrong kernel are shown, marked.
    bool earlier_correct() const { return earlier_result.verdict == Verdict::Pass; }
};

// Assembles the comparison from the current check and the earlier kernel's
// run on `version_on_case(earlier, current, case_index)`.
VersionComparison compare_versions(const Exercise& current, const CheckResult& current_result, const Exercise& earlier_on_case,
                                   CheckResult earlier_result, int case_index);

}  // namespace attnlab
