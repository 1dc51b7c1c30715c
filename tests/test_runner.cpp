// The runner against fixture solutions (tests/fixtures/solutions) on fixture
// exercises (tests/fixtures/course) — never the real course. Every hostile
// program must end in a specific verdict, leave no process or temp file
// behind, and the next correct check must still pass.
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "attnlab/core/desk/check_job.hpp"
#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/text/report.hpp"
#include "attnlab/core/check/runner.hpp"
#include "attnlab/core/base/util.hpp"
#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::contains;

namespace {

const fs::path kFixtures = ATTNLAB_TEST_FIXTURES;

fs::path make_temp_dir() {
    std::string tmpl = (fs::temp_directory_path() / "attnlab-test-XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    return tmpl;
}

// One compiler cache and runner for the whole file: like a learner's session.
struct Env {
    fs::path cache = make_temp_dir();
    Course course = load_course(kFixtures / "course");
    Compiler compiler{Toolchain::detect(), cache};
    Runner runner{compiler};
    ~Env() {
        std::error_code ec;
        fs::remove_all(cache, ec);
    }
};

Env& env() {
    static Env e;
    return e;
}

const Exercise& split() {
    const Exercise* e = env().course.find("fx-split");
    REQUIRE(e != nullptr);
    return *e;
}

// Processes running a file of our cache: compiled learner programs. Found by
// the binary's inode, since an isolated program's /proc/PID/exe shows its
// path inside the sandbox (/input/...), not the cache's. The cancel test
// proves this finds a running program.
std::vector<pid_t> programs_still_running() { return attnlab::testing::processes_running_files_in(env().cache); }

// Is there a process whose argv is exactly `argv`? (Zombies have an empty
// command line, so a killed but unreaped process does not count as running.)
bool process_with_cmdline(const std::vector<std::string>& argv) {
    std::string want;
    for (const std::string& a : argv) want += a + '\0';
    DIR* d = opendir("/proc");
    bool found = false;
    while (dirent* e = readdir(d)) {
        char* end = nullptr;
        std::strtol(e->d_name, &end, 10);
        if (*end || e->d_name[0] == '.') continue;
        std::ifstream in(std::string("/proc/") + e->d_name + "/cmdline", std::ios::binary);
        std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (cmdline == want) found = true;
    }
    closedir(d);
    return found;
}

bool temp_dir_empty() {
    std::error_code ec;
    return fs::is_empty(env().cache / "tmp", ec);
}

CheckResult check_file(const std::string& name, const Exercise& ex = split()) {
    CheckResult r = env().runner.check(ex, kFixtures / "solutions" / name);
    INFO("verdict: " << verdict_code(r.verdict) << "\n" << explain(r, ex, Lang::En));
    CHECK(programs_still_running().empty());
    CHECK(temp_dir_empty());
    return r;
}

// fx-split with other limits, so that only the limit a test is about can fire
// first, however slow or loaded the machine is (a spinning program on a busy
// 2-core box may take several seconds of wall time to use 1 s of CPU).
const Exercise& split_with_limits(double cpu_seconds, double wall_seconds) {
    static std::map<std::pair<double, double>, std::unique_ptr<Exercise>> variants;
    auto& e = variants[{cpu_seconds, wall_seconds}];
    if (!e) {
        e = std::make_unique<Exercise>(split());
        e->limits.cpu_seconds = cpu_seconds;
        e->limits.wall_seconds = wall_seconds;
    }
    return *e;
}
constexpr double kNoLimit = 600;  // ctest's own timeout ends a test that hangs

// Waits (without a time budget: the test's own timeout guards a hang) until
// `pred` holds or `give_up` does.
template <class Pred, class GiveUp>
bool wait_for(Pred pred, GiveUp give_up) {
    while (!pred()) {
        if (give_up()) return pred();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return true;
}

void still_healthy() {
    CheckResult r = env().runner.check(split(), kFixtures / "solutions" / "correct.cpp");
    CHECK(r.verdict == Verdict::Pass);
}

// The pids a fixture printed as "attnlab-test-pid N" lines (stdout is the
// only way out of the sandbox). In a PID namespace they are namespace-local:
// the tests count them; check_file() judges liveness by executable.
std::vector<pid_t> printed_pids(const CheckResult& r) {
    std::vector<pid_t> pids;
    std::istringstream in(r.stdout_text);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("attnlab-test-pid ", 0) == 0) pids.push_back(static_cast<pid_t>(std::stol(line.substr(17))));
    return pids;
}


}  // namespace

TEST_CASE("the fixture course loads") {
    CHECK(env().course.problems.empty());
    REQUIRE(env().course.exercises.size() == 2);
    CHECK(split().signature() == "Tensor split_heads(const Tensor& x, int n_heads)");
}

TEST_CASE("a correct solution passes, and an unchanged file is not recompiled") {
    CheckResult first = check_file("correct.cpp");
    CHECK(first.verdict == Verdict::Pass);
    REQUIRE(first.cases.size() == 2);
    for (const auto& c : first.cases) CHECK(c.verdict == Verdict::Pass);
    CheckResult second = check_file("correct.cpp");
    CHECK(second.verdict == Verdict::Pass);
    CHECK(second.compile_cached);
}

TEST_CASE("wrong values: first mismatches are reported by (head, row, col)") {
    CheckResult r = check_file("wrong_values.cpp");
    REQUIRE(r.verdict == Verdict::WrongAnswer);
    REQUIRE(r.failed_case == 0);
    const CaseOutcome& c = r.cases[0];
    // arange(8) as (2, 4), 2 heads: expected (2, 2, 2) = [[0,1],[4,5]], [[2,3],[6,7]];
    // without the transpose the learner returns [[0,1],[2,3]], [[4,5],[6,7]].
    CHECK(c.mismatch_count == 4);
    REQUIRE(c.mismatches.size() == 4);
    CHECK(c.mismatches[0].index == std::vector<int64_t>{0, 1, 0});
    CHECK(c.mismatches[0].actual == 2.0);
    CHECK(c.mismatches[0].expected == 4.0);
    CHECK(c.max_abs_error == doctest::Approx(2.0));
    const std::string text = explain(r, split(), Lang::En);
    CHECK(text.find("(head 0, row 1, col 0)") != std::string::npos);
    CHECK(explain(r, split(), Lang::Id).find("(head 0, baris 1, kolom 0)") != std::string::npos);
}

TEST_CASE("wrong shape names both shapes") {
    CheckResult r = check_file("wrong_shape.cpp");
    REQUIRE(r.verdict == Verdict::WrongShape);
    CHECK(r.cases[0].expected.tensor.shape == Shape{2, 2, 2});
    CHECK(r.cases[0].actual.tensor.shape == Shape{2, 4});
    const std::string text = explain(r, split(), Lang::En);
    CHECK(text.find("(2, 2, 2)") != std::string::npos);
    CHECK(text.find("(2, 4)") != std::string::npos);
}

TEST_CASE("compile errors are mapped to the learner's file and line") {
    CheckResult r = check_file("compile_error.cpp");
    REQUIRE(r.verdict == Verdict::CompileError);
    REQUIRE(!r.diagnostics.empty());
    const Diagnostic& d = r.diagnostics.front();
    CHECK(d.severity == "error");
    CHECK(d.file == (kFixtures / "solutions" / "compile_error.cpp").string());
    CHECK((d.line == 4 || d.line == 5));
    CHECK(r.compiler_output.find("solution.cpp") == std::string::npos);  // the private copy's name never shows
}

TEST_CASE("a flood of compile errors is cut to the first ones") {
    CheckResult r = check_file("many_errors.cpp");
    REQUIRE(r.verdict == Verdict::CompileError);
    int errors = 0;
    for (const auto& d : r.diagnostics) errors += d.severity == "error";
    CHECK(errors >= 1);
    CHECK(errors <= 11);  // -fmax-errors=10 (+ the "compilation terminated" line)
    CHECK(r.diagnostics.front().line == 4);
    CHECK(r.compiler_output.size() < 300 * 1024);
}

TEST_CASE("a missing entry point says which signature to define") {
    for (const char* f : {"missing_entry.cpp", "empty.cpp"}) {
        CheckResult r = check_file(f);
        CHECK(r.verdict == Verdict::MissingEntry);
        CHECK(r.missing_entry_signature == "Tensor split_heads(const Tensor& x, int n_heads)");
    }
}

TEST_CASE("defining main() is a compile error with a specific message") {
    CheckResult r = check_file("defines_main.cpp");
    CHECK(r.verdict == Verdict::CompileError);
    CHECK(r.problem == Problem::DefinesMain);
}

TEST_CASE("a compiler that the learner's code runs out of time is a compile verdict, in both languages") {
    setenv("ATTNLAB_COMPILE_SECONDS", "3", 1);
    Compiler compiler{Toolchain::detect(), env().cache};
    unsetenv("ATTNLAB_COMPILE_SECONDS");
    CHECK(compiler.toolchain().compile_seconds == 3);
    Runner runner{compiler};
    const CheckResult r = runner.check(split(), kFixtures / "solutions" / "compiler_spins.cpp");
    CHECK(r.verdict == Verdict::CompileError);
    CHECK(r.problem == Problem::CompilerOutOfTime);
    CHECK(r.limit_value == 3);
    const std::string en = explain(r, split(), Lang::En), id = explain(r, split(), Lang::Id);
    CHECK(contains(en, "The compiler ran out of time on your code: it was stopped after 3 s."));
    CHECK(contains(id, "Kompiler kehabisan waktu saat mengompilasi kodemu"));
    CHECK_FALSE(contains(en, "could not be started"));
    still_healthy();
}

TEST_CASE("crashes are named by signal") {
    CheckResult segv = check_file("segfault.cpp");
    CHECK(segv.verdict == Verdict::Crash);
    CHECK(segv.signal_name == "SIGSEGV");
    CHECK(segv.failed_case == 0);
    CHECK_FALSE(segv.crashed_before_entry);
    CheckResult abrt = check_file("abort.cpp");
    CHECK(abrt.verdict == Verdict::Crash);
    CHECK(abrt.signal_name == "SIGABRT");
    still_healthy();
}

TEST_CASE("a crash or a hang in a static initialiser is reported as such") {
    CheckResult crash = check_file("static_init_crash.cpp");
    CHECK(crash.verdict == Verdict::Crash);
    CHECK(crash.crashed_before_entry);
    CHECK(explain(crash, split(), Lang::En).find("before your function was called") != std::string::npos);
    CheckResult loop = check_file("static_init_loop.cpp");
    CHECK(loop.verdict == Verdict::Timeout);
    CHECK(loop.crashed_before_entry);
}

TEST_CASE("an infinite loop hits the CPU limit; a sleeper hits the wall limit") {
    CheckResult spin = check_file("infinite_loop.cpp", split_with_limits(1, kNoLimit));
    CHECK(spin.verdict == Verdict::Timeout);
    CHECK(spin.limit == LimitKind::CpuTime);
    CHECK(spin.limit_value == 1.0);
    CHECK(explain(spin, split(), Lang::En).find("stopped after 1 s of CPU time") != std::string::npos);
    CheckResult sleeper = check_file("sleeps.cpp", split_with_limits(1, 2));  // sleeping uses no CPU: only the wall limit can fire
    CHECK(sleeper.verdict == Verdict::Timeout);
    CHECK(sleeper.limit == LimitKind::WallTime);
    CHECK(explain(sleeper, split(), Lang::En).find("stopped after 2 s wall time") != std::string::npos);
    still_healthy();
}

TEST_CASE("forked children and a daemon in its own session are all killed") {
    CheckResult forks = check_file("fork_children.cpp");
    CHECK(forks.verdict == Verdict::Timeout);
    std::vector<pid_t> pids = printed_pids(forks);
    CHECK(pids.size() == 20);  // every child was forked and recorded before the program spun; check_file made sure none is left

    CheckResult daemon = check_file("background_daemon.cpp");
    CHECK(daemon.verdict == Verdict::Pass);  // its answer is right; its leftovers are cleaned up
    CHECK(printed_pids(daemon).size() == split().cases.size());  // one per case; check_file made sure none is left
    still_healthy();
}

TEST_CASE("an 8 GiB allocation is a memory-limit verdict") {
    CheckResult r = check_file("huge_alloc.cpp");
    CHECK(r.verdict == Verdict::MemoryLimit);
    CHECK(explain(r, split(), Lang::En).find("256 MB") != std::string::npos);
    still_healthy();
}

TEST_CASE("100 MB on stdout or stderr stops at the output limit") {
    for (const char* f : {"stdout_flood.cpp", "stderr_flood.cpp"}) {
        CheckResult r = check_file(f);
        CHECK(r.verdict == Verdict::OutputLimit);
        CHECK(r.limit_value == 64.0);
        CHECK(r.output_truncated);
        CHECK(r.stdout_text.size() + r.stderr_text.size() <= 2 * 64 * 1024);
    }
    still_healthy();
}

TEST_CASE("garbage for the result channel never reaches it: the write fails and the values decide") {
    CheckResult r = check_file("channel_garbage.cpp");
    CHECK(r.verdict == Verdict::Pass);
    CHECK(contains(r.stderr_text, std::string("garbage: blocked (") + std::strerror(EBADF) + ")"));
    CheckResult early = check_file("exits_early.cpp");
    CHECK(early.verdict == Verdict::ProtocolError);
    still_healthy();
}

TEST_CASE("an uncaught exception reports its type and what()") {
    CheckResult r = check_file("uncaught_exception.cpp");
    REQUIRE(r.verdict == Verdict::RuntimeError);
    CHECK(r.cases[0].exception_type == "std::runtime_error");
    CHECK(r.cases[0].exception_what == "boom: my own message");
}

TEST_CASE("probes past the protocol's limit are dropped and counted, not a broken channel") {
    CheckResult r = check_file("many_probes.cpp", split_with_limits(kNoLimit, kNoLimit));
    REQUIRE(r.verdict == Verdict::Pass);
    CHECK(r.cases[0].probes.size() == 4096);
    CHECK(r.cases[0].probes_dropped == 5000 - 4096);
}

TEST_CASE("the child keeps the protocol's limits: a rank-9 probe is dropped, a rank-9 or 20 MB output is a wrong shape") {
    CheckResult probe9 = check_file("rank9_probe.cpp");
    REQUIRE(probe9.verdict == Verdict::Pass);
    CHECK(probe9.cases[0].probes_dropped == 1);
    CheckResult out9 = check_file("rank9_output.cpp");
    REQUIRE(out9.verdict == Verdict::WrongShape);
    CHECK(out9.cases[0].unsent_shape == "(1, 1, 1, 1, 1, 1, 1, 1, 2)");
    CHECK(explain(out9, split(), Lang::En).find("(1, 1, 1, 1, 1, 1, 1, 1, 2)") != std::string::npos);
    // Tens of MB to fill and copy: no time limit may decide this on a slow machine.
    CheckResult huge = check_file("huge_output.cpp", split_with_limits(kNoLimit, kNoLimit));
    REQUIRE(huge.verdict == Verdict::WrongShape);
    CHECK(huge.cases[0].unsent_shape == "(100, 100, 500)");
    still_healthy();
}

TEST_CASE("probing the same name again replaces it within the 64 MB budget") {
    // 80 MB of probes to fill and copy: no time limit may decide this on a slow machine.
    CheckResult r = check_file("reprobe_large.cpp", split_with_limits(kNoLimit, kNoLimit));
    REQUIRE(r.verdict == Verdict::Pass);
    CHECK(r.cases[0].probes_dropped == 0);
    REQUIRE(r.cases[0].probes.size() == 1);
    CHECK(r.cases[0].probes[0].tensor.data[0] == 1.0f);
}

TEST_CASE("a crash after every case has reported is explained, not left blank") {
    CheckResult r = check_file("crash_at_exit.cpp");
    REQUIRE(r.verdict == Verdict::Crash);
    CHECK(r.failed_case == -1);
    CHECK(explain(r, split(), Lang::En).find("after every case had reported") != std::string::npos);
    CHECK(explain(r, split(), Lang::Id).find("setelah semua kasus melapor") != std::string::npos);
}

TEST_CASE("a check that finished but was replaced before anyone collected it still counts") {
    auto source = read_file(kFixtures / "solutions" / "correct.cpp");
    REQUIRE(source);
    CheckScheduler scheduler(env().runner);
    auto first = scheduler.start(split(), *source, "correct.cpp");
    REQUIRE(first->wait().verdict == Verdict::Pass);
    auto second = scheduler.start(split(), *source + "\n// replaced\n", "correct.cpp");
    second->wait();
    const auto finished = scheduler.take_finished();
    REQUIRE(finished.size() == 2);
    CHECK(finished[0] == first);
    CHECK(finished[1] == second);
    CHECK(scheduler.take_finished().empty());
}

TEST_CASE("writing into an input tensor is named, with the parameter") {
    CheckResult r = check_file("writes_into_input.cpp");
    REQUIRE(r.verdict == Verdict::ModifiedInput);
    CHECK(r.cases[0].modified_input == "x");
    CHECK(explain(r, split(), Lang::En).find("wrote into `x`") != std::string::npos);
    CHECK(explain(r, split(), Lang::Id).find("menulis ke `x`") != std::string::npos);
}

TEST_CASE("NaN output is its own verdict, with the position") {
    CheckResult r = check_file("nan_output.cpp");
    REQUIRE(r.verdict == Verdict::NonFinite);
    CHECK(r.cases[0].nonfinite_index == std::vector<int64_t>{0, 0, 0});
    CHECK(explain(r, split(), Lang::En).find("NaN at (head 0, row 0, col 0)") != std::string::npos);
}

TEST_CASE("a source that is not UTF-8 still compiles and its messages are valid UTF-8") {
    CheckResult r = check_file("not_utf8.cpp");
    CHECK(r.verdict == Verdict::Pass);
    CHECK(sanitize_utf8(explain(r, split(), Lang::En)) == explain(r, split(), Lang::En));
}

TEST_CASE("a 10 MB source is refused before compiling") {
    const fs::path big = env().cache / "big.cpp";
    {
        std::ofstream out(big);
        std::string line(1023, '/');  // 10 MiB of comment lines
        for (int i = 0; i < 10 * 1024; ++i) out << line << "\n";
    }
    CheckResult r = env().runner.check(split(), big);
    CHECK(r.verdict == Verdict::CompileError);
    CHECK(r.problem == Problem::SourceTooLarge);
    CHECK(explain(r, split(), Lang::En).find("10.0 MB") != std::string::npos);
}

TEST_CASE("probes come back with names and shapes") {
    CheckResult r = check_file("with_probes.cpp");
    REQUIRE(r.verdict == Verdict::Pass);
    REQUIRE(r.cases[0].probes.size() == 2);
    CHECK(r.cases[0].probes[0].name == "chunks");
    CHECK(r.cases[0].probes[0].tensor.shape == Shape{2, 2, 2});
    CHECK(r.cases[0].probes[1].name == "heads");
    CHECK(r.cases[0].probes[1].tensor.data == r.cases[0].expected.tensor.data);
}

TEST_CASE("integer results are compared exactly") {
    const Exercise* params = env().course.find("fx-params");
    REQUIRE(params != nullptr);
    CheckResult ok = env().runner.check(*params, params->solution_path());
    CHECK(ok.verdict == Verdict::Pass);
    CHECK(ok.cases[0].expected.int_value == 28311552);
    CheckResult starter = env().runner.check(*params, params->starter_path());
    CHECK(starter.verdict == Verdict::WrongAnswer);
    CHECK(explain(starter, *params, Lang::En).find("28,311,552") != std::string::npos);  // grouped, the English way
}

TEST_CASE("a background check reports progress and can be cancelled at any point") {
    auto source = read_file(kFixtures / "solutions" / "sleeps.cpp");
    REQUIRE(source);
    CheckScheduler scheduler(env().runner);
    // No limit can end the sleeper: only the cancel can (a Timeout would mean it was ignored).
    const Exercise& unlimited = split_with_limits(kNoLimit, kNoLimit);
    auto job = scheduler.start(unlimited, *source + "\n// variant for cancel test\n", "sleeps.cpp");
    // Wait until the program is seen running (which also proves that
    // programs_still_running() finds an isolated program), then cancel.
    REQUIRE(wait_for([&] { return !programs_still_running().empty(); }, [&] { return job->done(); }));
    job->cancel();
    const CheckResult& r = job->wait();
    CHECK(r.verdict == Verdict::Cancelled);
    CHECK(programs_still_running().empty());
    CHECK(temp_dir_empty());

    // A new check of the same exercise cancels the previous one.
    auto slow = scheduler.start(unlimited, *source + "\n// variant 2\n", "sleeps.cpp");
    auto correct = read_file(kFixtures / "solutions" / "correct.cpp");
    auto fast = scheduler.start(split(), *correct, "correct.cpp");
    CHECK(slow->wait().verdict == Verdict::Cancelled);
    CHECK(fast->wait().verdict == Verdict::Pass);
    CHECK(scheduler.current("fx-split") == fast);
    CHECK(programs_still_running().empty());
}

TEST_CASE("cancel while the compiler is running") {
    // A stand-in compiler that blocks when asked to build the learner's
    // program: the cancel certainly lands while it runs, on any machine, and
    // must kill it.
    const fs::path dir = make_temp_dir();
    // The compiler runs in the sandbox's PID namespace, so it is found by its
    // command line, made unique to this test process.
    const std::string sleep_arg = "6000." + std::to_string(getpid());
    const fs::path fake = dir / "slow-cxx";
    {
        std::ofstream script(fake);
        script << "#!/bin/sh\n"
                  "for a in \"$@\"; do\n"
                  "  if [ \"$a\" = -o ]; then exec sleep " << sleep_arg << "; fi\n"
                  "done\n"
                  "exec g++ \"$@\"\n";
    }
    // Readable and executable by others: the compiler runs as `nobody` when the tests run as root.
    fs::permissions(fake, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                              fs::perms::others_exec);
    Toolchain slow = Toolchain::detect();
    slow.compiler = fake.string();
    slow.use_pch = false;
    Compiler compiler(slow, dir / "cache");
    Runner runner(compiler);
    CheckScheduler scheduler(runner);
    auto source = read_file(kFixtures / "solutions" / "correct.cpp");
    REQUIRE(source);
    auto job = scheduler.start(split(), *source, "x.cpp");
    REQUIRE(wait_for([&] { return process_with_cmdline({"sleep", sleep_arg}); }, [&] { return job->done(); }));
    CHECK(job->progress().phase == Phase::Compiling);
    job->cancel();
    CHECK(job->wait().verdict == Verdict::Cancelled);
    CHECK_FALSE(process_with_cmdline({"sleep", sleep_arg}));  // killed and reaped
    std::error_code ec;
    CHECK(fs::is_empty(dir / "cache" / "tmp", ec));
    fs::remove_all(dir, ec);
}

TEST_CASE("a result forged before main() never reaches the channel") {
    CheckResult r = check_file("forged_result_index.cpp");
    CHECK(contains(r.stdout_text, "forged write returned -1"));
    CHECK(r.verdict == Verdict::Pass);  // its values are right, and nothing else was heard
    still_healthy();
}

TEST_CASE("every way a program could write the result channel is refused, the harness's own write excepted") {
    CheckResult r = check_file("channel_every_path.cpp");
    INFO(r.stderr_text);
    CHECK(r.verdict == Verdict::Pass);
    CHECK_FALSE(contains(r.stderr_text, "WROTE"));
    for (const char* path : {"write", "syscall", "writev", "send", "dup", "dup2", "fcntl F_DUPFD", "open /proc/self/fd/3", "execve"})
        CHECK_MESSAGE(contains(r.stderr_text, std::string(path) + ": blocked ("), path);
    still_healthy();
}

TEST_CASE("a forged 'done' frame without results is not a pass") {
    CheckResult r = check_file("forged_done.cpp");
    CHECK(r.verdict == Verdict::ProtocolError);
    CHECK_FALSE(r.passed());
    for (const auto& c : r.cases) CHECK(c.verdict != Verdict::Pass);
    still_healthy();
}

TEST_CASE("a program that kills its sandbox is stopped, children included") {
    CheckResult r = check_file("kills_sandbox.cpp");
    // In a PID namespace the program cannot even see its sandbox (its
    // parent there is init, which ignores the kill): it then runs into the
    // wall limit. Without one, the sandbox dies and the parent reports it.
    CHECK((r.verdict == Verdict::ProtocolError || r.verdict == Verdict::Timeout));
    CHECK(printed_pids(r).size() == 1);  // the child ran; check_file made sure it is gone
    still_healthy();
}

TEST_CASE("a program that stops its sandbox is still cancelled, and its processes killed") {
    auto source = read_file(kFixtures / "solutions" / "stops_sandbox.cpp");
    REQUIRE(source);
    CheckScheduler scheduler(env().runner);
    // No limit can end it: only the cancel can, whether it lands before or
    // after the program stops its supervisor.
    auto job = scheduler.start(split_with_limits(kNoLimit, kNoLimit), *source, "stops_sandbox.cpp");
    REQUIRE(wait_for([&] { return job->progress().phase == Phase::Running; }, [&] { return job->done(); }));
    job->cancel();
    CHECK(job->wait().verdict == Verdict::Cancelled);
    CHECK(programs_still_running().empty());
    CHECK(temp_dir_empty());
    still_healthy();
}

TEST_CASE("an I/O failure inside a background check is an internal error, not a crash") {
    const fs::path cache = make_temp_dir();
    Compiler compiler(Toolchain::detect(), cache);
    Runner runner(compiler);
    // The folder for generated headers is a file: writing into it throws.
    fs::remove_all(cache / "entry");
    std::ofstream(cache / "entry") << "not a folder";
    auto source = read_file(kFixtures / "solutions" / "correct.cpp");
    REQUIRE(source);
    CheckJob job(runner, split(), *source, "correct.cpp");
    const CheckResult& r = job.wait();
    CHECK(r.verdict == Verdict::InternalError);
    CHECK(r.problem != Problem::None);
    CHECK_FALSE(r.detail.empty());
    fs::remove_all(cache);
}

// Whether attnlab-sandbox can put programs in a PID namespace here (the
// kernel or a container may refuse; attnlab then falls back to killing the
// process tree it can see).
bool pid_namespaces_available() {
    if (std::getenv("ATTNLAB_NO_PIDNS")) return false;
    const pid_t pid = fork();
    if (pid == 0) {
        const int flags = getuid() == 0 ? CLONE_NEWPID : (CLONE_NEWUSER | CLONE_NEWPID);
        _exit(unshare(flags) == 0 ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST_CASE("a setsid daemon left by a program that then kills its sandbox does not survive") {
    if (!pid_namespaces_available()) {
        MESSAGE("skipped: no PID namespaces here, so an escaped setsid() daemon cannot be caught");
        return;
    }
    CheckResult r = check_file("escapes_then_kills_sandbox.cpp");
    CHECK((r.verdict == Verdict::ProtocolError || r.verdict == Verdict::Timeout));
    // The pids the fixtures record are namespace-local, so liveness is judged
    // by executable: no process of the compiled program may remain.
    CHECK(printed_pids(r).size() == 1);
    CHECK(programs_still_running().empty());
    still_healthy();
}

TEST_CASE("work folders of attnlab processes that died (kill -9) are swept when a compiler starts") {
    attnlab::testing::TempDir cache("sweep-cache");
    const pid_t dead = fork();
    REQUIRE(dead >= 0);
    if (dead == 0) _exit(0);
    REQUIRE(waitpid(dead, nullptr, 0) == dead);  // its pid is free now
    const fs::path tmp = cache.path() / "tmp";
    const std::string d = std::to_string(dead), mine = std::to_string(::getpid());
    for (const std::string& name : {"0123456789abcdef-" + d + "-fedcba9876543210", "run-" + d + "-00ff", "gpu-run-" + d + "-00ff",
                                    "0123456789abcdef-" + mine + "-fedcba9876543210", "run-" + mine + "-00ff", std::string("nvrtc")}) {
        fs::create_directories(tmp / name);
        std::ofstream(tmp / name / "program") << "left behind";
    }
    Compiler compiler(Toolchain::detect(), cache.path());
    CHECK_FALSE(fs::exists(tmp / ("0123456789abcdef-" + d + "-fedcba9876543210")));
    CHECK_FALSE(fs::exists(tmp / ("run-" + d + "-00ff")));
    CHECK_FALSE(fs::exists(tmp / ("gpu-run-" + d + "-00ff")));
    CHECK(fs::exists(tmp / ("0123456789abcdef-" + mine + "-fedcba9876543210")));  // a live process's
    CHECK(fs::exists(tmp / ("run-" + mine + "-00ff")));
    CHECK(fs::exists(tmp / "nvrtc"));  // not a process's
}
