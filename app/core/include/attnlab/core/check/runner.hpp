#pragma once
// One check: compile the learner's file, run it on every case in the sandbox,
// compare each output with the Eigen reference, and say what happened.
// The runner never throws for anything the learner's code does.
#include <atomic>
#include <future>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
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

// NVRTC's report on a CUDA file, while it is being compiled.
using PendingResources = std::shared_future<std::shared_ptr<const ResourceReport>>;

class Runner {
public:
    explicit Runner(Compiler& compiler) : compiler_(compiler) {}
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

    // Test seam: called on a freshly computed kernel outcome before it is
    // judged and cached (a test makes the kernel disagree with the reference
    // this way). Never set by attnlab itself.
    std::function<void(KernelOutcome&)> kernel_test_hook;
    // Test seam: NVRTC's report is treated as not ready when the program
    // starts, as when NVRTC finishes after g++ (the run is then repeated if
    // its register counts refuse a launch). Never set by attnlab itself.
    bool nvrtc_late_for_test = false;
    // Test seam: NVRTC's compiles wait for this before they start (a test
    // holds NVRTC back to see the verdict arrive without it). Never set by attnlab.
    std::shared_future<void> nvrtc_gate_for_test;

private:
    // The reference op's CUDA kernel on one case, computed once per exercise
    // and case for the life of the runner (cases never change).
    std::optional<KernelOutcome> case_kernel(const Exercise& ex, size_t k, const Value& expected,
                                             const std::vector<NamedTensor>& reference_stages);
    bool prepare_cases(const Exercise& ex, CheckResult& res);
    // NVRTC's view of a CUDA file, computed while the check runs.
    PendingResources start_resource_report(const std::string& source, const std::string& display_name, const CheckControl& control,
                                           const std::shared_ptr<std::atomic<bool>>& stop);
    void join_finished_nvrtc_threads();  // with nvrtc_threads_mutex_ held
    // Where a GPU exists: a CUDA file through nvcc, run there, compared case by case.
    void run_on_gpu(const Exercise& ex, const std::string& source, const std::string& display_name, const CheckControl& control,
                    CheckResult& res);
    Verdict compile_and_run(const Exercise& ex, const std::string& source, const std::string& display_name,
                      const CheckControl& control, CheckResult& res);
    Verdict run_cases(const Exercise& ex, const fs::path& binary, const CheckControl& control, CheckResult& res,
                      const std::vector<std::string>& extra_args = {});
    // A CUDA program's run, with NVRTC's registers per thread when ready (runner.cpp).
    Verdict run_with_register_counts(const Exercise& ex, const fs::path& binary, const CheckControl& control, CheckResult& res);
    Verdict build_and_run(const Exercise& ex, const std::string& source, const std::string& display_name, const CheckControl& control,
                          CheckResult& res);
    Compiler& compiler_;
    std::mutex kernel_mutex_;
    std::map<std::string, std::optional<KernelOutcome>> kernel_cache_;
    std::mutex resources_mutex_;
    std::map<std::string, std::shared_ptr<const ResourceReport>> resources_cache_;  // arch/file/hash of the NVRTC source -> report
    struct NvrtcThread {
        std::thread thread;
        std::shared_ptr<std::atomic<bool>> stop;
        PendingResources report;  // ready once the thread is about to return
    };
    std::mutex nvrtc_threads_mutex_;
    std::vector<NvrtcThread> nvrtc_threads_;
};

// Moves a check's pending NVRTC report into r.resources, waiting for it if
// NVRTC is still compiling (the CLI prints the verdict first, then this).
void wait_for_resources(CheckResult& r);

}  // namespace attnlab
