#pragma once
// The runner's steps after the compile, each in a file of its own, internal
// to the check (runner.cpp is the pipeline that calls them):
//  - program_run.cpp: one sandboxed run of a learner program on the cases;
//  - case_runs.cpp: the cases shared between programs, each case judged,
//    the programs' endings joined into one verdict;
//  - gpu_run.cpp: the same file built with nvcc and run on a real GPU.
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/check/process.hpp"
#include "attnlab/core/check/runner.hpp"
#include "attnlab/core/course/course.hpp"
#include "check_assembly.hpp"
#include "result_channel.hpp"

namespace attnlab {

// The window's progress callback, when it has one.
void report_progress(const CheckControl& control, Phase phase, int index, int count);

// One sandboxed run of a learner program on every case, on the CPU or a GPU:
// the inputs written to a private folder, the program started there, its
// result channel decoded case by case as it runs. The only place a learner
// program is started.
struct ProgramRun {
    ProcessOutcome process;
    std::string prepare_error;  // the inputs could not be written: nothing ran
    double ms = 0;
};
// `cases`: the reference's side of each case (a launcher's output shape).
ProgramRun run_program(const Compiler& compiler, const Exercise& ex, const fs::path& binary, const std::vector<CaseOutcome>& cases,
                       ExecutionTarget target, const std::vector<std::string>& extra_args, ResultChannel& channel,
                       const std::atomic<bool>* cancel);

// The check's cases in sandboxed learner programs (two side by side where
// that pays), each case judged into `cases` (the prepared outcomes, the
// reference's side filled) as it reports; what the programs did together is
// the returned part. `extra_args`: more for the program (NVRTC's registers).
ProgramsPart run_cases(const Compiler& compiler, const Exercise& ex, const fs::path& binary, const CheckControl& control,
                       std::vector<CaseOutcome>& cases, const std::vector<std::string>& extra_args);

// The learner's CUDA file built by nvcc and run on the GPU attnlab finds,
// judged case by case against `cases` (the reference's side, as the emulator
// run left them). nullopt: no usable GPU, or cancelled.
std::optional<GpuSummary> run_on_gpu(Compiler& compiler, const Exercise& ex, const std::string& source, const std::string& display_name,
                                     const std::vector<CaseOutcome>& cases, const std::atomic<bool>* cancel);

}  // namespace attnlab
