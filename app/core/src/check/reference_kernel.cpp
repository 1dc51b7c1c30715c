#include "attnlab/core/check/reference_kernel.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>

#include "attnlab/core/check/compare.hpp"
#include "attnlab/core/check/expected.hpp"
#include "attnlab/core/base/util.hpp"

#ifdef ATTNLAB_HAVE_KERNELS
#include "attnlab/kernels/kernels.hpp"
#endif

namespace attnlab {

void judge_kernel(KernelOutcome& outcome, const Value& expected, const Tolerance& tolerance,
                  const std::vector<NamedTensor>* reference_stages) {
    outcome.disagreeing_stage.clear();
    if (!outcome.input_error.empty() || !outcome.fault_code.empty()) {
        outcome.ok = false;
        return;
    }
    const Comparison cmp = compare_values(outcome.output, expected, tolerance, 1);
    outcome.max_abs_error_vs_reference = cmp.max_abs_error;
    outcome.ok = cmp.verdict == Verdict::Pass;
    if (!outcome.ok) outcome.disagreeing_stage = "output";
    // The kernel's stages are shown beside the reference's (heatmaps, stages):
    // a wrong intermediate is as much attnlab's fault as a wrong output.
    if (!reference_stages) return;
    for (const NamedTensor& mine : outcome.stages) {
        for (const NamedTensor& ref : *reference_stages) {
            if (ref.name != mine.name) continue;
            const Comparison sc = compare_values(Value::of_tensor(mine.tensor), Value::of_tensor(ref.tensor), tolerance, 1);
            outcome.max_abs_error_vs_reference = std::max(outcome.max_abs_error_vs_reference, sc.max_abs_error);
            if (sc.verdict != Verdict::Pass && outcome.ok) {
                outcome.ok = false;
                outcome.disagreeing_stage = mine.name;
            }
        }
    }
}

KernelProblem kernel_problem(const KernelOutcome& outcome, const Tolerance& tolerance) {
    if (!outcome.fault_code.empty()) return {Problem::KernelFailed, outcome.fault_code};
    if (!outcome.input_error.empty()) return {Problem::KernelFailed, outcome.input_error};
    if (outcome.ok) return {};
    char buf[160];
    std::snprintf(buf, sizeof buf, "stage %s: max |CUDA - Eigen| = %s, atol = %g, rtol = %g", outcome.disagreeing_stage.c_str(),
                  format_number(outcome.max_abs_error_vs_reference).c_str(), tolerance.atol, tolerance.rtol);
    return {Problem::KernelDisagrees, buf};
}

#ifdef ATTNLAB_HAVE_KERNELS

namespace {

std::array<unsigned, 3> dims(const emu::Dim3& d) { return {d.x, d.y, d.z}; }

KernelLaunchSummary summarize(const emu::LaunchReport& r, bool on_gpu) {
    KernelLaunchSummary s;
    s.kernel = r.kernel;
    s.grid = dims(r.grid);
    s.block = dims(r.block);
    s.ok = r.ok();
    s.sectors_per_load_request = r.counters.sectors_per_load_request();
    s.global_pages = r.counters.global_pages;
    s.shared_bank_conflicts = r.counters.shared_bank_conflicts;
    s.barriers = r.counters.barriers;
    if (!on_gpu) s.counters = r.counters;  // a GPU's launch has no per-access counters
    return s;
}

}  // namespace

bool kernels_built() { return true; }

bool exercise_has_kernel(const Exercise& exercise) { return kernels::has_kernel(exercise.reference); }

std::optional<KernelOutcome> run_case_kernel(const Exercise& exercise, const Case& c, const Value& expected,
                                             const std::vector<NamedTensor>* reference_stages) {
    try {
        if (!kernels::has_kernel(exercise.reference)) return std::nullopt;
        kernels::KernelOptions options;
        options.stages = true;
        // A kernel of the course's sizes needs well under 2^16 steps per
        // thread (T = 128, D = 768); a looping kernel stops long before the
        // emulator's own 2^32 default would let it.
        options.emulator_step_limit = uint64_t{1} << 22;
        std::optional<kernels::KernelRun> run = kernels::run_kernel_op(exercise.reference, case_inputs(exercise, c), options);
        if (!run) return std::nullopt;
        KernelOutcome k;
        const bool on_gpu = run->backend == kernels::Backend::Gpu;
        k.backend = on_gpu ? KernelBackend::Gpu : KernelBackend::Emulator;
        k.device = run->device;
        k.input_error = run->input_error;
        for (const emu::LaunchReport& r : run->launches) k.launches.push_back(summarize(r, on_gpu));
        if (!run->report.ok()) {
            k.fault_code = emu::fault_code(run->report.fault.kind);
            k.fault = run->report.fault;
        } else if (run->ok()) {
            k.output = std::move(run->output);
            k.stages = std::move(run->stages);
        }
        judge_kernel(k, expected, exercise.tolerance, reference_stages);
        return k;
    } catch (const std::exception& e) {
        // run_kernel_op promises not to throw; memory exhaustion still can.
        KernelOutcome k;
        k.backend = KernelBackend::Emulator;
        k.input_error = std::string("exception: ") + e.what();
        return k;
    }
}

std::vector<KernelSourceFile> kernel_source_files() {
    std::vector<KernelSourceFile> out;
    for (const auto& s : kernels::kernel_sources()) out.push_back({s.file, s.text});
    return out;
}

KernelBlockRole kernel_block_role(const std::string& kernel, std::array<unsigned, 3> block, int n_heads, int T) {
    const kernels::BlockRole r = kernels::block_role(kernel, emu::Dim3{block[0], block[1], block[2]}, n_heads, T);
    return {r.batch, r.head, r.row_begin, r.row_end};
}

const LayoutCountersView& attention_layout_counters(int B, int T, int H, int hd) {
    static std::mutex mutex;
    static std::map<std::array<int, 4>, LayoutCountersView> cache;
    std::lock_guard<std::mutex> lock(mutex);
    auto [it, fresh] = cache.try_emplace({B, T, H, hd});
    if (!fresh) return it->second;
    LayoutCountersView& v = it->second;
    try {
        const kernels::LayoutComparison cmp = kernels::compare_attention_layouts(B, T, H, hd, 1);
        v.transposed = summarize(cmp.transposed, false);
        v.untransposed = summarize(cmp.untransposed, false);
        v.global_load_requests[0] = cmp.transposed.counters.global_load_requests;
        v.global_load_requests[1] = cmp.untransposed.counters.global_load_requests;
        v.global_load_sectors[0] = cmp.transposed.counters.global_load_sectors;
        v.global_load_sectors[1] = cmp.untransposed.counters.global_load_sectors;
        v.max_abs_difference = cmp.max_abs_difference;
        v.available = cmp.transposed.ok() && cmp.untransposed.ok();
    } catch (const std::exception&) {
        v.available = false;
    }
    return v;
}

#else  // no kernels in this build: no CUDA column anywhere

bool kernels_built() { return false; }
bool exercise_has_kernel(const Exercise&) { return false; }
std::optional<KernelOutcome> run_case_kernel(const Exercise&, const Case&, const Value&, const std::vector<NamedTensor>*) {
    return std::nullopt;
}
std::vector<KernelSourceFile> kernel_source_files() { return {}; }
KernelBlockRole kernel_block_role(const std::string&, std::array<unsigned, 3>, int, int) { return {}; }
const LayoutCountersView& attention_layout_counters(int, int, int, int) {
    static const LayoutCountersView none;
    return none;
}

#endif

}  // namespace attnlab
