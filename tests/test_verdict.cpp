// The verdict rules as tables: what a process's ending, the result channel
// and the limits make of a run. Pure functions: no process is spawned.
#include <signal.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "attnlab/core/check/case_groups.hpp"
#include "attnlab/core/check/verdict.hpp"

using namespace attnlab;
using S = ProcessOutcome::Status;

namespace {

ProcessOutcome outcome(S status, int code_or_signal = 0, long cpu_ms = 0) {
    ProcessOutcome p;
    p.status = status;
    if (status == S::Exited) p.exit_code = code_or_signal;
    if (status == S::Signaled) p.signal = code_or_signal;
    p.cpu_ms = cpu_ms;
    return p;
}

ChannelSummary channel(bool hello, bool done, int running = -1, int first_unreported = -1) {
    ChannelSummary c;
    c.hello = hello;
    c.done = done;
    c.running = running;
    c.first_unreported = first_unreported;
    return c;
}

Limits limits() {
    Limits l;
    l.cpu_seconds = 2;
    l.wall_seconds = 5;
    l.output_kb = 64;
    l.file_size_mb = 16;
    return l;
}

}  // namespace

TEST_CASE("classify: how the process ended, row by row") {
    struct Row {
        const char* what;
        ProcessOutcome p;
        ChannelSummary ch;
        Verdict verdict;
        LimitKind limit;
        double limit_value;
        Problem problem;
        bool before_entry;
        int blamed;
    };
    const Row rows[] = {
        {"normal end after every case", outcome(S::Exited, 0), channel(true, true), Verdict::Pass, LimitKind::None, 0, Problem::None, false, -1},
        {"exit() in case 2", outcome(S::Exited, 3), channel(true, false, 1, 1), Verdict::ProtocolError, LimitKind::None, 0, Problem::ExitedEarly, false, 1},
        {"exit before the harness", outcome(S::Exited, 1), channel(false, false, -1, 0), Verdict::ProtocolError, LimitKind::None, 0,
         Problem::ExitedBeforeHarness, true, 0},
        {"segfault in case 1", outcome(S::Signaled, SIGSEGV), channel(true, false, 0, 0), Verdict::Crash, LimitKind::None, 0, Problem::None, false, 0},
        {"segfault in a static initialiser", outcome(S::Signaled, SIGSEGV), channel(false, false, -1, 0), Verdict::Crash, LimitKind::None, 0,
         Problem::None, true, 0},
        {"SIGXCPU is the CPU limit", outcome(S::Signaled, SIGXCPU, 2000), channel(true, false, 2, 2), Verdict::Timeout, LimitKind::CpuTime, 2,
         Problem::None, false, 2},
        {"SIGKILL after the CPU limit is the CPU limit", outcome(S::Signaled, SIGKILL, 2100), channel(true, false, 0, 0), Verdict::Timeout,
         LimitKind::CpuTime, 2, Problem::None, false, 0},
        {"SIGKILL before the CPU limit is a crash", outcome(S::Signaled, SIGKILL, 100), channel(true, false, 0, 0), Verdict::Crash,
         LimitKind::None, 0, Problem::None, false, 0},
        {"SIGXFSZ is the file-size limit, not stdout", outcome(S::Signaled, SIGXFSZ), channel(true, false, 0, 0), Verdict::OutputLimit,
         LimitKind::FileSize, 16, Problem::None, false, 0},
        {"wall limit", outcome(S::WallTimeout), channel(true, false, 1, 1), Verdict::Timeout, LimitKind::WallTime, 5, Problem::None, false, 1},
        {"wall limit between cases blames the next", outcome(S::WallTimeout), channel(true, false, -1, 2), Verdict::Timeout, LimitKind::WallTime,
         5, Problem::None, false, 2},
        {"stdout flood", outcome(S::OutputLimit), channel(true, false, 0, 0), Verdict::OutputLimit, LimitKind::Output, 64, Problem::None, false, 0},
        {"killed its sandbox", outcome(S::SandboxKilled), channel(true, false, 0, 0), Verdict::ProtocolError, LimitKind::None, 0,
         Problem::SandboxKilled, false, 0},
        {"cancelled", outcome(S::Cancelled), channel(true, false, 0, 0), Verdict::Cancelled, LimitKind::None, 0, Problem::None, false, -1},
        {"cannot exec", outcome(S::ExecFailed), channel(false, false), Verdict::InternalError, LimitKind::None, 0, Problem::CannotStartProgram,
         false, -1},
    };
    for (const Row& row : rows) {
        CAPTURE(row.what);
        const ProcessVerdict v = classify(row.p, row.ch, limits());
        CHECK(v.verdict == row.verdict);
        CHECK(v.limit == row.limit);
        CHECK(v.limit_value == row.limit_value);
        CHECK(v.problem == row.problem);
        CHECK(v.crashed_before_entry == row.before_entry);
        CHECK(v.blamed_case == row.blamed);
    }
}

TEST_CASE("classify: a corrupt channel keeps the decoder's code") {
    ChannelSummary ch = channel(true, false, 0, 0);
    ch.corrupt = true;
    ch.corrupt_code = "bad_checksum";
    const ProcessVerdict v = classify(outcome(S::ChannelStop), ch, limits());
    CHECK(v.verdict == Verdict::ProtocolError);
    CHECK(v.problem == Problem::ChannelCorrupt);
    CHECK(v.detail == "bad_checksum");
    CHECK_FALSE(v.crashed_before_entry);
}

TEST_CASE("classify: the limits' figures are the ones the run had") {
    Limits l = limits();
    l.cpu_seconds = 0.5;
    l.file_size_mb = 3;
    CHECK(classify(outcome(S::Signaled, SIGXCPU, 500), channel(true, false, 0, 0), l).limit_value == 0.5);
    CHECK(classify(outcome(S::Signaled, SIGXFSZ), channel(true, false, 0, 0), l).limit_value == 3);
}

TEST_CASE("overall_verdict: every case must run and match") {
    using V = Verdict;
    struct Row {
        const char* what;
        std::vector<V> cases;
        V process;
        V verdict;
        int failed;
        Problem problem;
    };
    const Row rows[] = {
        {"all pass", {V::Pass, V::Pass}, V::Pass, V::Pass, -1, Problem::None},
        {"first wrong answer wins", {V::Pass, V::WrongAnswer, V::WrongShape}, V::Pass, V::WrongAnswer, 1, Problem::None},
        {"a crash blamed on case 2", {V::Pass, V::Crash, V::NotRun}, V::Crash, V::Crash, 1, Problem::None},
        {"a wrong case before a later crash", {V::WrongAnswer, V::Crash}, V::Crash, V::WrongAnswer, 0, Problem::None},
        {"never reported, no process verdict", {V::Pass, V::NotRun}, V::Pass, V::ProtocolError, 1, Problem::CaseNeverReported},
        {"all passed but the process timed out after", {V::Pass, V::Pass}, V::Timeout, V::Timeout, -1, Problem::None},
        {"modified input", {V::ModifiedInput, V::Pass}, V::Pass, V::ModifiedInput, 0, Problem::None},
        {"no cases at all", {}, V::Pass, V::Pass, -1, Problem::None},
    };
    for (const Row& row : rows) {
        CAPTURE(row.what);
        const OverallVerdict o = overall_verdict(row.cases, row.process);
        CHECK(o.verdict == row.verdict);
        CHECK(o.failed_case == row.failed);
        CHECK(o.problem == row.problem);
    }
}

TEST_CASE("signal names") {
    CHECK(signal_name(SIGSEGV) == "SIGSEGV");
    CHECK(signal_name(SIGXFSZ) == "SIGXFSZ");
    CHECK(signal_name(42).rfind("signal 42", 0) == 0);
}

namespace {

emu::LaunchReport launch_with(emu::FaultKind fault, int64_t load_requests, int64_t load_sectors) {
    emu::LaunchReport L;
    L.kernel = "k";
    L.fault.kind = fault;
    L.counters.global_load_requests = load_requests;
    L.counters.global_load_sectors = load_sectors;
    L.counters.global_store_requests = 1;
    L.counters.global_store_sectors = 4;
    return L;
}

}  // namespace

TEST_CASE("judge_kernel_case: faults, coverage, values, then the rules, row by row") {
    using F = emu::FaultKind;
    KernelRules rules;
    rules.max_sectors_per_load_request = 8;
    const auto ok = launch_with(F::None, 10, 40);          // 4 sectors per request
    const auto scattered = launch_with(F::None, 10, 320);  // 32 sectors per request
    struct Row {
        const char* what;
        Verdict values;
        std::vector<emu::LaunchReport> launches;
        int64_t unwritten;
        Verdict verdict;
        const char* cause;
    };
    const Row rows[] = {
        {"all good", Verdict::Pass, {ok}, 0, Verdict::Pass, ""},
        {"a race in the second launch", Verdict::WrongAnswer, {ok, launch_with(F::SharedRace, 1, 4)}, 3, Verdict::KernelFault, "shared_race"},
        {"the first fault wins", Verdict::Pass, {launch_with(F::OutOfBounds, 1, 4), launch_with(F::BarrierDivergence, 1, 4)}, 0,
         Verdict::KernelFault, "out_of_bounds"},
        {"unwritten output beats wrong values", Verdict::NonFinite, {ok}, 5, Verdict::KernelRule, "output_not_written"},
        {"no launch at all", Verdict::NonFinite, {}, 24, Verdict::KernelRule, "output_not_written"},
        {"wrong values keep their verdict", Verdict::WrongAnswer, {scattered}, 0, Verdict::WrongAnswer, ""},
        {"right values, scattered loads", Verdict::Pass, {scattered}, 0, Verdict::KernelRule, "uncoalesced_loads"},
        {"a coalesced extra launch does not hide a scattered one", Verdict::Pass, {ok, ok, ok, scattered}, 0, Verdict::KernelRule,
         "uncoalesced_loads"},
    };
    for (const Row& row : rows) {
        CAPTURE(row.what);
        const KernelCaseVerdict v = judge_kernel_case(row.values, row.launches, row.unwritten, 24, 0, rules);
        CHECK(v.verdict == row.verdict);
        CHECK(v.cause.code() == row.cause);
    }
    const KernelCaseVerdict worst = judge_kernel_case(Verdict::Pass, {ok, scattered, ok}, 0, 24, 0, rules);
    CHECK(worst.value == doctest::Approx(32.0));  // the scattered launch's own figure, not an average
    CHECK(worst.limit == 8.0);
    const KernelCaseVerdict gap = judge_kernel_case(Verdict::NonFinite, {ok}, 5, 24, 0, rules);
    CHECK(gap.value == 5.0);
    CHECK(gap.limit == 24.0);
    CHECK(judge_kernel_case(Verdict::Pass, {scattered}, 0, 24, 0, KernelRules{}).verdict == Verdict::Pass);  // no rule set
    CHECK(judge_kernel_case(Verdict::Pass, {ok, launch_with(F::StepLimit, 1, 4)}, 0, 24, 0, rules).launch == 1);
}

TEST_CASE("judge_kernel_case: wasted sectors against the least traffic cannot be diluted") {
    using F = emu::FaultKind;
    KernelRules rules;
    rules.max_wasted_sector_ratio = 2;
    auto wasting = [](int64_t loads, int64_t stores) {
        emu::LaunchReport L = launch_with(F::None, 10, 40);
        L.counters.global_load_wasted_sectors = loads;
        L.counters.global_store_wasted_sectors = stores;
        return L;
    };
    const int64_t minimum = 100;  // sectors: every input and output byte once
    struct Row {
        const char* what;
        std::vector<emu::LaunchReport> launches;
        Verdict verdict;
        const char* cause;
        double ratio;
    };
    const Row rows[] = {
        {"coalesced: nothing wasted", {wasting(0, 0)}, Verdict::Pass, "", 0},
        {"at the bound", {wasting(150, 50)}, Verdict::Pass, "", 0},
        {"scattered loads", {wasting(2800, 0)}, Verdict::KernelRule, "uncoalesced_loads", 28},
        {"scattered stores", {wasting(10, 300)}, Verdict::KernelRule, "uncoalesced_stores", 3.1},
        // Extra cheap launches add requests but no waste: the ratio stays.
        {"a diluted scattered kernel", {wasting(2800, 0), wasting(0, 0), wasting(0, 0)}, Verdict::KernelRule, "uncoalesced_loads", 28},
        {"waste spread over launches adds up", {wasting(120, 0), wasting(120, 0)}, Verdict::KernelRule, "uncoalesced_loads", 2.4},
    };
    for (const Row& row : rows) {
        CAPTURE(row.what);
        const KernelCaseVerdict v = judge_kernel_case(Verdict::Pass, row.launches, 0, 24, minimum, rules);
        CHECK(v.verdict == row.verdict);
        CHECK(v.cause.code() == row.cause);
        if (row.verdict == Verdict::KernelRule) {
            CHECK(v.value == doctest::Approx(row.ratio));
            CHECK(v.limit == 2.0);
        }
    }
    CHECK(judge_kernel_case(Verdict::Pass, {wasting(2800, 0)}, 0, 24, minimum, KernelRules{}).verdict == Verdict::Pass);
    CHECK(judge_kernel_case(Verdict::WrongAnswer, {wasting(2800, 0)}, 0, 24, minimum, rules).verdict == Verdict::WrongAnswer);
}

TEST_CASE("judge_kernel_case: a tiled kernel's promises (shared memory that does not grow with T, each element loaded once)") {
    using F = emu::FaultKind;
    KernelRules rules;
    rules.max_shared_bytes_per_block = 16384;
    rules.inputs_loaded_once_per_block = true;
    auto launch = [](uint64_t dynamic, int64_t static_bytes, int64_t reloaded) {
        emu::LaunchReport L = launch_with(F::None, 10, 40);
        L.dynamic_shared_bytes = dynamic;
        L.counters.static_shared_bytes = static_bytes;
        L.counters.global_reloaded_bytes = reloaded;
        return L;
    };
    struct Row {
        const char* what;
        std::vector<emu::LaunchReport> launches;
        Verdict values;
        Verdict verdict;
        const char* cause;
        double value;
    };
    const Row rows[] = {
        {"a tile of 16 keys at hd = 64", {launch(0, 8192, 0)}, Verdict::Pass, Verdict::Pass, "", 0},
        {"static and dynamic add up to the bound", {launch(8192, 8192, 0)}, Verdict::Pass, Verdict::Pass, "", 0},
        {"the whole of K and V in dynamic shared memory", {launch(33280, 0, 0)}, Verdict::Pass, Verdict::KernelRule,
         "shared_memory_over_budget", 33280},
        {"static and dynamic together over the bound", {launch(8192, 8200, 0)}, Verdict::Pass, Verdict::KernelRule,
         "shared_memory_over_budget", 16392},
        {"the largest launch is the figure", {launch(20000, 0, 0), launch(30000, 0, 0)}, Verdict::Pass, Verdict::KernelRule,
         "shared_memory_over_budget", 30000},
        {"tiles reloaded every round", {launch(0, 8192, 4096)}, Verdict::Pass, Verdict::KernelRule, "inputs_reloaded", 4096},
        {"shared memory is judged before reloads", {launch(40000, 0, 4096)}, Verdict::Pass, Verdict::KernelRule,
         "shared_memory_over_budget", 40000},
        {"wrong values keep their verdict", {launch(40000, 0, 4096)}, Verdict::WrongAnswer, Verdict::WrongAnswer, "", 0},
    };
    for (const Row& row : rows) {
        CAPTURE(row.what);
        const KernelCaseVerdict v = judge_kernel_case(row.values, row.launches, 0, 24, 0, rules);
        CHECK(v.verdict == row.verdict);
        CHECK(v.cause.code() == row.cause);
        if (row.verdict == Verdict::KernelRule) CHECK(v.value == doctest::Approx(row.value));
    }
    CHECK(judge_kernel_case(Verdict::Pass, {launch(40000, 0, 4096)}, 0, 24, 0, KernelRules{}).verdict == Verdict::Pass);
}

TEST_CASE("judge_kernel_case: the FLOPs run on tensor cores against the operation's, at least, summed over launches") {
    KernelRules rules;
    rules.min_tensor_flop_ratio = 0.9;
    const double operation = 100000;  // the reference op's FLOPs for the case
    auto launch = [](int64_t tensor_flops) {
        emu::LaunchReport L = launch_with(emu::FaultKind::None, 10, 40);
        L.counters.tensor_flops = tensor_flops;
        return L;
    };
    struct Row {
        const char* what;
        std::vector<emu::LaunchReport> launches;
        double flops;
        Verdict verdict;
        const char* cause;
        double value;
    };
    const Row rows[] = {
        {"both products on tensor cores, padded tiles", {launch(136000)}, operation, Verdict::Pass, "", 0},
        {"at the bound", {launch(90000)}, operation, Verdict::Pass, "", 0},
        {"P·V left to float", {launch(68000)}, operation, Verdict::KernelRule, "tensor_cores_underused", 0.68},
        {"no tensor cores at all", {launch(0)}, operation, Verdict::KernelRule, "tensor_cores_underused", 0},
        {"launches add up", {launch(50000), launch(50000)}, operation, Verdict::Pass, "", 0},
        {"the operation's FLOPs unknown: not judged", {launch(0)}, 0, Verdict::Pass, "", 0},
    };
    for (const Row& row : rows) {
        CAPTURE(row.what);
        const KernelCaseVerdict v = judge_kernel_case(Verdict::Pass, row.launches, 0, 24, 0, rules, 0, {0, 0, row.flops});
        CHECK(v.verdict == row.verdict);
        CHECK(v.cause.code() == row.cause);
        if (row.verdict == Verdict::KernelRule) {
            CHECK(v.value == doctest::Approx(row.value));
            CHECK(v.rule == "min_tensor_flop_ratio");
        }
    }
    // A sampled case counts its checked blocks alone: not judged.
    emu::LaunchReport sampled = launch(0);
    sampled.counters.unchecked_blocks = 3;
    CHECK(judge_kernel_case(Verdict::Pass, {sampled}, 0, 24, 0, rules, 0, {0, 0, operation}).verdict == Verdict::Pass);
    CHECK(judge_kernel_case(Verdict::Pass, {launch(0)}, 0, 24, 0, KernelRules{}, 0, {0, 0, operation}).verdict == Verdict::Pass);
}

TEST_CASE("judge_kernel_case: the block count the exercise asks for, and global reads without on-chip reuse") {
    using F = emu::FaultKind;
    KernelRules rules;
    rules.max_global_read_ratio = 8;
    const int64_t minimum = 100;  // sectors: 3 200 bytes
    auto launch = [](unsigned gx, unsigned gy, int64_t bytes_read) {
        emu::LaunchReport L = launch_with(F::None, 10, 40);
        L.grid = emu::Dim3{gx, gy, 1};
        L.counters.global_bytes_read = bytes_read;
        return L;
    };
    struct Row {
        const char* what;
        std::vector<emu::LaunchReport> launches;
        int64_t required_blocks;
        Verdict values;
        Verdict verdict;
        const char* cause;
        double value;
    };
    const Row rows[] = {
        {"B·H blocks, reads near the least", {launch(6, 1, 6400)}, 6, Verdict::Pass, Verdict::Pass, "", 0},
        {"a 2-D grid of query tiles", {launch(2, 6, 6400)}, 6, Verdict::Pass, Verdict::KernelRule, "block_count", 12},
        {"a 2-D grid with the right count passes", {launch(3, 2, 6400)}, 6, Verdict::Pass, Verdict::Pass, "", 0},
        {"every launch is held to it", {launch(6, 1, 100), launch(1, 1, 100)}, 6, Verdict::Pass, Verdict::KernelRule, "block_count", 1},
        {"no block rule: any grid", {launch(2, 6, 6400)}, 0, Verdict::Pass, Verdict::Pass, "", 0},
        {"at the read bound", {launch(6, 1, 25600)}, 0, Verdict::Pass, Verdict::Pass, "", 0},
        {"one thread per output, no reuse", {launch(6, 1, 176000)}, 0, Verdict::Pass, Verdict::KernelRule, "global_reads_not_reused", 55},
        {"reads add up over launches", {launch(6, 1, 16000), launch(6, 1, 16000)}, 0, Verdict::Pass, Verdict::KernelRule,
         "global_reads_not_reused", 10},
        {"the block count is judged first", {launch(2, 6, 176000)}, 6, Verdict::Pass, Verdict::KernelRule, "block_count", 12},
        {"wrong values keep their verdict", {launch(2, 6, 176000)}, 6, Verdict::WrongAnswer, Verdict::WrongAnswer, "", 0},
    };
    for (const Row& row : rows) {
        CAPTURE(row.what);
        const KernelCaseVerdict v = judge_kernel_case(row.values, row.launches, 0, 24, minimum, rules, 0, {row.required_blocks});
        CHECK(v.verdict == row.verdict);
        CHECK(v.cause.code() == row.cause);
        if (row.verdict == Verdict::KernelRule) CHECK(v.value == doctest::Approx(row.value));
    }
    CHECK(judge_kernel_case(Verdict::Pass, {launch(6, 1, 176000)}, 0, 24, minimum, KernelRules{}).verdict == Verdict::Pass);
}

TEST_CASE("judge_kernel_case: shared load requests per warp FMA (a micro-tile in registers), summed over launches") {
    using F = emu::FaultKind;
    KernelRules rules;
    rules.max_shared_load_requests_per_warp_fma.limit = 1;
    rules.max_global_read_ratio = 8;
    const int64_t fmas = 3 * 257 * 64 * 64;  // the GEMM of x (257, 64) and w (64, 192): 98 688 warp FMAs
    const int64_t minimum = 100;             // sectors: 3 200 bytes
    auto launch = [](int64_t shared_load_requests, int64_t bytes_read = 6400, int64_t unchecked_blocks = 0) {
        emu::LaunchReport L = launch_with(F::None, 10, 40);
        L.counters.shared_load_requests = shared_load_requests;
        L.counters.global_bytes_read = bytes_read;
        L.counters.unchecked_blocks = unchecked_blocks;
        return L;
    };
    struct Row {
        const char* what;
        std::vector<emu::LaunchReport> launches;
        int64_t fmas;
        Verdict values;
        Verdict verdict;
        const char* cause;
        double value;
    };
    const Row rows[] = {
        {"a 4 x 4 micro-tile: 8 loads for 16 FMAs", {launch(98688 / 2)}, fmas, Verdict::Pass, Verdict::Pass, "", 0},
        {"exactly at the bound", {launch(98688)}, fmas, Verdict::Pass, Verdict::Pass, "", 0},
        {"one output per thread: 2 loads per FMA", {launch(2 * 98688)}, fmas, Verdict::Pass, Verdict::KernelRule, "shared_loads_not_reused", 2},
        {"loads add up over launches", {launch(98688 / 2), launch(98688 / 2), launch(98688 / 2)}, fmas, Verdict::Pass, Verdict::KernelRule,
         "shared_loads_not_reused", 1.5},
        {"a case the rule leaves out (fmas 0)", {launch(50 * 98688)}, 0, Verdict::Pass, Verdict::Pass, "", 0},
        {"a sampled case is left to the cases checked whole", {launch(2 * 98688, 6400, 142)}, fmas, Verdict::Pass, Verdict::Pass, "", 0},
        {"global reads are judged first", {launch(2 * 98688, 176000)}, fmas, Verdict::Pass, Verdict::KernelRule, "global_reads_not_reused", 55},
        {"wrong values keep their verdict", {launch(2 * 98688)}, fmas, Verdict::WrongAnswer, Verdict::WrongAnswer, "", 0},
    };
    for (const Row& row : rows) {
        CAPTURE(row.what);
        const KernelCaseVerdict v = judge_kernel_case(row.values, row.launches, 0, 24, minimum, rules, 0, {0, row.fmas});
        CHECK(v.verdict == row.verdict);
        CHECK(v.cause.code() == row.cause);
        if (row.verdict == Verdict::KernelRule) CHECK(v.value == doctest::Approx(row.value));
        if (std::string(row.cause) == "shared_loads_not_reused") CHECK(v.rule == "max_shared_load_requests_per_warp_fma");
    }
    CHECK(judge_kernel_case(Verdict::Pass, {launch(2 * 98688)}, 0, 24, minimum, KernelRules{}, 0, {0, fmas}).verdict == Verdict::Pass);  // no rule set
}

TEST_CASE("case_rule_values: the block count, and the FMAs only where the rule's condition holds") {
    KernelRules rules;
    rules.blocks_per_launch = "B*H";
    rules.max_shared_load_requests_per_warp_fma = {1, "3*T*D*D", "T >= 256"};
    const CaseRuleValues large = case_rule_values(rules, {{"B", 1}, {"H", 12}, {"T", 257}, {"D", 64}});
    CHECK(large.required_blocks == 12);
    CHECK(large.fmas == 3 * 257 * 64 * 64);
    const CaseRuleValues small = case_rule_values(rules, {{"B", 2}, {"H", 1}, {"T", 5}, {"D", 4}});
    CHECK(small.required_blocks == 2);
    CHECK(small.fmas == 0);  // tiles padded past a small case's edges: not judged
    rules.max_shared_load_requests_per_warp_fma.when = "";
    CHECK(case_rule_values(rules, {{"B", 2}, {"H", 1}, {"T", 5}, {"D", 4}}).fmas == 240);
    CHECK(case_rule_values(KernelRules{}, {{"T", 5}}).fmas == 0);  // no rule
    CHECK(case_rule_values(KernelRules{}, {{"T", 5}}).required_blocks == 0);
}

TEST_CASE("judge_kernel_case: bytes per request, at least (float4 and not single floats), launch by launch") {
    using F = emu::FaultKind;
    KernelRules rules;
    rules.min_bytes_per_load_request = 160;
    rules.min_bytes_per_store_request = 160;
    // `requests` warp requests moving `bytes` in all, loads and stores alike.
    auto launch = [](int64_t load_requests, int64_t bytes_read, int64_t store_requests, int64_t bytes_written) {
        emu::LaunchReport L = launch_with(F::None, load_requests, 4 * load_requests);
        L.counters.global_bytes_read = bytes_read;
        L.counters.global_store_requests = store_requests;
        L.counters.global_bytes_written = bytes_written;
        return L;
    };
    const auto float4_rows = launch(189, 37008, 63, 12336);  // cuda-float4-softmax's solution at T = 257: 195.8 B per request
    const auto scalar_rows = launch(324, 37008, 108, 12336);  // one float per lane: 114.2, never above 128
    struct Row {
        const char* what;
        std::vector<emu::LaunchReport> launches;
        Verdict values;
        Verdict verdict;
        const char* cause;
        double value;
    };
    const Row rows[] = {
        {"float4 loads and stores", {float4_rows}, Verdict::Pass, Verdict::Pass, "", 0},
        {"single floats", {scalar_rows}, Verdict::Pass, Verdict::KernelRule, "narrow_loads", 37008.0 / 324},
        {"float4 loads, single-float stores", {launch(189, 37008, 108, 12336)}, Verdict::Pass, Verdict::KernelRule, "narrow_stores",
         12336.0 / 108},
        {"exactly at the bound", {launch(10, 1600, 10, 1600)}, Verdict::Pass, Verdict::Pass, "", 0},
        {"a launch without loads is not judged on them", {float4_rows, launch(0, 0, 63, 12336)}, Verdict::Pass, Verdict::Pass, "", 0},
        {"a wide extra launch does not hide a narrow one", {float4_rows, scalar_rows, float4_rows}, Verdict::Pass, Verdict::KernelRule,
         "narrow_loads", 37008.0 / 324},
        {"the narrowest launch is the figure", {launch(10, 1500, 1, 512), launch(10, 1200, 1, 512)}, Verdict::Pass, Verdict::KernelRule,
         "narrow_loads", 120},
        {"wrong values keep their verdict", {scalar_rows}, Verdict::WrongAnswer, Verdict::WrongAnswer, "", 0},
    };
    for (const Row& row : rows) {
        CAPTURE(row.what);
        const KernelCaseVerdict v = judge_kernel_case(row.values, row.launches, 0, 24, 0, rules);
        CHECK(v.verdict == row.verdict);
        CHECK(v.cause.code() == row.cause);
        if (row.verdict == Verdict::KernelRule) {
            CHECK(v.value == doctest::Approx(row.value));
            CHECK(v.limit == 160.0);
        }
    }
    CHECK(judge_kernel_case(Verdict::Pass, {scalar_rows}, 0, 24, 0, KernelRules{}).verdict == Verdict::Pass);  // no rule set
    // Coalescing is judged before width: a scattered float4 kernel is named for its sectors.
    KernelRules both = rules;
    both.max_sectors_per_load_request = 8;
    CHECK(judge_kernel_case(Verdict::Pass, {launch_with(F::None, 10, 320)}, 0, 24, 0, both).cause.code() == "uncoalesced_loads");
}

TEST_CASE("kernel causes: every fault and rule has a code, and each code names its cause back") {
    std::vector<KernelCause> all;
    for (int k = static_cast<int>(emu::FaultKind::BarrierDivergence); k <= static_cast<int>(emu::kLastFaultKind); ++k)
        all.push_back(KernelCause::of_fault(static_cast<emu::FaultKind>(k)));
    for (int r = static_cast<int>(KernelRuleCause::OutputNotWritten); r <= static_cast<int>(kLastKernelRuleCause); ++r)
        all.push_back(KernelCause::of_rule(static_cast<KernelRuleCause>(r)));
    std::set<std::string> codes;
    for (const KernelCause& c : all) {
        CAPTURE(c.code());
        CHECK_FALSE(c.empty());
        CHECK_FALSE(c.code().empty());
        CHECK(codes.insert(c.code()).second);  // no two causes share a code
        const std::optional<KernelCause> back = kernel_cause_from_code(c.code());
        REQUIRE(back);
        CHECK(*back == c);
    }
    CHECK(KernelCause{}.empty());
    CHECK(KernelCause{}.code().empty());
    CHECK_FALSE(kernel_cause_from_code("pass"));  // a verdict code is not a kernel cause
    CHECK_FALSE(kernel_cause_from_code(""));
    CHECK(kernel_cause_from_code("inputs_reloaded")->rule == KernelRuleCause::InputsReloaded);
}

// ---- cases between two programs (Runner::run_cases) ------------------------

TEST_CASE("case_groups: the heaviest case first to the lightest group, each group ascending, none empty") {
    using Groups = std::vector<std::vector<uint32_t>>;
    struct Row {
        std::vector<int64_t> work;
        unsigned programs;
        Groups expected;
    };
    const Row rows[] = {
        {{5, 1, 100, 2, 30}, 2, {{2}, {0, 1, 3, 4}}},          // the real-shape case alone against the rest
        {{10, 10, 10, 10}, 2, {{0, 2}, {1, 3}}},                // equal work: alternate, ties to the lower group
        {{50, 40, 30, 20}, 2, {{0, 3}, {1, 2}}},                // 70 against 70
        {{7}, 2, {{0}}},                                        // one case: one program
        {{}, 2, {{}}},                                          // no case: one (empty) program
        {{3, 1, 2}, 1, {{0, 1, 2}}},                            // one program keeps them all, in order
        {{0, 0, 0}, 2, {{0, 2}, {1}}},                          // no work anywhere: still no empty group
        {{1, 2, 3}, 5, {{2}, {1}, {0}}},                        // more programs than cases: one case each
    };
    for (const Row& r : rows) {
        CAPTURE(r.work.size());
        CAPTURE(r.programs);
        const Groups g = case_groups(r.work, r.programs);
        CHECK(g == r.expected);
        std::vector<uint32_t> all;  // every case exactly once
        for (const auto& group : g) all.insert(all.end(), group.begin(), group.end());
        std::sort(all.begin(), all.end());
        CHECK(all.size() == r.work.size());
        for (size_t k = 0; k < all.size(); ++k) CHECK(all[k] == k);
    }
}
