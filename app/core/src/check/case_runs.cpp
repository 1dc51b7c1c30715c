// The case split: a check's cases shared between learner programs, each case
// judged as it reports, the programs' endings joined into one verdict.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>

#include "attnlab/common/protocol.hpp"
#include "attnlab/core/base/util.hpp"
#include "attnlab/core/check/case_groups.hpp"
#include "attnlab/core/check/compare.hpp"
#include "attnlab/core/check/expected.hpp"
#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/core/check/performance.hpp"
#include "attnlab/core/check/verdict.hpp"
#include "attnlab/core/course/case_figures.hpp"
#include "attnlab/reference/registry.hpp"
#include "check_steps.hpp"

namespace attnlab {

namespace {

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

// What the emulator is told besides the cases, for a program that reports
// its kernel launches: the chosen architecture's opt-in maximum of shared
// memory per block (a launch above it fails as it would on that GPU), and
// what to trace for the Kernel view.
std::vector<std::string> launch_args(const Exercise& ex, const CheckControl& control) {
    std::vector<std::string> args;
    if (!ex.profile().reports_kernel_launches) return args;
    if (const auto arch = arch_limits(control.gpu_arch)) args.insert(args.end(), {"--max-dynamic-shared", std::to_string(arch->max_shared_per_block_optin)});
    std::string sampled;
    for (size_t k = 0; k < ex.cases.size(); ++k)
        if (ex.cases[k].sampled) sampled += (sampled.empty() ? "" : ",") + std::to_string(k);
    if (!sampled.empty()) args.insert(args.end(), {"--sampled-cases", sampled});
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
    const CaseNames names = case_names(ex.params, {spec}, ex.derived_case_names).front();
    KernelRules rules = ex.kernel_rules;
    if (!rules.min_bytes_per_request_when.empty() && evaluate_case_expression(rules.min_bytes_per_request_when, names) == 0)
        rules.min_bytes_per_load_request = rules.min_bytes_per_store_request = 0;  // rows too short for whole float4s
    const reference::Op* op = reference::find_op(ex.reference);
    const int64_t least = minimum_sectors(op, case_inputs(ex, spec), output_size);
    CaseRuleValues values = case_rule_values(ex.kernel_rules, names);
    if (rules.min_tensor_flop_ratio > 0 && op) values.operation_flops = reference::op_flops(*op, case_inputs(ex, spec)).value_or(0.0);
    const KernelCaseVerdict kv = judge_kernel_case(c.verdict, k.launches, k.unwritten_count, output_size, least,
                                                   rules, k.leaked_buffers, values);
    c.verdict = kv.verdict;
    k.cause = kv.cause;
    k.rule_value = kv.value;
    k.rule_limit = kv.limit;
    k.rule_name = kv.rule;
}

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
ProgramsPart run_cases(const Compiler& compiler, const Exercise& ex, const fs::path& binary, const CheckControl& control,
                       std::vector<CaseOutcome>& cases, const std::vector<std::string>& extra_args) {
    const int count = static_cast<int>(ex.cases.size());
    // Progress counts the cases begun: with two programs side by side their
    // indices interleave, and the count still rises one by one (with one
    // program it is the index). The channels report from two threads.
    std::mutex progress;
    int begun = 0;
    auto on_case_begin = [&](int) {
        std::lock_guard<std::mutex> lock(progress);
        report_progress(control, Phase::Running, begun++, count);
    };
    report_progress(control, Phase::Running, 0, count);
    std::vector<std::string> args = launch_args(ex, control);
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    std::vector<CaseShare> shares;
    for (std::vector<uint32_t>& share : share_cases(ex, cases)) {
        shares.emplace_back();
        shares.back().channel = std::make_unique<ResultChannel>(ex.cases.size(), on_case_begin, share, ex.profile().reports_kernel_launches);
        shares.back().cases = std::move(share);
    }
    auto run_share = [&](CaseShare& s) {
        std::vector<std::string> share_args = args;
        if (shares.size() > 1) share_args.insert(share_args.end(), {"--only-cases", case_list(s.cases)});
        s.run = run_program(compiler, ex, binary, cases, ExecutionTarget::Cpu, share_args, *s.channel, control.cancel);
    };
    std::vector<std::thread> others;
    for (size_t i = 1; i < shares.size(); ++i) others.emplace_back(run_share, std::ref(shares[i]));
    run_share(shares[0]);
    for (std::thread& t : others) t.join();
    ProgramsPart part;
    for (CaseShare& s : shares)
        if (!s.run.prepare_error.empty()) {
            part.problem.problem = Problem::CannotPrepareRun;
            part.problem.detail = s.run.prepare_error;
            return part;  // InternalError
        }
    for (CaseShare& s : shares) {
        part.run_ms = std::max(part.run_ms, s.run.ms);  // side by side: the longer one
        s.verdict = classify(s.run.process, s.channel->summary(), ex.limits);
    }
    const CaseShare& deciding = deciding_share(shares);
    part.process = joined_outcome(shares, deciding);

    report_progress(control, Phase::Comparing, 0, count);
    for (CaseShare& s : shares)
        for (const uint32_t k : s.cases)
            if (auto& rec = s.channel->report(k)) judge_case(ex, ex.cases[k], *rec, cases[k]);
    const ProcessVerdict& pv = deciding.verdict;
    part.ending = pv;
    part.problem.problem = pv.problem;
    part.problem.detail = pv.detail;
    part.verdict = pv.verdict;
    if (pv.verdict == Verdict::Cancelled || pv.verdict == Verdict::InternalError) return part;
    if (pv.verdict != Verdict::Pass && pv.blamed_case >= 0) cases[static_cast<size_t>(pv.blamed_case)].verdict = pv.verdict;
    std::vector<Verdict> case_verdicts;
    for (const CaseOutcome& c : cases) case_verdicts.push_back(c.verdict);
    const OverallVerdict o = overall_verdict(case_verdicts, pv.verdict);
    part.verdict = o.verdict;
    part.failed_case = o.failed_case;
    if (o.failed_case >= 0) part.cause = cases[static_cast<size_t>(o.failed_case)].kernels.cause;
    if (o.problem != Problem::None) {
        part.problem.problem = o.problem;
        part.problem.problem_case = o.problem_case;
    }
    return part;
}

}  // namespace attnlab
