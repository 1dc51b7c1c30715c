#pragma once
// Turning a CheckResult into words (for the CLI and the GUI) and into JSON.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/course/course.hpp"

namespace attnlab {

struct LaunchShape;  // gpu_resources.hpp

std::string verdict_title(Verdict v, Lang lang);
// The same, for a verdict with its kernel cause: a buffer the host function
// never freed is its own title, not a kernel's rule.
std::string verdict_title(Verdict v, const KernelCause& cause, Lang lang);
// "(head 1, row 3, col 0)" using the exercise's axis names (translated when known).
std::string format_index(const std::vector<int64_t>& index, const std::vector<std::string>& dims, Lang lang);
// The learner-facing explanation of the verdict: what went wrong, where, and
// what to look at. Several lines, no trailing newline.
std::string explain(const CheckResult& result, const Exercise& exercise, Lang lang);
// Only the verdict-specific part of explain(): no title, no per-case list, no
// program output (the GUI shows those as widgets).
std::string explain_detail(const CheckResult& result, const Exercise& exercise, Lang lang);
// Where a wrong answer first differs (check/mistakes.hpp: locate_difference),
// in words; "" when there is no telling, or a mistake was named.
std::string explain_difference(const Exercise& exercise, const CheckResult& result, Lang lang);
// The named mistake, if the check found one ("" otherwise).
std::string explain_mistake(const CheckResult& result, Lang lang);
// A header the compiler could not find (check/diagnostics.hpp: missing_header)
// and what a file of the exercise's runtime may include instead; "" when the
// runtime has no such words.
std::string missing_header_text(const std::string& header, const Exercise& exercise, Lang lang);
// The problem (CheckResult::problem) in words, "" when there is none.
std::string problem_text(const CheckResult& result, Lang lang);
// One thing a learner's object may not define (learner_object.hpp), in words,
// under the name the learner wrote.
std::string object_problem_text(const ObjectProblem& problem, Lang lang);
// A construct of the learner's file the rewrite cannot read (runtime_profile.hpp),
// in words: its line and the forms attnlab reads.
std::string unread_part_text(const UnreadPart& part, Lang lang);
// The CUDA column in one line: which backend ran the reference op's kernel and
// whether it agreed with the Eigen reference ("" when no case has a kernel).
std::string explain_cuda(const CheckResult& result, Lang lang);
// CUDA exercises: NVRTC's figures for the learner's kernels (registers,
// shared memory, spills) and the occupancy each one's launch gets; "" for
// C++ exercises.
std::string explain_resources(const CheckResult& result, Lang lang);
// CUDA exercises on a machine with a GPU: how the same file did there ("" elsewhere).
std::string explain_gpu(const CheckResult& result, Lang lang);
// The lines explain() gives about the other backends: attnlab's own kernel of
// the reference op (C++ exercises), the learner's file on a GPU (CUDA ones).
std::string explain_backends(const CheckResult& result, const Exercise& exercise, Lang lang);
// "CPU emulator" / "GPU NVIDIA H200", in the learner's language.
std::string cuda_backend_text(const KernelOutcome& kernel, Lang lang);
// Stable machine-readable form (used by --json).
nlohmann::json to_json(const CheckResult& result, const Exercise& exercise, Lang lang);

}  // namespace attnlab
