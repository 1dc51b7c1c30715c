#pragma once
// One check: compile the learner's file, run it on every case in the sandbox,
// compare each output with the Eigen reference, and say what happened.
// The runner never throws for anything the learner's code does.
#include <atomic>
#include <future>
#include <memory>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/check/expected.hpp"  // case_inputs, compute_expected (callers of the runner use them too)
#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/core/check/verdict.hpp"

namespace attnlab {

enum class Phase { Queued, Compiling, Running, Comparing, Done };
const char* phase_code(Phase p);

struct CheckProgress {
    Phase phase = Phase::Queued;
    int case_index = 0;  // while Running: the case being run (0-based)
    int case_count = 0;
};

struct CheckControl {
    const std::atomic<bool>* cancel = nullptr;
    std::string gpu_arch = "sm_90";  // CUDA exercises: the architecture of the resource report
    bool trace_kernels = false;      // CUDA exercises: record every access of every block (the GUI's Kernel view)
    // CUDA exercises, with trace_kernels: record only block `trace_block` of
    // launch `trace_launch` of case `trace_case` (-1: every block of every
    // case, up to the trace budget). The Kernel view asks this for a block the
    // budget did not reach; the emulator is deterministic, so the re-run's
    // block did what the check's did.
    int trace_case = -1;
    size_t trace_launch = 0;
    uint64_t trace_block = 0;
    std::function<void(const CheckProgress&)> on_progress;
};

struct CheckProblem;        // check/check_assembly.hpp: the parts a result is assembled from, internal
struct ProgramsPart;
class ResourceReportJobs;  // check/resource_report_jobs.hpp: the NVRTC compiles, internal
struct RunnerSeams;         // check/runner_seams.hpp: what tests may change, internal

// One check is a pipeline (runner.cpp) of steps in files of their own: the
// compile (compiler.cpp), the NVRTC report beside it
// (resource_report_jobs.cpp), the cases shared between sandboxed programs and
// judged (case_runs.cpp, program_run.cpp), and the GPU run (gpu_run.cpp).
class Runner {
public:
    explicit Runner(Compiler& compiler);
    ~Runner();  // stops and joins the NVRTC compiles still running
    Runner(const Runner&) = delete;
    Runner& operator=(const Runner&) = delete;
    // `display_name` names the file in messages (defaults to `source_path`).
    CheckResult check(const Exercise& exercise, const fs::path& source_path, const CheckControl& control = {},
                      const std::string& display_name = "");
    // Same, for source text already in memory (the GUI's editor buffer).
    CheckResult check_source(const Exercise& exercise, const std::string& source, const std::string& display_name,
                             const CheckControl& control = {});
    Compiler& compiler() { return compiler_; }

private:
    friend RunnerSeams& seams_of(Runner& runner);
    // The reference op's CUDA kernel on one case, computed once per exercise
    // and case for the life of the runner (cases never change).
    std::optional<KernelOutcome> case_kernel(const Exercise& ex, size_t k, const std::string& key, const Value& expected,
                                             const std::vector<NamedTensor>& reference_stages);
    // Each case's reference side (expected value, stages, reference kernel);
    // a problem when a case does not fit the reference op or its kernel.
    CheckProblem prepare_cases(const Exercise& ex, std::vector<CaseOutcome>& cases);
    // The compile, the NVRTC report beside it, the run: the verdict on the file.
    // `cases_ready` waits for the reference side (prepare_cases, computed
    // beside the compile), moves it into res.cases and says whether it fitted.
    using CasesReady = std::function<CheckProblem()>;
    Verdict compile_and_run(const Exercise& ex, const std::string& source, const std::string& display_name,
                      const CheckControl& control, const CasesReady& cases_ready, CheckResult& res);
    Verdict build_and_run(const Exercise& ex, const std::string& source, const std::string& display_name, const CheckControl& control,
                          const CasesReady& cases_ready, CheckResult& res);
    // A CUDA program's run, with NVRTC's registers per thread when ready (runner.cpp).
    ProgramsPart run_with_register_counts(const Exercise& ex, const fs::path& binary, const CheckControl& control, CheckResult& res);
    // The reference side of the cases checked lately: a warm check of a large
    // case (12 heads at T = 1024: 1 s, 100 MB of stages) reuses it.
    static constexpr size_t kExpectedCacheBytes = size_t{256} << 20;
    Compiler& compiler_;
    ExpectedCache expected_cache_;
    std::mutex kernel_mutex_;
    std::map<std::string, std::optional<KernelOutcome>> kernel_cache_;
    std::unique_ptr<RunnerSeams> seams_;
    std::unique_ptr<ResourceReportJobs> resource_reports_;
};

// Moves a check's pending NVRTC report into r.resources, waiting for it if
// NVRTC is still compiling (the CLI prints the verdict first, then this).
void wait_for_resources(CheckResult& r);

}  // namespace attnlab
