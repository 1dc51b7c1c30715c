#pragma once
// How a run becomes a verdict: pure functions of what the process did, what
// the result channel carried and the limits that applied. No process is
// spawned here, so every rule is covered by table tests (tests/test_verdict.cpp).
#include <string>
#include <vector>

#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/course/case_figures.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/check/process.hpp"

namespace attnlab {

// What the result channel showed by the time the process ended.
struct ChannelSummary {
    bool hello = false;        // the harness started (static initialisers are done)
    bool channel_guarded = false;  // its Hello: only the harness's own instruction can write the channel
    bool done = false;         // the harness finished every case
    int running = -1;          // the case that began and did not report, if any
    int first_unreported = -1; // the first case with no result, if any
    bool corrupt = false;
    std::string corrupt_code;  // protocol::decode_error_code or the frame decoder's
};

// The verdict the process's ending gives (Pass when it ended normally), with
// the facts that explain it, to be stored in the CheckResult.
struct ProcessVerdict {
    Verdict verdict = Verdict::Pass;
    LimitKind limit = LimitKind::None;
    double limit_value = 0;  // seconds, MB or KB, by `limit`
    Problem problem = Problem::None;
    std::string detail;
    int signal = 0;
    int exit_code = 0;
    bool crashed_before_entry = false;
    int blamed_case = -1;    // the case the process verdict belongs to, if any
};

ProcessVerdict classify(const ProcessOutcome& p, const ChannelSummary& channel, const Limits& limits);

// The check's verdict from the per-case verdicts (NotRun for cases that never
// reported) and the process verdict. A pass needs every case run and matching.
struct OverallVerdict {
    Verdict verdict = Verdict::Pass;
    int failed_case = -1;
    Problem problem = Problem::None;  // set when no case is to blame (CaseNeverReported)
    int problem_case = -1;
};
OverallVerdict overall_verdict(const std::vector<Verdict>& case_verdicts, Verdict process_verdict);

// A CUDA program's case: what its launches and its output say, given the
// verdict its values got from the comparison. In order: a faulted launch
// (the fault names the cause), output elements no kernel wrote (the grid does
// not cover the output), wrong values, then the exercise's structural rules
// on each launch's counters (the worst launch is the figure).
struct KernelCaseVerdict {
    Verdict verdict = Verdict::Pass;
    KernelCause cause;       // the fault or the rule, none otherwise
    int launch = -1;         // KernelFault: the launch that faulted
    double value = 0;        // KernelRule: the measured figure
    double limit = 0;        // KernelRule: the bound
    std::string rule;        // KernelRule: the exercise.json rule that fired ("" for built-in causes)
};
// The case's values of the rules that depend on the case, evaluated from its
// names (the check judges with them; the report words the figures).
struct CaseRuleValues {
    int64_t required_blocks = 0;  // rules.blocks_per_launch; 0: no rule
    int64_t fmas = 0;             // rules.max_shared_load_requests_per_warp_fma.fmas; 0: not judged in this case
    double operation_flops = 0;   // the reference op's FLOPs, for rules.min_tensor_flop_ratio (the caller's); 0: not judged
};
CaseRuleValues case_rule_values(const KernelRules& rules, const CaseNames& names);
// In order: a faulted launch, output no kernel wrote, wrong values, buffers
// the host function cudaMalloc'd and never freed (compute-sanitizer's leak
// check), then the exercise's counter rules: the block count of every launch
// (`case_values.required_blocks`), the global bytes read against the least
// traffic, the FLOPs run on tensor cores against the operation's
// (`case_values.operation_flops`), the shared loads per warp FMA
// (`case_values.fmas`), the tile promises, the wasted sectors, the sectors per
// request, then the bytes per request (rules.min_bytes_per_*_request; the
// caller clears them in a case that min_bytes_per_request_when leaves out).
KernelCaseVerdict judge_kernel_case(Verdict values_verdict, const std::vector<emu::LaunchReport>& launches,
                                    int64_t unwritten_count, int64_t output_size, int64_t minimum_sectors, const KernelRules& rules,
                                    int64_t leaked_buffers = 0, CaseRuleValues case_values = {});

std::string signal_name(int sig);  // "SIGSEGV", ..., "signal 42 (...)"

}  // namespace attnlab
