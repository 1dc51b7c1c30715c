#include "attnlab/core/check/verdict.hpp"

#include <signal.h>
#include <string.h>

#include "attnlab/common/protocol.hpp"

namespace attnlab {

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

namespace {

ProcessVerdict classify_signal(const ProcessOutcome& p, const Limits& limits) {
    ProcessVerdict v;
    v.signal = p.signal;
    // RLIMIT_CPU sends SIGXCPU at the soft limit and SIGKILL at the hard one.
    if (p.signal == SIGXCPU || (p.signal == SIGKILL && p.cpu_ms >= static_cast<long>(limits.cpu_seconds * 1000))) {
        v.verdict = Verdict::Timeout;
        v.limit = LimitKind::CpuTime;
        v.limit_value = limits.cpu_seconds;
    } else if (p.signal == SIGXFSZ) {
        v.verdict = Verdict::OutputLimit;
        v.limit = LimitKind::FileSize;
        v.limit_value = static_cast<double>(limits.file_size_mb);
    } else {
        v.verdict = Verdict::Crash;
    }
    return v;
}

}  // namespace

ProcessVerdict classify(const ProcessOutcome& p, const ChannelSummary& channel, const Limits& limits) {
    using S = ProcessOutcome::Status;
    ProcessVerdict v;
    // Where the sandbox could install its system-call filter the harness can
    // install its own: an unguarded channel there is not the harness's.
    using sandbox_status::Layer;
    using sandbox_status::LayerState;
    if (channel.hello && !channel.channel_guarded && p.protections[Layer::Seccomp].state == LayerState::Applied &&
        p.status != S::Cancelled && p.status != S::IsolationRefused) {
        v.verdict = Verdict::ProtocolError;
        v.problem = Problem::ChannelCorrupt;
        v.detail = protocol::decode_error_code(protocol::DecodeError::UnguardedChannel);
        return v;
    }
    switch (p.status) {
        case S::Exited:
            if (channel.done) return v;  // a normal end: the cases decide
            v.verdict = Verdict::ProtocolError;
            v.exit_code = p.exit_code;
            v.problem = channel.hello ? Problem::ExitedEarly : Problem::ExitedBeforeHarness;
            break;
        case S::Signaled: v = classify_signal(p, limits); break;
        case S::WallTimeout:
            v.verdict = Verdict::Timeout;
            v.limit = LimitKind::WallTime;
            v.limit_value = limits.wall_seconds;
            break;
        case S::OutputLimit:
            v.verdict = Verdict::OutputLimit;
            v.limit = LimitKind::Output;
            v.limit_value = static_cast<double>(limits.output_kb);
            break;
        case S::ChannelStop:
            v.verdict = Verdict::ProtocolError;
            v.problem = Problem::ChannelCorrupt;
            v.detail = channel.corrupt_code;
            break;
        case S::SandboxKilled:
            v.verdict = Verdict::ProtocolError;
            v.problem = Problem::SandboxKilled;
            break;
        case S::Cancelled: v.verdict = Verdict::Cancelled; return v;
        case S::IsolationRefused:  // nothing of the learner's ran: not an attempt
            v.verdict = Verdict::InternalError;
            v.problem = Problem::IsolationUnavailable;
            return v;
        case S::MemoryLimit:  // its processes together went over the limit
            v.verdict = Verdict::MemoryLimit;
            v.limit = LimitKind::Memory;
            v.limit_value = static_cast<double>(limits.memory_mb);
            break;
        case S::SetupFailed:  // the sandbox's set-up, not the program
            v.verdict = Verdict::InternalError;
            v.problem = Problem::SandboxSetup;
            v.detail = p.error;
            return v;
        case S::ExecFailed:
        case S::SpawnFailed:
            v.verdict = Verdict::InternalError;
            v.problem = Problem::CannotStartProgram;
            v.detail = p.error;
            return v;
    }
    // Output and protocol problems after the harness finished are no crash
    // before the entry point; anything else before the Hello frame is.
    v.crashed_before_entry = !channel.hello && v.verdict != Verdict::OutputLimit && p.status != S::ChannelStop;
    // The case that was running is to blame; between cases, the first one that
    // never reported.
    v.blamed_case = channel.running >= 0 ? channel.running : channel.first_unreported;
    return v;
}

OverallVerdict overall_verdict(const std::vector<Verdict>& case_verdicts, Verdict process_verdict) {
    OverallVerdict o;
    for (size_t k = 0; k < case_verdicts.size(); ++k) {
        if (case_verdicts[k] == Verdict::Pass) continue;
        o.failed_case = static_cast<int>(k);
        o.verdict = case_verdicts[k] == Verdict::NotRun ? process_verdict : case_verdicts[k];
        break;
    }
    if (o.verdict == Verdict::Pass && process_verdict != Verdict::Pass) o.verdict = process_verdict;
    // Every case passed (or was blamed on nothing) yet one never reported: a
    // pass is impossible, and nobody's values are wrong. The channel lied.
    if (o.verdict == Verdict::Pass || o.verdict == Verdict::NotRun) {
        for (size_t k = 0; k < case_verdicts.size(); ++k)
            if (case_verdicts[k] == Verdict::NotRun) {
                o.verdict = Verdict::ProtocolError;
                o.problem = Problem::CaseNeverReported;
                o.problem_case = static_cast<int>(k);
                break;
            }
    }
    return o;
}

namespace {
// The case's wasted global sectors, summed over its launches, against the
// least traffic the operation needs: named after the side that wastes more.
bool wasteful(const std::vector<emu::LaunchReport>& launches, int64_t minimum_sectors, double limit, KernelCaseVerdict& v) {
    if (limit <= 0 || minimum_sectors <= 0) return false;
    int64_t loads = 0, stores = 0;
    for (const emu::LaunchReport& L : launches) {
        loads += L.counters.global_load_wasted_sectors;
        stores += L.counters.global_store_wasted_sectors;
    }
    const double ratio = double(loads + stores) / double(minimum_sectors);
    if (ratio <= limit) return false;
    v.verdict = Verdict::KernelRule;
    v.cause = KernelCause::of_rule(loads >= stores ? KernelRuleCause::UncoalescedLoads : KernelRuleCause::UncoalescedStores);
    v.value = ratio;
    v.limit = limit;
    v.rule = "max_wasted_sector_ratio";
    return true;
}

// The first launch whose grid is not the exercise's block count (one block
// per (sequence, head), say): the figure is its block count.
bool wrong_block_count(const std::vector<emu::LaunchReport>& launches, int64_t required_blocks, KernelCaseVerdict& v) {
    for (size_t i = 0; i < launches.size() && required_blocks > 0; ++i) {
        const int64_t blocks = static_cast<int64_t>(launches[i].grid.count());
        if (blocks == required_blocks) continue;
        v.verdict = Verdict::KernelRule;
        v.cause = KernelCause::of_rule(KernelRuleCause::BlockCount);
        v.rule = "blocks_per_launch";
        v.value = double(blocks);
        v.limit = double(required_blocks);
        v.launch = int(i);
        return true;
    }
    return false;
}

// A whole case's figure over its bound: the verdict names the cause, the
// exercise.json rule, the figure and the bound. Always true.
bool broken_rule(KernelCaseVerdict& v, KernelRuleCause cause, const char* rule, double value, double limit) {
    v.verdict = Verdict::KernelRule;
    v.cause = KernelCause::of_rule(cause);
    v.rule = rule;
    v.value = value;
    v.limit = limit;
    return true;
}

// Global bytes the threads read, summed over the case's launches, against the
// least traffic: threads that each fetch what their neighbours fetch too (a
// GEMM without tiles) read many times more than the operation needs.
bool reads_without_reuse(const std::vector<emu::LaunchReport>& launches, int64_t minimum_sectors, double limit, KernelCaseVerdict& v) {
    if (limit <= 0 || minimum_sectors <= 0) return false;
    int64_t bytes = 0;
    for (const emu::LaunchReport& L : launches) bytes += L.counters.global_bytes_read;
    const double ratio = double(bytes) / (32.0 * double(minimum_sectors));
    return ratio > limit && broken_rule(v, KernelRuleCause::GlobalReadsNotReused, "max_global_read_ratio", ratio, limit);
}

// Shared-memory load requests, summed over the case's launches, per warp's
// worth (32) of the multiply-adds the operation needs: a thread that loads
// both factors of every FMA from shared memory makes 2; one that keeps a
// TM x TN micro-tile in registers (TM + TN) / (TM·TN). Tiles padded past the
// edges and extra launches only add loads, so nothing dilutes it.
bool shared_loads_not_reused(const std::vector<emu::LaunchReport>& launches, int64_t fmas, double limit, KernelCaseVerdict& v) {
    if (limit <= 0 || fmas <= 0) return false;
    int64_t requests = 0;
    for (const emu::LaunchReport& L : launches) requests += L.counters.shared_load_requests;
    const double per_warp_fma = double(requests) / (double(fmas) / 32.0);
    return per_warp_fma > limit &&
           broken_rule(v, KernelRuleCause::SharedLoadsNotReused, "max_shared_load_requests_per_warp_fma", per_warp_fma, limit);
}

// The launch with the most shared memory per block over the bound, or the
// first launch whose blocks reloaded global data (the figure: bytes reloaded).
bool breaks_tile_promises(const std::vector<emu::LaunchReport>& launches, const KernelRules& rules, KernelCaseVerdict& v) {
    for (size_t i = 0; i < launches.size() && rules.max_shared_bytes_per_block > 0; ++i) {
        const double bytes = double(launches[i].dynamic_shared_bytes) + double(launches[i].counters.static_shared_bytes);
        if (bytes <= rules.max_shared_bytes_per_block || bytes <= v.value) continue;
        v.verdict = Verdict::KernelRule;
        v.cause = KernelCause::of_rule(KernelRuleCause::SharedMemoryOverBudget);
        v.rule = "max_shared_bytes_per_block";
        v.value = bytes;
        v.limit = rules.max_shared_bytes_per_block;
        v.launch = int(i);
    }
    if (v.verdict == Verdict::KernelRule) return true;
    for (size_t i = 0; i < launches.size() && rules.inputs_loaded_once_per_block; ++i) {
        if (launches[i].counters.global_reloaded_bytes == 0) continue;
        v.verdict = Verdict::KernelRule;
        v.cause = KernelCause::of_rule(KernelRuleCause::InputsReloaded);
        v.rule = "inputs_loaded_once_per_block";
        v.value = double(launches[i].counters.global_reloaded_bytes);
        v.launch = int(i);
        return true;
    }
    return false;
}
// The launch whose global loads (or stores) move the fewest bytes per warp
// request, when that is under the bound: 32 lanes of 4-byte accesses move at
// most 128 bytes, so a bound above it asks for float2 or float4. A launch
// with no such request is not judged. Each launch on its own, as `over`.
bool narrow(const std::vector<emu::LaunchReport>& launches, double limit, bool loads, KernelCaseVerdict& v) {
    if (limit <= 0) return false;
    for (size_t i = 0; i < launches.size(); ++i) {
        const emu::LaunchCounters& c = launches[i].counters;
        const int64_t requests = loads ? c.global_load_requests : c.global_store_requests;
        if (requests == 0) continue;
        const double bytes_per_request = double(loads ? c.global_bytes_read : c.global_bytes_written) / double(requests);
        if (bytes_per_request >= limit || (v.verdict == Verdict::KernelRule && bytes_per_request >= v.value)) continue;
        v.verdict = Verdict::KernelRule;
        v.cause = KernelCause::of_rule(loads ? KernelRuleCause::NarrowLoads : KernelRuleCause::NarrowStores);
        v.rule = loads ? "min_bytes_per_load_request" : "min_bytes_per_store_request";
        v.value = bytes_per_request;
        v.limit = limit;
        v.launch = int(i);
    }
    return v.verdict == Verdict::KernelRule;
}
// The FLOPs the case's launches ran on tensor cores against the operation's
// count, when that is under the bound (0 FLOPs known: not judged).
bool off_tensor_cores(const std::vector<emu::LaunchReport>& launches, double operation_flops, double limit, KernelCaseVerdict& v) {
    if (limit <= 0 || operation_flops <= 0) return false;
    double tensor = 0;
    for (const emu::LaunchReport& L : launches) tensor += double(L.counters.tensor_flops);
    const double ratio = tensor / operation_flops;
    if (ratio >= limit) return false;
    v.verdict = Verdict::KernelRule;
    v.cause = KernelCause::of_rule(KernelRuleCause::TensorCoresUnderused);
    v.rule = "min_tensor_flop_ratio";
    v.value = ratio;
    v.limit = limit;
    return true;
}
}  // namespace

// The block count, and the multiply-adds the shared-load rule weighs (0 where
// its `when` leaves the case out: tiles padded past a small case's edges).
CaseRuleValues case_rule_values(const KernelRules& rules, const CaseNames& names) {
    CaseRuleValues values;
    if (!rules.blocks_per_launch.empty()) values.required_blocks = evaluate_case_expression(rules.blocks_per_launch, names);
    const KernelRules::SharedLoadsPerFma& shared = rules.max_shared_load_requests_per_warp_fma;
    if (shared.limit > 0 && (shared.when.empty() || evaluate_case_expression(shared.when, names) != 0))
        values.fmas = evaluate_case_expression(shared.fmas, names);
    return values;
}

KernelCaseVerdict judge_kernel_case(Verdict values_verdict, const std::vector<emu::LaunchReport>& launches,
                                    int64_t unwritten_count, int64_t output_size, int64_t minimum_sectors, const KernelRules& rules,
                                    int64_t leaked_buffers, CaseRuleValues case_values) {
    KernelCaseVerdict v;
    for (size_t i = 0; i < launches.size(); ++i) {
        if (launches[i].ok()) continue;
        v.verdict = Verdict::KernelFault;
        v.cause = KernelCause::of_fault(launches[i].fault.kind);
        v.launch = static_cast<int>(i);
        return v;
    }
    if (unwritten_count > 0) {
        v.verdict = Verdict::KernelRule;
        v.cause = KernelCause::of_rule(KernelRuleCause::OutputNotWritten);
        v.value = static_cast<double>(unwritten_count);
        v.limit = static_cast<double>(output_size);
        return v;
    }
    if (values_verdict != Verdict::Pass) {
        v.verdict = values_verdict;
        return v;
    }
    if (leaked_buffers > 0) {
        v.verdict = Verdict::KernelRule;
        v.cause = KernelCause::of_rule(KernelRuleCause::MemoryLeak);
        v.value = static_cast<double>(leaked_buffers);
        return v;
    }
    // Each launch on its own: an extra, well-coalesced launch must not hide
    // an uncoalesced one in an average. The worst launch is the figure.
    auto over = [&](double limit, double (emu::LaunchCounters::*per_request)() const, KernelRuleCause cause) {
        if (limit <= 0) return false;
        for (const emu::LaunchReport& L : launches) {
            const double value = (L.counters.*per_request)();
            if (value <= limit || value <= v.value) continue;
            v.verdict = Verdict::KernelRule;
            v.cause = KernelCause::of_rule(cause);
            v.value = value;
            v.limit = limit;
        }
        return v.verdict == Verdict::KernelRule;
    };
    // A sampled case's counters are its checked blocks' alone: the rules that
    // weigh the whole operation's traffic against its least are left to the
    // cases that check every block; the per-block and per-request ones hold.
    const bool sampled = emu::sampled(launches);
    if (wrong_block_count(launches, case_values.required_blocks, v)) return v;
    if (!sampled && reads_without_reuse(launches, minimum_sectors, rules.max_global_read_ratio, v)) return v;
    if (!sampled && off_tensor_cores(launches, case_values.operation_flops, rules.min_tensor_flop_ratio, v)) return v;
    if (!sampled && shared_loads_not_reused(launches, case_values.fmas, rules.max_shared_load_requests_per_warp_fma.limit, v)) return v;
    if (breaks_tile_promises(launches, rules, v)) return v;
    if (!sampled && wasteful(launches, minimum_sectors, rules.max_wasted_sector_ratio, v)) return v;
    if (over(rules.max_sectors_per_load_request, &emu::LaunchCounters::sectors_per_load_request, KernelRuleCause::UncoalescedLoads)) return v;
    if (over(rules.max_sectors_per_store_request, &emu::LaunchCounters::sectors_per_store_request, KernelRuleCause::UncoalescedStores)) return v;
    if (narrow(launches, rules.min_bytes_per_load_request, true, v)) return v;
    if (narrow(launches, rules.min_bytes_per_store_request, false, v)) return v;
    return v;
}

}  // namespace attnlab
