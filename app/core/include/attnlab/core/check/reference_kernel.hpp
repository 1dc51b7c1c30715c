#pragma once
// The third column of a check: the reference op run as a CUDA kernel (on a
// GPU when one is usable, else on attnlab's CPU emulator) beside the Eigen
// reference. A kernel that faults, refuses a case or disagrees with the
// reference is attnlab's own fault, never the learner's.
//
// Without the kernels library (boost.context missing at build time) every
// function here reports "no kernel" and attnlab works without the column.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/course/course.hpp"

namespace attnlab {

// True when this build has attnlab's CUDA kernels (emulator and/or nvcc).
bool kernels_built();
// True when the exercise's reference op has a kernel in this build.
bool exercise_has_kernel(const Exercise& exercise);

// Runs the kernel of `exercise.reference` on case `c` (stages on) and judges it
// against the reference's `expected` output with the exercise's tolerance.
// nullopt when there is no kernel. Never throws.
// `reference_stages` (when given): the Eigen reference's stages of the case;
// every kernel stage of the same name must agree with them too.
std::optional<KernelOutcome> run_case_kernel(const Exercise& exercise, const Case& c, const Value& expected,
                                             const std::vector<NamedTensor>* reference_stages = nullptr);

// Fills ok / max_abs_error_vs_reference from the output (pure; the runner
// calls it after run_case_kernel and after a test hook changed the output).
void judge_kernel(KernelOutcome& outcome, const Value& expected, const Tolerance& tolerance,
                  const std::vector<NamedTensor>* reference_stages = nullptr);

// The problem a case's kernel outcome is for attnlab (Problem::None when it
// ran and agrees), with the detail that goes with it.
struct KernelProblem {
    Problem problem = Problem::None;
    std::string detail;
};
KernelProblem kernel_problem(const KernelOutcome& outcome, const Tolerance& tolerance);

// ---- the Kernel view's data ----------------------------------------------------

struct KernelSourceFile {
    std::string file, text;
};
// The .cu sources (empty without kernels).
std::vector<KernelSourceFile> kernel_source_files();
// (How a kernel maps blocks and threads to data, in words: text/launch_words.hpp.)

// What one block of an attention launch works on.
struct KernelBlockRole {
    int batch = -1, head = -1;
    int row_begin = 0, row_end = 0;
};
KernelBlockRole kernel_block_role(const std::string& kernel, std::array<unsigned, 3> block, int n_heads, int T);

// The attention kernel on (B, H, T, hd) tensors and on the un-transposed
// (B, T, H, hd) layout: the counters side by side (emulator only).
struct LayoutCountersView {
    bool available = false;
    KernelLaunchSummary transposed, untransposed;
    double max_abs_difference = 0;
    int64_t global_load_requests[2] = {0, 0};
    int64_t global_load_sectors[2] = {0, 0};
};
// Computed once per shape and cached (a few ms at small shapes). Never throws.
const LayoutCountersView& attention_layout_counters(int B, int T, int H, int hd);

}  // namespace attnlab
