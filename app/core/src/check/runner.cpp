#include "attnlab/core/check/runner.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <future>
#include <mutex>
#include <thread>

#include "attnlab/common/protocol.hpp"
#include "attnlab/common/register_file.hpp"
#include "attnlab/core/check/case_groups.hpp"
#include "attnlab/core/check/compare.hpp"
#include "attnlab/emu/cuda_source.hpp"
#include "attnlab/core/check/expected.hpp"
#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/core/check/reference_kernel.hpp"
#include "attnlab/core/check/mistakes.hpp"
#include "attnlab/core/check/performance.hpp"
#include "attnlab/core/check/process.hpp"
#include "attnlab/core/check/stage_matching.hpp"
#include "attnlab/core/base/util.hpp"
#include "attnlab/core/check/verdict.hpp"
#include "attnlab/core/course/case_figures.hpp"
#if ATTNLAB_HAVE_KERNELS
#include "attnlab/kernels/kernels.hpp"
#endif
#include "attnlab/reference/registry.hpp"
#include "check_assembly.hpp"
#include "check_steps.hpp"
#include "resource_report_jobs.hpp"
#include "runner_seams.hpp"

namespace attnlab {

const char* phase_code(Phase p) {
    switch (p) {
        case Phase::Queued: return "queued";
        case Phase::Compiling: return "compiling";
        case Phase::Running: return "running";
        case Phase::Comparing: return "comparing";
        case Phase::Done: return "done";
    }
    return "?";
}

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

}  // namespace

void report_progress(const CheckControl& control, Phase phase, int index, int count) {
    if (control.on_progress) control.on_progress(CheckProgress{phase, index, count});
}

// NVRTC compiles at most one per two cores at once: each wants a core, and
// the check's own compile and run want theirs.
Runner::Runner(Compiler& compiler)
    : compiler_(compiler),
      expected_cache_(kExpectedCacheBytes),
      seams_(std::make_unique<RunnerSeams>()),
      resource_reports_(std::make_unique<ResourceReportJobs>(compiler.cache_dir() / "tmp", std::thread::hardware_concurrency() / 2,
                                                               compiler.toolchain().weak_sandbox_allowed)) {}

Runner::~Runner() = default;  // ResourceReportJobs stops and joins its compiles

RunnerSeams& seams_of(Runner& runner) { return *runner.seams_; }

CheckProblem Runner::prepare_cases(const Exercise& ex, std::vector<CaseOutcome>& cases) {
    cases.resize(ex.cases.size());
    std::vector<std::string> keys(ex.cases.size());
    for (size_t k = 0; k < ex.cases.size(); ++k) {
        CaseOutcome& c = cases[k];
        c.index = static_cast<int>(k);
        c.name = ex.cases[k].name;
        c.tokens = ex.cases[k].tokens;
        keys[k] = case_key(ex, ex.cases[k]);
        try {
            const std::shared_ptr<const ExpectedCase> e = expected_cache_.get(keys[k], [&] {
                ExpectedCase computed;
                compute_expected(ex, ex.cases[k], computed.output, computed.stages);
                return computed;
            });
            c.expected = e->output;
            c.stages = e->stages;
        } catch (const std::exception& e) {
            return {Problem::CaseDoesNotFitReference, static_cast<int>(k), e.what()};
        }
    }
    CheckProblem first;
    for (size_t k = 0; k < ex.cases.size(); ++k) {
        CaseOutcome& c = cases[k];
        // attnlab's own kernel checked whole at a sampled case's size costs what
        // sampling saves the learner's (seconds at T = 1024): the CUDA column
        // is left to the other cases.
        if (ex.cases[k].sampled) continue;
        c.reference_kernel = case_kernel(ex, k, keys[k], c.expected, c.stages);
        if (!c.reference_kernel) continue;
        const KernelProblem kp = kernel_problem(*c.reference_kernel, ex.tolerance);
        if (kp.problem != Problem::None && first.problem == Problem::None) first = {kp.problem, static_cast<int>(k), kp.detail};
    }
    return first;
}

std::optional<KernelOutcome> Runner::case_kernel(const Exercise& ex, size_t k, const std::string& key, const Value& expected,
                                                 const std::vector<NamedTensor>& reference_stages) {
    if (!exercise_has_kernel(ex)) return std::nullopt;
    {
        std::lock_guard<std::mutex> lock(kernel_mutex_);
        if (auto it = kernel_cache_.find(key); it != kernel_cache_.end()) return it->second;
    }
    // Outside the lock: a second check of another exercise need not wait.
    std::optional<KernelOutcome> outcome = run_case_kernel(ex, ex.cases[k], expected, &reference_stages);
    if (outcome && seams_->kernel_outcome) {
        seams_->kernel_outcome(*outcome);
        judge_kernel(*outcome, expected, ex.tolerance, &reference_stages);
    }
    std::lock_guard<std::mutex> lock(kernel_mutex_);
    return kernel_cache_.emplace(key, std::move(outcome)).first->second;
}

CheckResult Runner::check(const Exercise& exercise, const fs::path& source_path, const CheckControl& control,
                          const std::string& display_name) {
    const std::string name = display_name.empty() ? source_path.string() : display_name;
    std::error_code ec;
    auto size = fs::file_size(source_path, ec);
    if (!ec && size > kMaxSourceBytes)
        return refused_check(exercise.id, Verdict::CompileError, {Problem::SourceTooLarge, -1, "", static_cast<double>(size)});
    auto text = read_file(source_path);
    if (!text) return refused_check(exercise.id, Verdict::InternalError, {Problem::CannotReadSource, -1, source_path.string()});
    return check_source(exercise, *text, name, control);
}

CheckResult Runner::check_source(const Exercise& ex, const std::string& source, const std::string& display_name,
                                 const CheckControl& control) {
    const auto t0 = clock_type::now();
    CheckResult res;
    res.exercise_id = ex.id;
    auto finish = [&](Verdict v) -> CheckResult {
        res.verdict = v;
        res.total_ms = ms_since(t0);
        report_progress(control, Phase::Done, 0, static_cast<int>(ex.cases.size()));
        return std::move(res);
    };

    if (source.size() > kMaxSourceBytes) {
        add_problem(res, {Problem::SourceTooLarge, -1, "", static_cast<double>(source.size())});
        return finish(Verdict::CompileError);
    }
    // What the runtime's rewrite cannot read is the learner's compile error on
    // its line, in attnlab's words: never the compiler's parse error on the
    // rewrite, never a variable compiled without its checks.
    if (std::vector<UnreadPart> unread = ex.profile().unread_parts(source); !unread.empty()) {
        add_unread_parts(res, std::move(unread));
        return finish(Verdict::CompileError);
    }
    if (std::string problem = compiler_.toolchain().problem(ex.runtime); !problem.empty()) {
        add_problem(res, {Problem::ToolchainMissing, -1, problem});
        return finish(Verdict::InternalError);
    }
    // The reference side of the cases is computed while the file compiles (a
    // second at T = 1024 the first time; then from expected_cache_), and is
    // judged first: a case that does not fit its reference op is the course's
    // fault and must not be blamed on the learner. So is a CUDA kernel of the
    // reference op that faults or disagrees with it.
    std::vector<CaseOutcome> prepared;
    std::future<CheckProblem> reference_side =
        std::async(std::launch::async, [&] { return prepare_cases(ex, prepared); });  // its destructor joins
    bool cases_fit = false;
    const CasesReady cases_ready = [&] {
        CheckProblem unfit = reference_side.get();
        res.cases = std::move(prepared);
        cases_fit = unfit.problem == Problem::None;
        return unfit;
    };

    // How the file is built and run, and what evidence comes back, is the
    // runtime profile's (check/runtime_profiles.cpp): one path for every runtime.
    const Verdict v = compile_and_run(ex, source, display_name, control, cases_ready, res);
    if (!cases_fit) return finish(v);  // nothing ran: the course's fault is the whole report
    res.verdict = v;
    if (v != Verdict::Pass && v != Verdict::Cancelled) res.mistake = diagnose_mistake(ex, res);
    // Placed before the difference is located: a placed stage that differs says where.
    place_recorded_stages(ex, res);
    if (v != Verdict::Pass && v != Verdict::Cancelled) res.difference = locate_difference(ex, res);
    return finish(v);
}

void wait_for_resources(CheckResult& r) {
    if (!r.resources_pending.valid()) return;
    r.resources = r.resources_pending.get();  // never throws: the compile thread catches
    r.resources_pending = {};
}

bool CheckResult::resources_ready() const {
    return !resources_pending.valid() || resources_pending.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

namespace {
// NVRTC's registers per thread go to the program, which refuses a launch
// whose block needs more registers than an SM has, as a GPU does. Taken only
// when the report is ready (`wait` = false: never waiting for it, so a slow
// NVRTC compile does not hold the verdict back; see registers_changed_verdict).
std::vector<std::string> kernel_register_args(CheckResult& res, bool wait) {
    if (!res.resources_pending.valid() && !res.resources) return {};
    if (!wait && !res.resources_ready()) return {};
    wait_for_resources(res);
    std::string list;
    for (const KernelResources& k : res.resources->kernels) {
        if (k.registers <= 0 || k.kernel.find_first_of(",=") != std::string::npos) continue;
        list += (list.empty() ? "" : ",") + k.kernel + "=" + std::to_string(k.registers);
    }
    if (list.empty()) return {};
    return {"--kernel-registers", list};
}

// Would a GPU have refused one of the launches the program made without
// NVRTC's counts? Then the run must be repeated with them (rare: only a
// block too large for its kernel's registers).
// Could registers refuse any launch the program made? Not a block of at most
// 256 threads: even at the 255 registers a thread may have, it needs no more
// than the register file holds, so the verdict need not wait for NVRTC.
bool registers_could_refuse_a_launch(const CheckResult& res) {
    for (const CaseOutcome& c : res.cases)
        for (const emu::LaunchReport& L : c.kernels.launches)
            if (block_exceeds_register_file(kMaxRegistersPerThread, static_cast<int64_t>(L.block.count()))) return true;
    return false;
}

bool registers_refuse_a_launch(const CheckResult& res) {
    if (!res.resources) return false;
    for (const CaseOutcome& c : res.cases)
        for (const emu::LaunchReport& L : c.kernels.launches)
            for (const KernelResources& k : res.resources->kernels)
                if (k.kernel == L.kernel && block_exceeds_register_file(k.registers, static_cast<int64_t>(L.block.count()))) return true;
    return false;
}
}  // namespace

Verdict Runner::compile_and_run(const Exercise& ex, const std::string& source, const std::string& display_name,
                          const CheckControl& control, const CasesReady& cases_ready, CheckResult& res) {
    const int count = static_cast<int>(ex.cases.size());
    report_progress(control, Phase::Compiling, 0, count);
    // A CUDA file also goes to NVRTC (registers, shared memory, spills), on
    // another thread while the host compiler and the run take theirs.
    auto stop_nvrtc = std::make_shared<std::atomic<bool>>(false);
    if (ex.profile().resource_report)
        res.resources_pending = resource_reports_->start(source, display_name, control.gpu_arch, stop_nvrtc, seams_->nvrtc_gate);
    const Verdict v = build_and_run(ex, source, display_name, control, cases_ready, res);
    if (v == Verdict::Cancelled) stop_nvrtc->store(true);  // nobody will read its report
    // Whatever the verdict, the report joins the result, now or (still
    // compiling) through res.resources_pending.
    if (res.resources_pending.valid() && res.resources_ready()) wait_for_resources(res);
    return v;
}

Verdict Runner::build_and_run(const Exercise& ex, const std::string& source, const std::string& display_name, const CheckControl& control,
                              const CasesReady& cases_ready, CheckResult& res) {
    const CompileOutput compiled = compiler_.compile(ex, source, display_name, control.cancel);
    if (CheckProblem unfit = cases_ready(); unfit.problem != Problem::None) {  // the compile is not reported
        add_problem(res, std::move(unfit));
        return Verdict::InternalError;
    }
    CompilePart part = compile_part(compiled, ex.signature(), control.cancel && control.cancel->load());
    const std::optional<Verdict> ended = part.ends_check;
    add_compile(res, std::move(part));
    if (ended) return *ended;
    ProgramsPart programs = run_with_register_counts(ex, compiled.binary, control, res);
    const Verdict v = programs.verdict;
    add_programs(res, std::move(programs));
    const bool recording_one_block = control.trace_case >= 0;  // only the emulator's trace is wanted
    if (ex.profile().runs_on_gpu && v != Verdict::Cancelled && v != Verdict::InternalError && !recording_one_block)
        res.gpu = run_on_gpu(compiler_, ex, source, display_name, res.cases, control.cancel);
    return v;
}

// A CUDA program runs at once, with NVRTC's registers per thread if they are
// ready. If NVRTC finishes later and its counts refuse a launch the program
// made, the run is repeated with them: the verdict a GPU gives, without
// making every check wait for NVRTC.
ProgramsPart Runner::run_with_register_counts(const Exercise& ex, const fs::path& binary, const CheckControl& control, CheckResult& res) {
    if (!res.resources_pending.valid()) return run_cases(compiler_, ex, binary, control, res.cases, {});
    std::vector<std::string> registers = seams_->nvrtc_late ? std::vector<std::string>{} : kernel_register_args(res, false);
    ProgramsPart run = run_cases(compiler_, ex, binary, control, res.cases, registers);
    if (!registers.empty() || run.verdict == Verdict::Cancelled || run.verdict == Verdict::InternalError) return run;
    if (!registers_could_refuse_a_launch(res)) return run;  // final without NVRTC: the report joins when it is done
    registers = kernel_register_args(res, true);
    if (registers.empty() || !registers_refuse_a_launch(res)) return run;
    // The cases as they were before the first run: from the caches, not a
    // copy kept on every check for this rare re-run.
    res.cases.clear();
    if (CheckProblem again = prepare_cases(ex, res.cases); again.problem != Problem::None) {
        ProgramsPart failed;  // InternalError: the same cases fitted a moment ago
        failed.problem = std::move(again);
        return failed;
    }
    return run_cases(compiler_, ex, binary, control, res.cases, registers);
}

}  // namespace attnlab
