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
#include "attnlab/core/check/cuda_source.hpp"
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
#include "result_channel.hpp"

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

void report(const CheckControl& control, Phase phase, int index, int count) {
    if (control.on_progress) control.on_progress(CheckProgress{phase, index, count});
}

void judge_kernel_data(const Exercise& ex, const Case& spec, protocol::CaseReport& rec, CaseOutcome& c);

// What one case reported becomes its outcome: compared with the reference
// when it returned a value.
void judge_case(const Exercise& ex, const Case& spec, protocol::CaseReport& rec, CaseOutcome& c) {
    c.elapsed_ms = rec.ms;
    switch (rec.status) {
        case protocol::CaseStatus::OutOfMemory: c.verdict = Verdict::MemoryLimit; return;
        case protocol::CaseStatus::Exception:
            c.verdict = Verdict::RuntimeError;
            c.exception_type = inert_text(rec.exception_type);
            c.exception_what = inert_text(rec.exception_what);
            return;
        case protocol::CaseStatus::InputModified:
            c.verdict = Verdict::ModifiedInput;
            c.modified_input = rec.modified_arg < ex.params.size() ? ex.params[rec.modified_arg].name : "?";
            return;
        case protocol::CaseStatus::OutputTooLarge:
            c.verdict = Verdict::WrongShape;
            c.unsent_shape = sanitize_utf8(rec.output_shape);
            return;
        case protocol::CaseStatus::Ok: break;
    }
    c.actual = std::move(rec.output);
    c.probes = std::move(rec.probes);
    c.probes_dropped = rec.probes_dropped;
    c.recorded = std::move(rec.recorded);
    c.recorded_dropped = rec.recorded_dropped;
    Comparison cmp = compare_values(c.actual, c.expected, ex.tolerance);
    c.verdict = cmp.verdict;
    c.max_abs_error = cmp.max_abs_error;
    c.mismatch_count = cmp.mismatch_count;
    c.one_sided_count = cmp.one_sided_count;
    c.mismatches = std::move(cmp.mismatches);
    c.nonfinite_index = std::move(cmp.nonfinite_index);
    c.nonfinite_value = cmp.nonfinite_value;
    c.nonfinite_expected = cmp.nonfinite_expected;
    judge_kernel_data(ex, spec, rec, c);
}

// A learner program under its limits, on its target, with a result channel.
ProcessSpec sandbox_spec(const Toolchain& toolchain, const fs::path& binary, const fs::path& run_dir, const fs::path& cases_file,
                         const Limits& limits, ExecutionTarget target, const fs::path& course) {
    ProcessSpec spec;
    spec.sandbox = toolchain.sandbox.string();
    spec.policy = learner_policy(target, course);
    spec.argv = {binary.string(), cases_file.string()};
    spec.cwd = run_dir.string();
    spec.with_channel = true;
    spec.limits = limits;
    spec.capture_bytes = 64 * 1024;
    return spec;
}

// What the learner's program receives for one case: the case's arguments; a
// launcher that fills a device output first gets the expected output's shape
// (its `out` tensor is allocated with it, unwritten; the values sent are not used).
protocol::CaseArgs program_args(const Exercise& ex, const Case& c, const CaseOutcome& outcome) {
    protocol::CaseArgs args;
    if (ex.profile().entry_shape == EntryShape::FillsDeviceOutput) {
        const TensorData& expected = outcome.expected.tensor;
        args.push_back(Value::of_tensor(TensorData(expected.shape, std::vector<float>(expected.data.size(), 0.0f))));
    }
    args.insert(args.end(), c.args.begin(), c.args.end());
    return args;
}

// One sandboxed run of a learner program on every case, on the CPU or a GPU:
// the inputs written to a private folder, the program started there, its
// result channel decoded case by case as it runs. The only place a learner
// program is started.
struct ProgramRun {
    ProcessOutcome process;
    std::string prepare_error;  // the inputs could not be written: nothing ran
    double ms = 0;
};

ProgramRun run_program(const Compiler& compiler, const Exercise& ex, const fs::path& binary, const std::vector<CaseOutcome>& cases,
                       ExecutionTarget target, const std::vector<std::string>& extra_args, ResultChannel& channel,
                       const std::atomic<bool>* cancel) {
    const auto t0 = clock_type::now();
    ProgramRun run;
    static std::atomic<uint64_t> runs_started{0};  // two programs of one check start in the same instant
    const fs::path run_dir = compiler.cache_dir() / "tmp" /
                             ("run-" + std::to_string(::getpid()) + "-" + std::to_string(runs_started++) + "-" +
                              hex64(hash64(std::to_string(t0.time_since_epoch().count()) + ex.id)));
    const fs::path cases_file = run_dir / "cases.bin";
    std::error_code ec;
    try {
        fs::create_directories(run_dir);
        std::vector<protocol::CaseArgs> args;
        for (size_t k = 0; k < ex.cases.size(); ++k) args.push_back(program_args(ex, ex.cases[k], cases[k]));
        write_file_atomic(cases_file, protocol::encode_cases(args));
    } catch (const std::exception& e) {
        fs::remove_all(run_dir, ec);
        run.prepare_error = e.what();
        return run;
    }
    ProcessSpec spec = sandbox_spec(compiler.toolchain(), binary, run_dir, cases_file, ex.limits, target, ex.dir.parent_path());
    spec.argv.insert(spec.argv.end(), extra_args.begin(), extra_args.end());
    run.process = run_in_sandbox(spec, [&](const char* data, size_t n) { return channel.feed(data, n); }, cancel);
    fs::remove_all(run_dir, ec);
    run.ms = ms_since(t0);
    return run;
}

// What the emulator is told besides the cases, for a program that reports
// its kernel launches: the chosen architecture's opt-in maximum of shared
// memory per block (a launch above it fails as it would on that GPU), and
// what to trace for the Kernel view.
std::vector<std::string> launch_args(const Exercise& ex, const CheckControl& control) {
    std::vector<std::string> args;
    if (!ex.profile().reports_kernel_launches) return args;
    if (const auto arch = arch_limits(control.gpu_arch)) args.insert(args.end(), {"--max-dynamic-shared", std::to_string(arch->max_shared_per_block_optin)});
    if (control.trace_kernels) args.push_back("--trace-kernels");
    if (control.trace_kernels && control.trace_case >= 0)
        args.insert(args.end(), {"--trace-case", std::to_string(control.trace_case), "--trace-launch", std::to_string(control.trace_launch),
                                 "--trace-block", std::to_string(control.trace_block)});
    return args;
}

// A CUDA program's case: its launches, and the verdict they and the output give
// (the least traffic its operation needs: minimum_sectors, performance.cpp).

void judge_kernel_data(const Exercise& ex, const Case& spec, protocol::CaseReport& rec, CaseOutcome& c) {
    if (!ex.profile().reports_kernel_launches || !rec.has_kernel) return;
    LearnerKernels& k = c.kernels;
    k.launches = std::move(rec.kernel.launches);
    k.unwritten_count = rec.kernel.unwritten_count;
    k.first_unwritten = rec.kernel.first_unwritten;
    k.host_set_count = rec.kernel.host_set_count;
    k.leaked_buffers = rec.kernel.leaked_buffers;
    k.leaked_bytes = rec.kernel.leaked_bytes;
    k.first_leak_name = rec.kernel.first_leak_name;
    k.first_leak_line = rec.kernel.first_leak_line;
    const int64_t output_size = static_cast<int64_t>(c.expected.tensor.data.size());
    const int64_t required_blocks = ex.kernel_rules.blocks_per_launch.empty()
                                        ? 0
                                        : evaluate_case_expression(ex.kernel_rules.blocks_per_launch, case_names(ex.params, {spec}, ex.derived_case_names).front());
    const int64_t least = minimum_sectors(reference::find_op(ex.reference), case_inputs(ex, spec), output_size);
    const KernelCaseVerdict kv = judge_kernel_case(c.verdict, k.launches, k.unwritten_count, output_size, least,
                                                   ex.kernel_rules, k.leaked_buffers, required_blocks);
    c.verdict = kv.verdict;
    k.cause = kv.cause;
    k.rule_value = kv.value;
    k.rule_limit = kv.limit;
    k.rule_name = kv.rule;
}

void record_process(const ProcessOutcome& p, CheckResult& res) {
    res.protections = p.protections;
    res.cpu_ms = p.cpu_ms;
    res.maxrss_kb = p.maxrss_kb;
    res.stdout_text = inert_text(sanitize_utf8(p.out));  // learner output: no escape sequence reaches a terminal
    res.stderr_text = inert_text(sanitize_utf8(p.err));
    res.output_truncated = p.out_total > p.out.size() || p.err_total > p.err.size();
}

void record_process_verdict(const ProcessVerdict& pv, CheckResult& res) {
    res.limit = pv.limit;
    res.limit_value = pv.limit_value;
    res.signal = pv.signal;
    if (pv.signal) res.signal_name = signal_name(pv.signal);
    res.exit_code = pv.exit_code;
    res.crashed_before_entry = pv.crashed_before_entry;
    if (pv.problem != Problem::None) {
        res.problem = pv.problem;
        res.detail = pv.detail;
    }
}

}  // namespace

// Expected outputs first: a case that does not fit its reference op is the
// course's fault and must not be blamed on the learner. So is a CUDA kernel of
// the reference op that faults or disagrees with it.
bool Runner::prepare_cases(const Exercise& ex, CheckResult& res) {
    res.cases.resize(ex.cases.size());
    for (size_t k = 0; k < ex.cases.size(); ++k) {
        CaseOutcome& c = res.cases[k];
        c.index = static_cast<int>(k);
        c.name = ex.cases[k].name;
        c.tokens = ex.cases[k].tokens;
        try {
            compute_expected(ex, ex.cases[k], c.expected, c.stages);
        } catch (const std::exception& e) {
            res.problem = Problem::CaseDoesNotFitReference;
            res.problem_case = static_cast<int>(k);
            res.detail = e.what();
            return false;
        }
    }
    for (size_t k = 0; k < ex.cases.size(); ++k) {
        CaseOutcome& c = res.cases[k];
        c.reference_kernel = case_kernel(ex, k, c.expected, c.stages);
        if (!c.reference_kernel) continue;
        const KernelProblem kp = kernel_problem(*c.reference_kernel, ex.tolerance);
        if (kp.problem != Problem::None && res.problem == Problem::None) {
            res.problem = kp.problem;
            res.problem_case = static_cast<int>(k);
            res.detail = kp.detail;
        }
    }
    return res.problem == Problem::None;
}

std::optional<KernelOutcome> Runner::case_kernel(const Exercise& ex, size_t k, const Value& expected,
                                                 const std::vector<NamedTensor>& reference_stages) {
    if (!exercise_has_kernel(ex)) return std::nullopt;
    const std::string key = ex.id + "/" + ex.reference + "/" + hex64(hash64(protocol::encode_cases({ex.cases[k].args})));
    {
        std::lock_guard<std::mutex> lock(kernel_mutex_);
        if (auto it = kernel_cache_.find(key); it != kernel_cache_.end()) return it->second;
    }
    // Outside the lock: a second check of another exercise need not wait.
    std::optional<KernelOutcome> outcome = run_case_kernel(ex, ex.cases[k], expected, &reference_stages);
    if (outcome && kernel_test_hook) {
        kernel_test_hook(*outcome);
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
    if (!ec && size > kMaxSourceBytes) {
        CheckResult r;
        r.exercise_id = exercise.id;
        r.verdict = Verdict::CompileError;
        r.problem = Problem::SourceTooLarge;
        r.limit_value = static_cast<double>(size);
        return r;
    }
    auto text = read_file(source_path);
    if (!text) {
        CheckResult r;
        r.exercise_id = exercise.id;
        r.verdict = Verdict::InternalError;
        r.problem = Problem::CannotReadSource;
        r.detail = source_path.string();
        return r;
    }
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
        report(control, Phase::Done, 0, static_cast<int>(ex.cases.size()));
        return std::move(res);
    };

    if (source.size() > kMaxSourceBytes) {
        res.problem = Problem::SourceTooLarge;
        res.limit_value = static_cast<double>(source.size());
        return finish(Verdict::CompileError);
    }
    // What the runtime's rewrite cannot read is the learner's compile error on
    // its line, in attnlab's words: never the compiler's parse error on the
    // rewrite, never a variable compiled without its checks.
    if (std::vector<UnreadPart> unread = ex.profile().unread_parts(source); !unread.empty()) {
        res.problem = Problem::SourceUnread;
        res.unread_parts = std::move(unread);
        return finish(Verdict::CompileError);
    }
    if (std::string problem = compiler_.toolchain().problem(ex.runtime); !problem.empty()) {
        res.problem = Problem::ToolchainMissing;
        res.detail = problem;
        return finish(Verdict::InternalError);
    }
    if (!prepare_cases(ex, res)) return finish(Verdict::InternalError);

    // How the file is built and run, and what evidence comes back, is the
    // runtime profile's (check/runtime_profiles.cpp): one path for every runtime.
    const Verdict v = compile_and_run(ex, source, display_name, control, res);
    res.verdict = v;
    if (v != Verdict::Pass && v != Verdict::Cancelled) res.mistake = diagnose_mistake(ex, res);
    // Placed before the difference is located: a placed stage that differs says where.
    place_recorded_stages(ex, res);
    if (v != Verdict::Pass && v != Verdict::Cancelled) res.difference = locate_difference(ex, res);
    return finish(v);
}

PendingResources Runner::start_resource_report(const std::string& source, const std::string& display_name, const CheckControl& control,
                                               const std::shared_ptr<std::atomic<bool>>& stop) {
    const fs::path work_dir = compiler_.cache_dir() / "tmp";
    std::string nvrtc_source = cuda_source::for_nvrtc(source);
    // Unchanged file, same architecture: the report NVRTC gave last time (a
    // recheck costs no compile).
    const std::string key = control.gpu_arch + "/" + display_name + "/" + hex64(hash64(nvrtc_source));
    auto ready = std::make_shared<std::promise<std::shared_ptr<const ResourceReport>>>();
    PendingResources pending = ready->get_future().share();
    {
        std::lock_guard<std::mutex> lock(resources_mutex_);
        if (auto it = resources_cache_.find(key); it != resources_cache_.end()) {
            ready->set_value(it->second);
            return pending;
        }
    }
    // A thread the runner owns (joined by ~Runner), not std::async: the last
    // copy of a std::async future blocks in its destructor, and a result
    // dropped while NVRTC still runs must not hold up the window.
    auto compile = [this, key, nvrtc_source = std::move(nvrtc_source), display_name, arch = control.gpu_arch, work_dir, stop, ready,
                    gate = nvrtc_gate_for_test] {
        if (gate.valid()) gate.wait();
        std::shared_ptr<const ResourceReport> report;
        try {
            report = std::make_shared<const ResourceReport>(
                compile_resources(nvrtc_source, display_name, {{"attnlab/cuda.hpp", cuda_source::nvrtc_prelude()}}, arch, work_dir, stop.get()));
        } catch (const std::exception& e) {  // nothing may escape the thread: the report says what happened
            ResourceReport failed;
            failed.arch = arch;
            failed.log = e.what();
            report = std::make_shared<const ResourceReport>(std::move(failed));
        }
        // Kept: what the file itself decides (figures, or NVRTC's errors on
        // it). Not kept: a timeout or a killed NVRTC, which a busy machine
        // may cause and a retry may not.
        if (report->status == ResourceReport::Status::Ok || (report->status == ResourceReport::Status::CompileError && !report->diagnostics.empty())) {
            std::lock_guard<std::mutex> lock(resources_mutex_);
            if (resources_cache_.size() >= 64) resources_cache_.clear();  // bounded; a miss only costs a compile
            resources_cache_[key] = report;
        }
        ready->set_value(std::move(report));
    };
    std::lock_guard<std::mutex> lock(nvrtc_threads_mutex_);
    join_finished_nvrtc_threads();
    nvrtc_threads_.push_back({std::thread(std::move(compile)), stop, pending});
    return pending;
}

void Runner::join_finished_nvrtc_threads() {
    for (auto it = nvrtc_threads_.begin(); it != nvrtc_threads_.end();) {
        if (it->report.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
            ++it;
            continue;
        }
        it->thread.join();  // it has set its value: about to return
        it = nvrtc_threads_.erase(it);
    }
}

Runner::~Runner() {
    std::lock_guard<std::mutex> lock(nvrtc_threads_mutex_);
    for (NvrtcThread& t : nvrtc_threads_) t.stop->store(true);  // the sandbox kills NVRTC: no 30 s wait at exit
    for (NvrtcThread& t : nvrtc_threads_) t.thread.join();
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
                          const CheckControl& control, CheckResult& res) {
    const int count = static_cast<int>(ex.cases.size());
    report(control, Phase::Compiling, 0, count);
    // A CUDA file also goes to NVRTC (registers, shared memory, spills), on
    // another thread while the host compiler and the run take theirs.
    auto stop_nvrtc = std::make_shared<std::atomic<bool>>(false);
    if (ex.profile().resource_report) res.resources_pending = start_resource_report(source, display_name, control, stop_nvrtc);
    const Verdict v = build_and_run(ex, source, display_name, control, res);
    if (v == Verdict::Cancelled) stop_nvrtc->store(true);  // nobody will read its report
    // Whatever the verdict, the report joins the result, now or (still
    // compiling) through res.resources_pending.
    if (res.resources_pending.valid() && res.resources_ready()) wait_for_resources(res);
    return v;
}

namespace {

// Why the learner's file made no program, as a verdict on that file.
Verdict compile_failure(const Exercise& ex, const CompileOutput& co, CheckResult& res) {
    if (co.missing_entry) {
        res.missing_entry_signature = ex.signature();
        return Verdict::MissingEntry;
    }
    if (co.compiler_limit != CompilerLimit::None) {
        res.problem = co.compiler_limit == CompilerLimit::Time ? Problem::CompilerOutOfTime : Problem::CompilerOutOfMemory;
        res.limit_value = co.compiler_limit_value;
    } else if (co.defines_main) {
        res.problem = Problem::DefinesMain;
    } else if (!co.object_problems.empty()) {
        res.problem = Problem::ObjectRefused;
        res.object_problems = co.object_problems;
    }
    return Verdict::CompileError;
}

}  // namespace

Verdict Runner::build_and_run(const Exercise& ex, const std::string& source, const std::string& display_name, const CheckControl& control,
                              CheckResult& res) {
    CompileOutput co = compiler_.compile(ex, source, display_name, control.cancel);
    res.compile_ms = co.ms;
    res.compile_cached = co.cached;
    res.diagnostics = co.diagnostics;
    res.compiler_output = co.raw_output;
    if (co.cancelled || (control.cancel && control.cancel->load())) return Verdict::Cancelled;
    if (co.isolation_refused) res.protections = co.protections;
    if (!co.internal_error.empty()) {
        res.problem = co.isolation_refused ? Problem::IsolationUnavailable
                      : co.machine_problem ? Problem::MachineResources
                      : co.setup_problem   ? Problem::SandboxSetup
                                           : Problem::CompilerFailed;
        res.detail = co.internal_error;
        return Verdict::InternalError;
    }
    if (!co.ok) return compile_failure(ex, co, res);
    const Verdict v = run_with_register_counts(ex, co.binary, control, res);
    const bool recording_one_block = control.trace_case >= 0;  // only the emulator's trace is wanted
    if (ex.profile().runs_on_gpu && v != Verdict::Cancelled && v != Verdict::InternalError && !recording_one_block)
        run_on_gpu(ex, source, display_name, control, res);
    return v;
}

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

void Runner::run_on_gpu(const Exercise& ex, const std::string& source, const std::string& display_name, const CheckControl& control,
                        CheckResult& res) {
    const std::string device = usable_gpu(compiler_.toolchain());
    if (device.empty()) return;
    GpuSummary gpu;
    gpu.device = device;
    gpu.device_time_ns.assign(ex.cases.size(), -1);
    const CompileOutput co = compiler_.compile_gpu(ex, source, display_name, "native", control.cancel);
    gpu.compile_ms = co.ms;
    if (co.cancelled) return;
    if (!co.ok) {
        gpu.status = GpuRunStatus::CompileFailed;
        gpu.detail = co.internal_error.empty() ? co.raw_output.substr(0, co.raw_output.find('\n')) : co.internal_error;
        res.gpu = gpu;
        return;
    }
    ResultChannel channel(ex.cases.size(), [](int) {}, {}, ex.profile().reports_kernel_launches);
    const ProgramRun run = run_program(compiler_, ex, co.binary, res.cases, ExecutionTarget::Gpu, {}, channel, control.cancel);
    gpu.run_ms = run.ms;
    if (!run.prepare_error.empty()) {
        gpu.status = GpuRunStatus::RunFailed;
        gpu.detail = run.prepare_error;
        res.gpu = gpu;
        return;
    }
    for (size_t k = 0; k < ex.cases.size(); ++k)
        if (auto& rec = channel.report(k)) add_gpu_case(ex, *rec, res.cases[k], gpu);
    const ProcessVerdict pv = classify(run.process, channel.summary(), ex.limits);
    gpu.status = pv.verdict == Verdict::Pass && gpu.cases == static_cast<int>(ex.cases.size()) ? GpuRunStatus::Ran : GpuRunStatus::RunFailed;
    if (gpu.status == GpuRunStatus::RunFailed && gpu.detail.empty()) gpu.detail = std::string(verdict_code(pv.verdict)) + (pv.signal ? " (" + signal_name(pv.signal) + ")" : "");
    res.gpu = gpu;
}

// A CUDA program runs at once, with NVRTC's registers per thread if they are
// ready. If NVRTC finishes later and its counts refuse a launch the program
// made, the run is repeated with them: the verdict a GPU gives, without
// making every check wait for NVRTC.
Verdict Runner::run_with_register_counts(const Exercise& ex, const fs::path& binary, const CheckControl& control, CheckResult& res) {
    if (!res.resources_pending.valid()) return run_cases(ex, binary, control, res);
    const CheckResult before_run = res;
    std::vector<std::string> registers = nvrtc_late_for_test ? std::vector<std::string>{} : kernel_register_args(res, false);
    const Verdict v = run_cases(ex, binary, control, res, registers);
    if (!registers.empty() || v == Verdict::Cancelled || v == Verdict::InternalError) return v;
    if (!registers_could_refuse_a_launch(res)) return v;  // final without NVRTC: the report joins when it is done
    registers = kernel_register_args(res, true);
    if (registers.empty() || !registers_refuse_a_launch(res)) return v;
    const std::shared_ptr<const ResourceReport> report = res.resources;
    res = before_run;
    res.resources = report;
    res.resources_pending = {};
    return run_cases(ex, binary, control, res, registers);
}

namespace {

// One learner program's share of a check's cases, and how it ended.
struct CaseShare {
    std::vector<uint32_t> cases;
    std::unique_ptr<ResultChannel> channel;
    ProgramRun run;
    ProcessVerdict verdict;
};

std::string case_list(const std::vector<uint32_t>& cases) {
    std::string s;
    for (uint32_t k : cases) s += (s.empty() ? "" : ",") + std::to_string(k);
    return s;
}

// The cases between programs: two where the runtime's cases are emulated
// work (RuntimeProfile::splits_cases) and the machine has a second core.
std::vector<std::vector<uint32_t>> share_cases(const Exercise& ex, const std::vector<CaseOutcome>& cases) {
    std::vector<int64_t> work;
    for (size_t k = 0; k < ex.cases.size(); ++k) work.push_back(case_work(ex.cases[k], cases[k].expected));
    const unsigned cores = std::thread::hardware_concurrency();
    return case_groups(work, ex.profile().splits_cases && cores >= 2 ? 2 : 1);
}

// The ending that speaks for the check: one that stopped it (cancelled, an
// internal error) first, then the failed program whose blamed case comes
// first; all passed: the first program's.
const CaseShare& deciding_share(const std::vector<CaseShare>& shares) {
    const CaseShare* best = &shares[0];
    auto rank = [](const CaseShare& s) {
        const Verdict v = s.verdict.verdict;
        if (v == Verdict::Cancelled || v == Verdict::InternalError) return 0;
        return v == Verdict::Pass ? 2 : 1;
    };
    for (const CaseShare& s : shares) {
        const int r = rank(s), b = rank(*best);
        const auto blamed = [](const CaseShare& x) { return x.verdict.blamed_case < 0 ? INT32_MAX : x.verdict.blamed_case; };
        if (r < b || (r == b && r == 1 && blamed(s) < blamed(*best))) best = &s;
    }
    return *best;
}

// What the programs together say about the process: the deciding one's
// ending, everyone's output in case order, their CPU time together.
ProcessOutcome joined_outcome(const std::vector<CaseShare>& shares, const CaseShare& deciding) {
    ProcessOutcome p = deciding.run.process;
    if (shares.size() == 1) return p;
    p.out.clear(), p.err.clear();
    p.cpu_ms = 0, p.out_total = 0, p.err_total = 0;
    for (const CaseShare& s : shares) {
        p.out += s.run.process.out, p.err += s.run.process.err;
        p.out_total += s.run.process.out_total, p.err_total += s.run.process.err_total;
        p.cpu_ms += s.run.process.cpu_ms;
        p.maxrss_kb = std::max(p.maxrss_kb, s.run.process.maxrss_kb);
    }
    return p;
}

}  // namespace

// Runs the cases in sandboxed learner programs (two side by side where that
// pays, see share_cases); results stream back case by case.
Verdict Runner::run_cases(const Exercise& ex, const fs::path& binary, const CheckControl& control, CheckResult& res,
                          const std::vector<std::string>& extra_args) {
    const int count = static_cast<int>(ex.cases.size());
    // Progress counts the cases begun: with two programs side by side their
    // indices interleave, and the count still rises one by one (with one
    // program it is the index). The channels report from two threads.
    std::mutex progress;
    int begun = 0;
    auto on_case_begin = [&](int) {
        std::lock_guard<std::mutex> lock(progress);
        report(control, Phase::Running, begun++, count);
    };
    report(control, Phase::Running, 0, count);
    std::vector<std::string> args = launch_args(ex, control);
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    std::vector<CaseShare> shares;
    for (std::vector<uint32_t>& cases : share_cases(ex, res.cases)) {
        shares.emplace_back();
        shares.back().channel = std::make_unique<ResultChannel>(ex.cases.size(), on_case_begin, cases, ex.profile().reports_kernel_launches);
        shares.back().cases = std::move(cases);
    }
    auto run_share = [&](CaseShare& s) {
        std::vector<std::string> share_args = args;
        if (shares.size() > 1) share_args.insert(share_args.end(), {"--only-cases", case_list(s.cases)});
        s.run = run_program(compiler_, ex, binary, res.cases, ExecutionTarget::Cpu, share_args, *s.channel, control.cancel);
    };
    std::vector<std::thread> others;
    for (size_t i = 1; i < shares.size(); ++i) others.emplace_back(run_share, std::ref(shares[i]));
    run_share(shares[0]);
    for (std::thread& t : others) t.join();
    for (CaseShare& s : shares)
        if (!s.run.prepare_error.empty()) {
            res.problem = Problem::CannotPrepareRun;
            res.detail = s.run.prepare_error;
            return Verdict::InternalError;
        }
    res.run_ms = 0;
    for (CaseShare& s : shares) {
        res.run_ms = std::max(res.run_ms, s.run.ms);  // side by side: the longer one
        s.verdict = classify(s.run.process, s.channel->summary(), ex.limits);
    }
    const CaseShare& deciding = deciding_share(shares);
    record_process(joined_outcome(shares, deciding), res);

    report(control, Phase::Comparing, 0, count);
    for (CaseShare& s : shares)
        for (const uint32_t k : s.cases)
            if (auto& rec = s.channel->report(k)) judge_case(ex, ex.cases[k], *rec, res.cases[k]);
    const ProcessVerdict& pv = deciding.verdict;
    record_process_verdict(pv, res);
    if (pv.verdict == Verdict::Cancelled || pv.verdict == Verdict::InternalError) return pv.verdict;
    if (pv.verdict != Verdict::Pass && pv.blamed_case >= 0) res.cases[static_cast<size_t>(pv.blamed_case)].verdict = pv.verdict;
    std::vector<Verdict> case_verdicts;
    for (const CaseOutcome& c : res.cases) case_verdicts.push_back(c.verdict);
    const OverallVerdict o = overall_verdict(case_verdicts, pv.verdict);
    res.failed_case = o.failed_case;
    if (o.failed_case >= 0) res.cause = res.cases[static_cast<size_t>(o.failed_case)].kernels.cause;
    if (o.problem != Problem::None) {
        res.problem = o.problem;
        res.problem_case = o.problem_case;
    }
    return o.verdict;
}

}  // namespace attnlab
