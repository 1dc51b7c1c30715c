#include "attnlab/core/runner.hpp"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <chrono>

#include "attnlab/common/wire.hpp"
#include "attnlab/core/compare.hpp"
#include "attnlab/core/process.hpp"
#include "attnlab/core/util.hpp"
#include "attnlab/reference/registry.hpp"

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

std::string signal_name(int sig) {
    switch (sig) {
        case SIGSEGV: return "SIGSEGV";
        case SIGABRT: return "SIGABRT";
        case SIGFPE: return "SIGFPE";
        case SIGBUS: return "SIGBUS";
        case SIGILL: return "SIGILL";
        case SIGKILL: return "SIGKILL";
        case SIGXCPU: return "SIGXCPU";
        case SIGXFSZ: return "SIGXFSZ";
        case SIGPIPE: return "SIGPIPE";
        case SIGTERM: return "SIGTERM";
        case SIGTRAP: return "SIGTRAP";
        case SIGSYS: return "SIGSYS";
        default: {
            const char* d = strsignal(sig);
            return std::string("signal ") + std::to_string(sig) + (d ? std::string(" (") + d + ")" : "");
        }
    }
}

std::string encode_cases(const Exercise& ex) {
    wire::Writer w;
    w.u32(wire::kCasesMagic);
    w.u32(wire::kVersion);
    w.u32(static_cast<uint32_t>(ex.cases.size()));
    for (const Case& c : ex.cases) {
        w.u32(static_cast<uint32_t>(c.args.size()));
        for (const Value& v : c.args) {
            switch (v.kind) {
                case ValueKind::Tensor:
                    w.u8(static_cast<uint8_t>(wire::ValueTag::Tensor));
                    w.tensor(v.tensor.shape, v.tensor.data.data());
                    break;
                case ValueKind::Int:
                    w.u8(static_cast<uint8_t>(wire::ValueTag::Int));
                    w.i64(v.int_value);
                    break;
                case ValueKind::Float:
                    w.u8(static_cast<uint8_t>(wire::ValueTag::Float));
                    w.f64(v.float_value);
                    break;
            }
        }
    }
    return w.take();
}

bool read_value(wire::Reader& r, Value& v) {
    uint8_t tag = 0;
    if (!r.u8(tag)) return false;
    switch (static_cast<wire::ValueTag>(tag)) {
        case wire::ValueTag::Tensor:
            v.kind = ValueKind::Tensor;
            return r.tensor(v.tensor.shape, v.tensor.data);
        case wire::ValueTag::Int: v.kind = ValueKind::Int; return r.i64(v.int_value);
        case wire::ValueTag::Float: v.kind = ValueKind::Float; return r.f64(v.float_value);
    }
    return false;
}

// What the learner's program reported over the channel, frame by frame.
struct ChannelState {
    explicit ChannelState(size_t cases) : decoder(512u << 20), received(cases) {}
    wire::FrameDecoder decoder;
    bool hello = false;
    bool done = false;
    int running = -1;  // case that began and has not reported
    int next_case = 0; // the case expected to begin next
    std::string corrupt;
    struct Received {
        bool got = false;
        wire::CaseStatus status = wire::CaseStatus::Ok;
        Value output;
        std::vector<NamedTensor> probes;
        std::string exception_type, exception_what;
        double ms = 0;
    };
    std::vector<Received> received;

    bool feed(const char* data, size_t n, const CheckControl& control) {
        decoder.feed(data, n);
        wire::FrameType type;
        std::string payload;
        while (true) {
            auto st = decoder.next(type, payload);
            if (st == wire::FrameDecoder::Status::NeedMore) return true;
            if (st == wire::FrameDecoder::Status::Corrupt) {
                corrupt = decoder.error();
                return false;
            }
            if (!handle(type, payload, control)) return false;
        }
    }

    bool handle(wire::FrameType type, const std::string& payload, const CheckControl& control) {
        wire::Reader r(payload);
        switch (type) {
            case wire::FrameType::Hello: {
                uint32_t version = 0;
                if (!r.u32(version) || version != wire::kVersion) return fail("the program speaks another protocol version");
                hello = true;
                return true;
            }
            case wire::FrameType::CaseBegin: {
                uint32_t k = 0;
                // Cases run in order, one at a time: anything else is not the harness talking.
                if (!r.u32(k) || static_cast<int>(k) != next_case || running >= 0) return fail("a case began out of order");
                running = static_cast<int>(k);
                report(control, Phase::Running, running, static_cast<int>(received.size()));
                return true;
            }
            case wire::FrameType::CaseResult: {
                uint32_t k = 0;
                uint8_t status = 0;
                if (!r.u32(k) || !r.u8(status)) return fail("a malformed case result");
                if (static_cast<int>(k) != running) return fail("a result for a case that was not running");
                Received& rec = received[k];
                rec.got = true;
                rec.status = static_cast<wire::CaseStatus>(status);
                if (rec.status == wire::CaseStatus::Ok) {
                    uint32_t nprobes = 0;
                    if (!read_value(r, rec.output) || !r.u32(nprobes) || nprobes > 4096) return fail("a malformed case result");
                    for (uint32_t i = 0; i < nprobes; ++i) {
                        NamedTensor nt;
                        if (!r.str(nt.name) || !r.tensor(nt.tensor.shape, nt.tensor.data)) return fail("a malformed probe");
                        nt.name = sanitize_utf8(nt.name);
                        rec.probes.push_back(std::move(nt));
                    }
                    if (!r.f64(rec.ms)) return fail("a malformed case result");
                } else if (rec.status == wire::CaseStatus::Exception) {
                    if (!r.str(rec.exception_type) || !r.str(rec.exception_what)) return fail("a malformed exception report");
                    rec.exception_type = sanitize_utf8(rec.exception_type);
                    rec.exception_what = sanitize_utf8(rec.exception_what);
                } else if (rec.status != wire::CaseStatus::OutOfMemory) {
                    return fail("an unknown case status");
                }
                running = -1;
                ++next_case;
                return true;
            }
            case wire::FrameType::Done:
                if (running >= 0 || next_case != static_cast<int>(received.size())) return fail("the program finished before reporting every case");
                done = true;
                return true;
        }
        return fail("an unknown frame");
    }

    bool fail(const std::string& why) {
        corrupt = why;
        return false;
    }
};

}  // namespace

void compute_expected(const Exercise& exercise, const Case& c, Value& output, std::vector<NamedTensor>& stages) {
    const reference::Op* op = reference::find_op(exercise.reference);
    if (!op) throw reference::ReferenceError("no reference op named " + exercise.reference);
    reference::Inputs inputs;
    for (size_t i = 0; i < exercise.params.size(); ++i) inputs[exercise.params[i].name] = c.args[i];
    reference::Result r = op->run(inputs);
    output = std::move(r.output);
    stages = std::move(r.stages);
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
        r.detail = "source_too_large";
        r.limit_value = static_cast<double>(size);
        return r;
    }
    auto text = read_file(source_path);
    if (!text) {
        CheckResult r;
        r.exercise_id = exercise.id;
        r.verdict = Verdict::InternalError;
        r.detail = "cannot read " + source_path.string();
        return r;
    }
    return check_source(exercise, *text, name, control);
}

CheckResult Runner::check_source(const Exercise& ex, const std::string& source, const std::string& display_name,
                                 const CheckControl& control) {
    const auto t0 = clock_type::now();
    CheckResult res;
    res.exercise_id = ex.id;
    auto cancelled = [&] { return control.cancel && control.cancel->load(); };
    auto finish = [&](Verdict v) -> CheckResult {
        res.verdict = v;
        res.total_ms = ms_since(t0);
        report(control, Phase::Done, 0, static_cast<int>(ex.cases.size()));
        return std::move(res);
    };

    if (source.size() > kMaxSourceBytes) {
        res.detail = "source_too_large";
        res.limit_value = static_cast<double>(source.size());
        return finish(Verdict::CompileError);
    }
    if (std::string problem = compiler_.toolchain().problem(); !problem.empty()) {
        res.detail = problem;
        return finish(Verdict::InternalError);
    }

    // Expected outputs come first: a broken case is the course's fault and
    // must not be blamed on the learner.
    res.cases.resize(ex.cases.size());
    for (size_t k = 0; k < ex.cases.size(); ++k) {
        CaseOutcome& c = res.cases[k];
        c.index = static_cast<int>(k);
        c.name = ex.cases[k].name;
        c.tokens = ex.cases[k].tokens;
        try {
            compute_expected(ex, ex.cases[k], c.expected, c.stages);
        } catch (const std::exception& e) {
            res.detail = "case " + std::to_string(k + 1) + " of exercise " + ex.id + " does not fit its reference op: " + e.what();
            return finish(Verdict::InternalError);
        }
    }

    report(control, Phase::Compiling, 0, static_cast<int>(ex.cases.size()));
    CompileOutput co = compiler_.compile(ex, source, display_name, control.cancel);
    res.compile_ms = co.ms;
    res.compile_cached = co.cached;
    res.diagnostics = co.diagnostics;
    res.compiler_output = co.raw_output;
    if (co.cancelled || cancelled()) return finish(Verdict::Cancelled);
    if (!co.internal_error.empty()) {
        res.detail = co.internal_error;
        return finish(Verdict::InternalError);
    }
    if (!co.ok) {
        if (co.missing_entry) {
            res.missing_entry_signature = ex.signature();
            return finish(Verdict::MissingEntry);
        }
        if (co.defines_main) res.detail = "defines_main";
        return finish(Verdict::CompileError);
    }

    // Run every case in one process; results stream back case by case.
    const auto run_t0 = clock_type::now();
    const fs::path run_dir = compiler_.cache_dir() / "tmp" /
                             ("run-" + std::to_string(::getpid()) + "-" + hex64(hash64(std::to_string(run_t0.time_since_epoch().count()) + ex.id)));
    std::error_code ec;
    fs::create_directories(run_dir, ec);
    const fs::path cases_file = run_dir / "cases.bin";
    try {
        write_file_atomic(cases_file, encode_cases(ex));
    } catch (const std::exception& e) {
        res.detail = e.what();
        fs::remove_all(run_dir, ec);
        return finish(Verdict::InternalError);
    }

    ProcessSpec spec;
    spec.sandbox = compiler_.toolchain().sandbox.string();
    spec.argv = {co.binary.string(), cases_file.string()};
    spec.cwd = run_dir.string();
    spec.with_channel = true;
    spec.limits.cpu_seconds = ex.limits.cpu_seconds;
    spec.limits.wall_seconds = ex.limits.wall_seconds;
    spec.limits.memory_mb = ex.limits.memory_mb;
    spec.limits.file_size_mb = 16;
    spec.limits.process_margin = 256;  // a fork loop stops there (non-root users)
    spec.capture_bytes = 64 * 1024;
    spec.output_cap_bytes = static_cast<size_t>(ex.limits.output_kb) * 1024;

    ChannelState channel(ex.cases.size());
    report(control, Phase::Running, 0, static_cast<int>(ex.cases.size()));
    ProcessOutcome p = run_in_sandbox(
        spec, [&](const char* data, size_t n) { return channel.feed(data, n, control); }, control.cancel);
    fs::remove_all(run_dir, ec);
    res.run_ms = ms_since(run_t0);
    res.cpu_ms = p.cpu_ms;
    res.maxrss_kb = p.maxrss_kb;
    res.stdout_text = sanitize_utf8(p.out);
    res.stderr_text = sanitize_utf8(p.err);
    res.output_truncated = p.out_total > p.out.size() || p.err_total > p.err.size();

    // Per-case verdicts from what arrived before the process ended.
    report(control, Phase::Comparing, 0, static_cast<int>(ex.cases.size()));
    for (size_t k = 0; k < ex.cases.size(); ++k) {
        auto& rec = channel.received[k];
        CaseOutcome& c = res.cases[k];
        if (!rec.got) continue;  // stays NotRun
        c.elapsed_ms = rec.ms;
        if (rec.status == wire::CaseStatus::OutOfMemory) {
            c.verdict = Verdict::MemoryLimit;
        } else if (rec.status == wire::CaseStatus::Exception) {
            c.verdict = Verdict::RuntimeError;
            c.exception_type = rec.exception_type;
            c.exception_what = rec.exception_what;
        } else {
            c.actual = std::move(rec.output);
            c.probes = std::move(rec.probes);
            Comparison cmp = compare_values(c.actual, c.expected, ex.tolerance);
            c.verdict = cmp.verdict;
            c.max_abs_error = cmp.max_abs_error;
            c.mismatch_count = cmp.mismatch_count;
            c.mismatches = std::move(cmp.mismatches);
            c.nonfinite_index = std::move(cmp.nonfinite_index);
            c.nonfinite_value = cmp.nonfinite_value;
            c.nonfinite_expected = cmp.nonfinite_expected;
        }
    }

    // How the process ended decides the verdict of the case that was running.
    Verdict process_verdict = Verdict::Pass;
    switch (p.status) {
        case ProcessOutcome::Status::Exited:
            if (!channel.done) {
                process_verdict = Verdict::ProtocolError;
                res.exit_code = p.exit_code;
                res.detail = channel.hello ? "the program exited (code " + std::to_string(p.exit_code) + ") before reporting every case"
                                           : "the program exited (code " + std::to_string(p.exit_code) + ") before the harness started";
                res.crashed_before_entry = !channel.hello;
            }
            break;
        case ProcessOutcome::Status::Signaled:
            res.signal = p.signal;
            res.signal_name = signal_name(p.signal);
            res.crashed_before_entry = !channel.hello;
            if (p.signal == SIGXCPU || (p.signal == SIGKILL && p.cpu_ms >= static_cast<long>(ex.limits.cpu_seconds * 1000))) {
                process_verdict = Verdict::Timeout;
                res.limit = LimitKind::CpuTime;
                res.limit_value = ex.limits.cpu_seconds;
            } else if (p.signal == SIGXFSZ) {
                process_verdict = Verdict::OutputLimit;
                res.limit = LimitKind::Output;
                res.limit_value = 16 * 1024;
            } else {
                process_verdict = Verdict::Crash;
            }
            break;
        case ProcessOutcome::Status::WallTimeout:
            process_verdict = Verdict::Timeout;
            res.limit = LimitKind::WallTime;
            res.limit_value = ex.limits.wall_seconds;
            res.crashed_before_entry = !channel.hello;
            break;
        case ProcessOutcome::Status::OutputLimit:
            process_verdict = Verdict::OutputLimit;
            res.limit = LimitKind::Output;
            res.limit_value = static_cast<double>(ex.limits.output_kb);
            break;
        case ProcessOutcome::Status::ChannelStop:
            process_verdict = Verdict::ProtocolError;
            res.detail = "the result channel (file descriptor 3) was corrupted: " + channel.corrupt;
            break;
        case ProcessOutcome::Status::SandboxKilled:
            process_verdict = Verdict::ProtocolError;
            res.detail = "the program killed the process that supervises it";
            break;
        case ProcessOutcome::Status::Cancelled: return finish(Verdict::Cancelled);
        case ProcessOutcome::Status::ExecFailed:
        case ProcessOutcome::Status::SpawnFailed:
            res.detail = "cannot run the compiled program: " + p.error;
            return finish(Verdict::InternalError);
    }
    // The sandbox reports a memory-limit death as SIGSEGV/SIGABRT at best; a
    // bad_alloc reported by the harness is the reliable signal, handled above.

    if (process_verdict != Verdict::Pass) {
        int k = channel.running;
        if (k < 0) {  // between cases or before the first: blame the first unreported case
            for (size_t i = 0; i < res.cases.size(); ++i)
                if (!channel.received[i].got) {
                    k = static_cast<int>(i);
                    break;
                }
        }
        if (k >= 0) res.cases[static_cast<size_t>(k)].verdict = process_verdict;
    }

    // A pass needs every case run and matching; a case that never reported is
    // a failure whatever the process said.
    Verdict overall = Verdict::Pass;
    for (const CaseOutcome& c : res.cases) {
        if (c.verdict != Verdict::Pass) {
            overall = c.verdict == Verdict::NotRun ? process_verdict : c.verdict;
            res.failed_case = c.index;
            break;
        }
    }
    if (overall == Verdict::Pass && process_verdict != Verdict::Pass) overall = process_verdict;
    if (overall == Verdict::Pass || overall == Verdict::NotRun) {
        for (const CaseOutcome& c : res.cases)
            if (c.verdict == Verdict::NotRun) {
                overall = Verdict::ProtocolError;
                if (res.detail.empty()) res.detail = "case " + std::to_string(c.index + 1) + " never reported a result";
                break;
            }
    }
    return finish(overall);
}

}  // namespace attnlab
