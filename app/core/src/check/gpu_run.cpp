// Where a GPU exists: a CUDA file through nvcc, run there, compared case by
// case. Evidence beside the verdict, which stays the emulator's.
#include <algorithm>
#include <cstdlib>

#include "attnlab/core/check/compare.hpp"
#include "attnlab/core/check/verdict.hpp"
#if ATTNLAB_HAVE_KERNELS
#include "attnlab/kernels/kernels.hpp"
#endif
#include "check_steps.hpp"

namespace attnlab {

namespace {

// The GPU attnlab can run learner kernels on: built with nvcc, a device
// present, not switched off (ATTNLAB_NO_GPU=1). "" when none.
std::string usable_gpu(const Toolchain& toolchain) {
#if ATTNLAB_HAVE_KERNELS
    if (const char* off = std::getenv("ATTNLAB_NO_GPU"); off && *off && std::string(off) != "0") return "";
    if (!toolchain.gpu_problem().empty() || !kernels::gpu_available()) return "";
    return kernels::gpu_device_name();
#else
    (void)toolchain;
    return "";
#endif
}

// One case's outcome on the GPU, judged as the emulator's is (values, then
// a CUDA error or unwritten output), into the summary.
void add_gpu_case(const Exercise& ex, protocol::CaseReport& rec, const CaseOutcome& reference_side, GpuSummary& gpu) {
    ++gpu.cases;
    if (rec.index < gpu.device_time_ns.size()) gpu.device_time_ns[rec.index] = rec.kernel.device_time_ns;
    Verdict verdict = Verdict::RuntimeError;
    KernelCause cause;
    if (rec.status == protocol::CaseStatus::Ok) {
        const Comparison cmp = compare_values(rec.output, reference_side.expected, ex.tolerance);
        gpu.max_abs_error = std::max(gpu.max_abs_error, cmp.max_abs_error);
        const int64_t size = static_cast<int64_t>(reference_side.expected.tensor.data.size());
        const KernelCaseVerdict kv = judge_kernel_case(cmp.verdict, rec.kernel.launches, rec.kernel.unwritten_count, size, 0, KernelRules{});
        verdict = kv.verdict;
        cause = kv.cause;
        if (kv.launch >= 0) gpu.detail = rec.kernel.launches[static_cast<size_t>(kv.launch)].fault.detail;
    } else if (rec.status == protocol::CaseStatus::Exception) {
        gpu.detail = rec.exception_type + ": " + rec.exception_what;
    }
    if (verdict == Verdict::Pass) {
        ++gpu.agreeing;
    } else if (gpu.first_disagreeing < 0) {
        gpu.first_disagreeing = static_cast<int>(rec.index);
        gpu.verdict = verdict;
        gpu.cause = cause;
    }
}

}  // namespace

std::optional<GpuSummary> run_on_gpu(Compiler& compiler, const Exercise& ex, const std::string& source, const std::string& display_name,
                                     const std::vector<CaseOutcome>& cases, const std::atomic<bool>* cancel) {
    const std::string device = usable_gpu(compiler.toolchain());
    if (device.empty()) return std::nullopt;
    GpuSummary gpu;
    gpu.device = device;
    gpu.device_time_ns.assign(ex.cases.size(), -1);
    const CompileOutput co = compiler.compile_gpu(ex, source, display_name, "native", cancel);
    gpu.compile_ms = co.ms;
    if (co.cancelled) return std::nullopt;
    if (!co.ok) {
        gpu.status = GpuRunStatus::CompileFailed;
        gpu.detail = co.internal_error.empty() ? co.raw_output.substr(0, co.raw_output.find('\n')) : co.internal_error;
        return gpu;
    }
    ResultChannel channel(ex.cases.size(), [](int) {}, {}, ex.profile().reports_kernel_launches);
    const ProgramRun run = run_program(compiler, ex, co.binary, cases, ExecutionTarget::Gpu, {}, channel, cancel);
    gpu.run_ms = run.ms;
    if (!run.prepare_error.empty()) {
        gpu.status = GpuRunStatus::RunFailed;
        gpu.detail = run.prepare_error;
        return gpu;
    }
    for (size_t k = 0; k < ex.cases.size(); ++k)
        if (auto& rec = channel.report(k)) add_gpu_case(ex, *rec, cases[k], gpu);
    const ProcessVerdict pv = classify(run.process, channel.summary(), ex.limits);
    gpu.status = pv.verdict == Verdict::Pass && gpu.cases == static_cast<int>(ex.cases.size()) ? GpuRunStatus::Ran : GpuRunStatus::RunFailed;
    if (gpu.status == GpuRunStatus::RunFailed && gpu.detail.empty()) gpu.detail = std::string(verdict_code(pv.verdict)) + (pv.signal ? " (" + signal_name(pv.signal) + ")" : "");
    return gpu;
}

}  // namespace attnlab
