// Learner programs and the compiler run isolated (issues 13 and 21): each
// hostile fixture below returns a correct answer and also tries to reach
// something it must not. The attempt has to fail inside the program (it says
// how on stderr), the check has to give its normal verdict, and nothing may
// appear outside the program's scratch directory. Where the kernel refuses a
// namespace (simulated with tests/refuse_namespaces.cpp, a seccomp filter as
// Docker's default profile has), nothing runs unless the user opted in.
// ctest runs this suite as root and, through tests/run_unprivileged.sh, as an
// ordinary user (attnlab-test, created in CI; else nobody).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/ipc.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/desk/doctor.hpp"
#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/core/check/process.hpp"
#include "attnlab/core/text/report.hpp"
#include "attnlab/core/check/runner.hpp"
#include "attnlab/core/check/verdict.hpp"
#include "attnlab/core/base/util.hpp"
#include "attnlab/core/desk/workspace.hpp"  // the weak-sandbox opt-in, read as attnlab reads it
#include "attnlab/core/text/protection_words.hpp"
#include "test_support.hpp"

using namespace attnlab;
using attnlab::testing::contains;
using attnlab::testing::TempDir;
namespace status = attnlab::sandbox_status;

namespace {

const fs::path kFixtures = ATTNLAB_TEST_FIXTURES;

struct Env {
    TempDir cache{"isolation-cache"};
    Course course = load_course(kFixtures / "course");
    Compiler compiler{Toolchain::detect(), cache.path()};
    Runner runner{compiler};
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

// Runs `argv` in the sandbox under `policy` and returns what happened.
ProcessOutcome run_program(const std::vector<std::string>& argv, const SandboxPolicy& policy, long memory_mb = 0) {
    ProcessSpec spec;
    spec.sandbox = env().compiler.toolchain().sandbox.string();
    spec.argv = argv;
    spec.policy = policy;
    spec.limits.wall_seconds = 60;
    spec.limits.memory_mb = memory_mb;
    return run_in_sandbox(spec, nullptr, nullptr);
}

ProcessOutcome run_shell(const std::string& script, const SandboxPolicy& policy = learner_policy(ExecutionTarget::Cpu)) {
    return run_program({"/bin/sh", "-c", script}, policy);
}

// The layers the kernel refused here, named (empty when all are in place).
std::string refused_layers() {
    static const std::string refused = [] {
        const ProcessOutcome p = run_program({"/bin/true"}, learner_policy(ExecutionTarget::Cpu));
        std::string names;
        for (status::Layer l : status::kLayers)
            if (p.protections[l].state != status::LayerState::Applied) names += std::string(" ") + status::layer_code(l);
        return names;
    }();
    return refused;
}

// The escape tests need every layer; a kernel or container that refuses one
// is reported, not failed (attnlab runs there, less protected, and says so).
// CI sets ATTNLAB_REQUIRE_ISOLATION=1: there a refused layer is a failure,
// never a skip, so a regression in our own set-up (a bad filter, a wrong
// mount flag) cannot turn the suite green. Elsewhere a kernel or container
// that refuses a layer skips the tests that need it, and says so.
bool isolation_required() {
    const char* v = std::getenv("ATTNLAB_REQUIRE_ISOLATION");
    return v && std::string(v) == "1";
}

bool isolation_available() {
    if (refused_layers().empty()) return true;
    if (isolation_required()) {
        FAIL("ATTNLAB_REQUIRE_ISOLATION=1 but the sandbox could not apply" << refused_layers());
        return false;
    }
    MESSAGE("skipped: this kernel refuses" << refused_layers() << " (see `attnlab doctor`)");
    return false;
}

std::string slurp_text(const fs::path& p) { return read_file(p).value_or(""); }

// Files the fixtures might have left anywhere but their scratch directory,
// one per line.
std::string leftovers(const fs::path& home) {
    std::string found;
    std::error_code ec;
    for (const fs::path& dir : {home, fs::path("/tmp")})
        for (const auto& e : fs::directory_iterator(dir, ec)) {
            const std::string name = e.path().filename().string();
            if (name.rfind("attnlab-escape", 0) == 0 || name.rfind("suid-", 0) == 0 || name == "scratch-file.txt" || name == "in-cwd.txt")
                found += e.path().string() + "\n";
        }
    for (auto it = fs::recursive_directory_iterator(env().cache.path(), ec); it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("suid-", 0) == 0 || name == "scratch-file.txt" || name == "in-cwd.txt") found += it->path().string() + "\n";
    }
    return found;
}

// A fake home for one test: HOME points at it while the check runs (and
// ATTNLAB_TEST_HOME, which the fixtures read: the program's own HOME is /scratch).
class FakeHome {
public:
    FakeHome() : old_(std::getenv("HOME") ? std::getenv("HOME") : "") {
        fs::permissions(dir_.path(), fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
        setenv("HOME", dir_.path().c_str(), 1);
        setenv("ATTNLAB_TEST_HOME", dir_.path().c_str(), 1);
    }
    ~FakeHome() {
        setenv("HOME", old_.c_str(), 1);
        unsetenv("ATTNLAB_TEST_HOME");
    }
    const fs::path& path() const { return dir_.path(); }

private:
    TempDir dir_{"fake-home"};
    std::string old_;
};

CheckResult check_fixture(const std::string& name) {
    CheckResult r = env().runner.check(split(), kFixtures / "solutions" / name);
    INFO("verdict: " << verdict_code(r.verdict) << "\n" << explain(r, split(), Lang::En) << "\nstderr: " << r.stderr_text);
    CHECK(r.verdict == Verdict::Pass);
    CHECK(attnlab::testing::processes_running_files_in(env().cache.path()).empty());
    return r;
}

}  // namespace

TEST_CASE("writing to $HOME fails inside the program and the check still passes") {
    if (!isolation_available()) return;
    FakeHome home;
    const CheckResult r = check_fixture("escape_write_home.cpp");
    CHECK(contains(r.stderr_text, "write home: blocked"));
    CHECK(fs::is_empty(home.path()));
    CHECK(leftovers(home.path()) == "");
}

TEST_CASE("writing to /tmp fails inside the program and the check still passes") {
    if (!isolation_available()) return;
    FakeHome home;
    std::error_code ec;
    fs::remove("/tmp/attnlab-escape-tmp.txt", ec);
    const CheckResult r = check_fixture("escape_write_tmp.cpp");
    CHECK(contains(r.stderr_text, "write tmp: blocked"));
    CHECK_FALSE(fs::exists("/tmp/attnlab-escape-tmp.txt"));
    CHECK(leftovers(home.path()) == "");
}

TEST_CASE("a file in $HOME cannot be read") {
    if (!isolation_available()) return;
    FakeHome home;
    const fs::path secret = home.path() / "attnlab-secret.txt";
    std::ofstream(secret) << "the learner's secret";
    fs::permissions(secret, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
    const CheckResult r = check_fixture("escape_read_home.cpp");
    CHECK(contains(r.stderr_text, "read home: blocked"));
    CHECK_FALSE(contains(r.stderr_text, "secret"));
}

TEST_CASE("a course under /opt (where an installed attnlab keeps it) cannot be read by the program") {
    if (!isolation_available()) return;
    std::error_code ec;
    char pattern[] = "/opt/attnlab-test-course-XXXXXX";
    if (!mkdtemp(pattern)) {
        // An ordinary user cannot write /opt: the root run of this suite covers it.
        MESSAGE("skipped: cannot create a folder under /opt as uid " << getuid() << " (" << std::strerror(errno) << ")");
        return;
    }
    const fs::path opt = pattern;
    fs::permissions(opt, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    fs::copy(kFixtures / "course", opt / "course", fs::copy_options::recursive, ec);
    REQUIRE_FALSE(ec);
    const fs::path solution = opt / "course" / "fx-split" / "solution.cpp";
    REQUIRE(fs::exists(solution));
    const Course course = load_course(opt / "course");
    const Exercise* ex = course.find("fx-split");
    REQUIRE(ex != nullptr);
    setenv("ATTNLAB_TEST_COURSE_FILE", solution.c_str(), 1);
    const CheckResult r = env().runner.check(*ex, kFixtures / "solutions" / "escape_read_course.cpp");
    unsetenv("ATTNLAB_TEST_COURSE_FILE");
    INFO(r.stderr_text);
    CHECK(r.verdict == Verdict::Pass);
    CHECK(contains(r.stderr_text, "read course: blocked"));
    CHECK_FALSE(contains(r.stderr_text, "ESCAPED"));
    fs::remove_all(opt, ec);
}

TEST_CASE("a listener on 127.0.0.1 cannot be reached") {
    if (!isolation_available()) return;
    FakeHome home;
    const int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    REQUIRE(listener >= 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    REQUIRE(listen(listener, 4) == 0);
    socklen_t len = sizeof addr;
    REQUIRE(getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
    setenv("ATTNLAB_TEST_PORT", std::to_string(ntohs(addr.sin_port)).c_str(), 1);
    const CheckResult r = check_fixture("escape_connect.cpp");
    unsetenv("ATTNLAB_TEST_PORT");
    CHECK(contains(r.stderr_text, "connect: blocked"));
    // A connection that had reached the listener would wait in its queue.
    const int accepted = accept(listener, nullptr, nullptr);
    CHECK(accepted < 0);
    if (accepted >= 0) close(accepted);
    close(listener);
}

TEST_CASE("no socket of a family no exercise needs: vsock, packet, netlink, inet6, inet, and no Unix socket for a CPU program") {
    if (!isolation_available()) return;
    const ProcessOutcome cpu = run_program({ATTNLAB_SOCKET_PROBE}, learner_policy(ExecutionTarget::Cpu));
    REQUIRE(cpu.status == ProcessOutcome::Status::Exited);
    const std::string refused = std::string("refused (") + std::strerror(EPERM) + ")";
    for (const char* family : {"vsock", "packet", "netlink", "inet6", "inet", "unix", "socketpair"})
        CHECK_MESSAGE(contains(cpu.out, std::string(family) + ": " + refused), family << " in:\n" << cpu.out);
    // A GPU's driver may talk to its daemons over a Unix socket; nothing else opens there either.
    SandboxPolicy gpu = learner_policy(ExecutionTarget::Gpu);
    gpu.extra_devices.clear();
    const ProcessOutcome with_gpu = run_program({ATTNLAB_SOCKET_PROBE}, gpu);
    REQUIRE(with_gpu.status == ProcessOutcome::Status::Exited);
    CHECK(contains(with_gpu.out, "unix: opened"));
    CHECK(contains(with_gpu.out, "socketpair: opened"));
    for (const char* family : {"vsock", "packet", "netlink", "inet6", "inet"})
        CHECK_MESSAGE(contains(with_gpu.out, std::string(family) + ": " + refused), family << " in:\n" << with_gpu.out);
}

TEST_CASE("a set-user-ID file cannot be made") {
    if (!isolation_available()) return;
    FakeHome home;
    const CheckResult r = check_fixture("escape_setuid.cpp");
    CHECK(contains(r.stderr_text, "setuid create: blocked"));
    CHECK(contains(r.stderr_text, "setuid chmod: blocked"));
    CHECK(leftovers(home.path()) == "");
}

TEST_CASE("ptrace on the parent is refused") {
    if (!isolation_available()) return;
    const CheckResult r = check_fixture("escape_ptrace.cpp");
    CHECK(contains(r.stderr_text, "ptrace parent: blocked"));
}

TEST_CASE("the scratch directory is writable during the run and gone after it") {
    if (!isolation_available()) return;
    FakeHome home;
    const CheckResult r = check_fixture("uses_scratch.cpp");
    CHECK(contains(r.stderr_text, "scratch: writable"));
    CHECK(leftovers(home.path()) == "");
}

TEST_CASE("the sandbox reports every layer, and applies them here") {
    const ProcessOutcome p = run_program({"/bin/true"}, learner_policy(ExecutionTarget::Cpu));
    CHECK(p.status == ProcessOutcome::Status::Exited);
    for (status::Layer l : status::kLayers) {
        INFO(status::layer_code(l));
        const status::LayerReport& layer = p.protections[l];
        // Applied, or refused with the kernel's reason: never unknown; where
        // isolation is required (CI), applied.
        if (isolation_required()) CHECK(layer.state == status::LayerState::Applied);
        else CHECK((layer.state == status::LayerState::Applied || (layer.state == status::LayerState::Refused && layer.error > 0)));
    }
    if (!refused_layers().empty()) MESSAGE("this kernel refuses" << refused_layers());
}

namespace {

// The user's opt-in to a weaker sandbox for one test: the environment
// variable and the setting (in a settings.json of its own), both.
class WeakSandboxAllowed {
public:
    explicit WeakSandboxAllowed(bool setting = true, bool env = true) : old_home_(std::getenv("ATTNLAB_HOME") ? std::getenv("ATTNLAB_HOME") : "") {
        fs::permissions(dir_.path(), fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
        write_file_atomic(dir_.path() / "config" / "settings.json", setting ? "{\"allow_weak_sandbox\": true}\n" : "{}\n");
        setenv("ATTNLAB_HOME", dir_.path().c_str(), 1);
        if (env) setenv("ATTNLAB_ALLOW_WEAK_SANDBOX", "1", 1);
    }
    ~WeakSandboxAllowed() {
        if (old_home_.empty()) unsetenv("ATTNLAB_HOME");
        else setenv("ATTNLAB_HOME", old_home_.c_str(), 1);
        unsetenv("ATTNLAB_ALLOW_WEAK_SANDBOX");
    }
    // `policy` with the opt-in as attnlab reads it when it starts (both
    // halves, now) and hands it to the runs it governs.
    SandboxPolicy handed(SandboxPolicy policy = learner_policy(ExecutionTarget::Cpu)) const {
        policy.allow_missing_layers = weak_sandbox_opt_in(Paths::from_environment().settings_file()).allowed();
        return policy;
    }

private:
    TempDir dir_{"weak-sandbox"};
    std::string old_home_;
};

// A host whose kernel refuses every namespace (Docker's default seccomp
// profile does this), simulated by the test helper refuse_namespaces.
ProcessOutcome run_refused(const std::vector<std::string>& argv, const SandboxPolicy& policy = learner_policy(ExecutionTarget::Cpu)) {
    setenv("ATTNLAB_REFUSE_REAL_SANDBOX", env().compiler.toolchain().sandbox.c_str(), 1);
    ProcessSpec spec;
    spec.sandbox = ATTNLAB_REFUSE_NAMESPACES;
    spec.argv = argv;
    spec.policy = policy;
    spec.limits.wall_seconds = 60;
    spec.limits.memory_mb = 256;
    return run_in_sandbox(spec, nullptr, nullptr);
}

// A runner whose sandbox runs on such a host.
struct RefusingEnv {
    TempDir cache{"refusing-cache"};
    Toolchain toolchain = [] {
        setenv("ATTNLAB_REFUSE_REAL_SANDBOX", env().compiler.toolchain().sandbox.c_str(), 1);
        Toolchain t = Toolchain::detect();
        t.sandbox = ATTNLAB_REFUSE_NAMESPACES;
        t.weak_sandbox_allowed = weak_sandbox_opt_in(Paths::from_environment().settings_file()).allowed();  // as a Lab reads it
        return t;
    }();
    Compiler compiler{toolchain, cache.path()};
    Runner runner{compiler};
    RefusingEnv() {
        // Without a private root, a compiler that runs as `nobody` (attnlab
        // being root) reads its files where they are: a cache it may enter.
        fs::permissions(cache.path(), fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
    }
};

}  // namespace

TEST_CASE("an ATTNLAB_NO_* switch turns one layer off: without the opt-in nothing runs, with it the run says so") {
    if (!isolation_available()) return;
    setenv("ATTNLAB_NO_NETNS", "1", 1);
    const ProcessOutcome refused = run_shell("exit 3");
    CHECK(refused.status == ProcessOutcome::Status::IsolationRefused);
    CHECK(refused.protections[status::Layer::NetworkNamespace].state == status::LayerState::DisabledByUser);
    ProcessOutcome p;
    {
        WeakSandboxAllowed allowed;
        p = run_shell("exit 3", allowed.handed());
    }
    unsetenv("ATTNLAB_NO_NETNS");
    CHECK(p.status == ProcessOutcome::Status::Exited);
    CHECK(p.exit_code == 3);
    CHECK(p.protections[status::Layer::NetworkNamespace].state == status::LayerState::DisabledByUser);
    CHECK(p.protections[status::Layer::MountNamespace].state == status::LayerState::Applied);
    CHECK_FALSE(p.protections.complete());
}

TEST_CASE("tools on no learner input (version queries) ask for no isolation") {
    const ProcessOutcome p = run_shell("test -d /usr", trusted_tool_policy());
    CHECK(p.exit_code == 0);
    for (status::Layer l : {status::Layer::MountNamespace, status::Layer::NetworkNamespace, status::Layer::Seccomp, status::Layer::Identity})
        CHECK(p.protections[l].state == status::LayerState::NotAsked);
    CHECK(p.protections.complete());
}

TEST_CASE("a background job (NVRTC's report) runs at the niceness its policy asks, a learner program at the normal one") {
    // /proc/self/stat's 19th field is the niceness; `cut` reads its own. The
    // test may itself run niced (a loaded CI machine): a program inherits that,
    // and only root may go below it.
    const int own = getpriority(PRIO_PROCESS, 0);
    const std::string script = "cut -d' ' -f19 /proc/self/stat";
    SandboxPolicy background = learner_policy(ExecutionTarget::Cpu);
    background.nice = 10;
    const ProcessOutcome niced = run_shell(script, background);
    CHECK(niced.exit_code == 0);
    CHECK(niced.out == std::to_string(own > 10 && getuid() != 0 ? own : 10) + "\n");
    const ProcessOutcome normal = run_shell(script);
    CHECK(normal.exit_code == 0);
    CHECK(normal.out == std::to_string(own) + "\n");
}

// ---- fail closed (issue 21) -------------------------------------------------

TEST_CASE("a kernel that refuses namespaces: the program never starts, and the report says which layer and why") {
    TempDir dir("refused-marker");
    fs::permissions(dir.path(), fs::perms::all);
    const fs::path marker = dir.path() / "attnlab-escape-ran";
    const ProcessOutcome p = run_refused({"/bin/sh", "-c", "touch " + marker.string()});
    INFO(p.err << p.error);
    CHECK(p.status == ProcessOutcome::Status::IsolationRefused);
    CHECK_FALSE(fs::exists(marker));
    for (status::Layer l : {status::Layer::PidNamespace, status::Layer::MountNamespace, status::Layer::NetworkNamespace,
                            status::Layer::IpcNamespace, status::Layer::UtsNamespace}) {
        INFO(status::layer_code(l));
        CHECK(p.protections[l].state == status::LayerState::Refused);
        CHECK(p.protections[l].error == EPERM);
    }
    CHECK_FALSE(p.protections.complete());
}

TEST_CASE("a refusing kernel with only half of the opt-in still runs nothing") {
    for (const auto& [setting, variable] : {std::pair{true, false}, std::pair{false, true}}) {
        WeakSandboxAllowed half(setting, variable);
        const ProcessOutcome p = run_refused({"/bin/true"}, half.handed());
        CHECK(p.status == ProcessOutcome::Status::IsolationRefused);
    }
}

TEST_CASE("the sandbox follows the opt-in its run was handed, not the settings file it never reads") {
    WeakSandboxAllowed allowed;  // both halves written
    // A run whose policy was made before the user opted in (or by code that
    // never read the opt-in): refused, whatever the settings say now.
    CHECK(run_refused({"/bin/true"}).status == ProcessOutcome::Status::IsolationRefused);
    CHECK(run_refused({"/bin/true"}, allowed.handed()).status == ProcessOutcome::Status::Exited);
    // One run's opt-in is not another's: no process-wide switch was left on.
    CHECK(run_refused({"/bin/true"}).status == ProcessOutcome::Status::IsolationRefused);
}

TEST_CASE("with the opt-in, a refusing kernel runs the program: never as root, its inputs readable, the layers reported off") {
    TempDir dir("refused-input");
    const fs::path input = dir.path() / "input.txt";
    std::ofstream(input) << "given to the program";
    fs::permissions(input, fs::perms::owner_read | fs::perms::owner_write);  // the caller's only
    WeakSandboxAllowed allowed;
    const ProcessOutcome p = run_refused({"/bin/sh", "-c", "id -u; cat \"$0\"", input.string()}, allowed.handed());
    INFO(p.err);
    CHECK(p.status == ProcessOutcome::Status::Exited);
    CHECK(p.exit_code == 0);
    CHECK(contains(p.out, "given to the program"));
    CHECK(p.out.rfind("0\n", 0) != 0);  // uid 0 is root
    CHECK(p.program_uid > 0);
    CHECK(p.protections[status::Layer::Identity].state == status::LayerState::Applied);
    CHECK(p.protections[status::Layer::MountNamespace].state == status::LayerState::Refused);
    CHECK_FALSE(p.protections.complete());
    CHECK(contains(protections_notice(p.protections, Lang::En), "ATTNLAB_ALLOW_WEAK_SANDBOX"));
}

TEST_CASE("a folder the program's user cannot enter (weak sandbox, as root) is a set-up problem, never the program's failure") {
    if (getuid() != 0) {
        MESSAGE("skipped: only root hands the program to another user without a private root");
        return;
    }
    TempDir dir("unenterable");
    fs::create_directories(dir.path() / "private" / "work");
    fs::permissions(dir.path() / "private", fs::perms::owner_all);  // nobody cannot traverse it
    WeakSandboxAllowed allowed;
    SandboxPolicy policy = allowed.handed(compiler_policy({}, (dir.path() / "private" / "work").string()));
    const ProcessOutcome p = run_refused({"/bin/true"}, policy);
    INFO(p.err << p.error);
    CHECK(p.status == ProcessOutcome::Status::SetupFailed);
    CHECK(contains(p.error, "cannot enter"));
    ChannelSummary none;
    const ProcessVerdict v = classify(p, none, Limits{});
    CHECK(v.verdict == Verdict::InternalError);
    CHECK(v.problem == Problem::SandboxSetup);
    CheckResult r;
    r.verdict = v.verdict;
    r.problem = v.problem;
    r.detail = v.detail;
    CHECK(contains(problem_text(r, Lang::En), "This is attnlab's set-up, not your code"));
    CHECK(contains(problem_text(r, Lang::Id), "bukan kodemu"));
}

TEST_CASE("a check on a refusing kernel stops with what is missing, why, and how to enable it; nothing is compiled or run") {
    RefusingEnv refusing;
    const CheckResult r = refusing.runner.check(split(), kFixtures / "solutions" / "correct.cpp");
    CHECK(r.verdict == Verdict::InternalError);
    CHECK(r.problem == Problem::IsolationUnavailable);
    const std::string en = explain(r, split(), Lang::En);
    INFO(en);
    CHECK(contains(en, "did not run your code"));
    CHECK(contains(en, "private files"));
    CHECK(contains(en, "failed with EPERM"));  // what was observed: the simulated profile refuses unshare
    if (::getuid() == 0) CHECK(contains(en, "Even root may not create namespaces here"));
    // Sysctl advice only for a setting that really is off here (this kernel allows user namespaces).
    const NamespaceSettings here = NamespaceSettings::read();
    if (here.unprivileged_userns_clone.value_or(1) != 0 && here.max_user_namespaces.value_or(1) != 0 &&
        here.apparmor_restrict_unprivileged_userns.value_or(0) == 0)
        CHECK_FALSE(contains(en, "sysctl"));
    CHECK(contains(en, "--security-opt seccomp=unconfined"));
    CHECK(contains(en, "ATTNLAB_ALLOW_WEAK_SANDBOX=1"));
    CHECK(contains(en, "allow_weak_sandbox"));
    const std::string id = explain(r, split(), Lang::Id);
    CHECK(contains(id, "tidak menjalankan kodemu"));
    std::error_code ec;
    CHECK(fs::is_empty(refusing.cache.path() / "bin", ec));  // nothing was compiled
}

TEST_CASE("with the opt-in, a check on a refusing kernel runs and its verdict says which protections were off") {
    WeakSandboxAllowed allowed;
    RefusingEnv refusing;
    const CheckResult r = refusing.runner.check(split(), kFixtures / "solutions" / "correct.cpp");
    INFO(explain(r, split(), Lang::En) << r.compiler_output);
    CHECK(r.verdict == Verdict::Pass);
    CHECK_FALSE(r.protections.complete());
    CHECK(contains(protections_notice(r.protections, Lang::En), "private files"));
}

TEST_CASE("started by root or not, the program is never root and has no capability") {
    if (!isolation_available()) return;
    const ProcessOutcome p = run_shell("test \"$(id -u)\" != 0 && grep -q '^CapEff:[[:space:]]*0000000000000000' /proc/self/status");
    CHECK(p.exit_code == 0);
    CHECK(p.program_uid > 0);
    CHECK(p.protections[status::Layer::Identity].state == status::LayerState::Applied);
}

TEST_CASE("the program gets a minimal environment: nothing of attnlab's") {
    if (!isolation_available()) return;
    setenv("AWS_SECRET_ACCESS_KEY", "attnlab-test-secret", 1);
    const ProcessOutcome p = run_program({"/usr/bin/env"}, learner_policy(ExecutionTarget::Cpu));
    unsetenv("AWS_SECRET_ACCESS_KEY");
    INFO(p.out);
    CHECK_FALSE(contains(p.out, "attnlab-test-secret"));
    CHECK(contains(p.out, "HOME=/scratch\n"));
    CHECK(contains(p.out, "TMPDIR=/scratch\n"));
    CHECK(contains(p.out, "PATH=/usr/local/bin:/usr/bin:/bin\n"));
    CHECK(contains(p.out, "LANG=C.UTF-8\n"));
}

TEST_CASE("SysV shared memory: another program's segment is out of reach, and the program's own die with it") {
    if (!isolation_available()) return;
    const key_t key = static_cast<key_t>(0x41540000 + (getpid() & 0xffff));
    const int host = shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0666);
    REQUIRE(host >= 0);
    char* mem = static_cast<char*>(shmat(host, nullptr, 0));
    REQUIRE(mem != reinterpret_cast<char*>(-1));
    std::strcpy(mem, "the host's own data");
    setenv("ATTNLAB_TEST_SHM_KEY", std::to_string(key).c_str(), 1);
    const CheckResult r = check_fixture("escape_ipc.cpp");
    unsetenv("ATTNLAB_TEST_SHM_KEY");
    CHECK(contains(r.stderr_text, "ipc read: blocked"));
    CHECK(std::string(mem) == "the host's own data");
    for (int i = 1; i <= 3; ++i) CHECK(shmget(key + i, 0, 0) < 0);  // nothing left behind
    shmdt(mem);
    shmctl(host, IPC_RMID, nullptr);
    for (int i = 1; i <= 3; ++i)
        if (const int left = shmget(key + i, 0, 0); left >= 0) shmctl(left, IPC_RMID, nullptr);
}

TEST_CASE("memory is counted for the check as a whole: six forked children cannot hold 720 MB under 256 MB") {
    if (!isolation_available()) return;
    const CheckResult r = env().runner.check(split(), kFixtures / "solutions" / "fork_memory.cpp");
    INFO("verdict: " << verdict_code(r.verdict) << "\n" << r.stderr_text);
    CHECK(r.verdict == Verdict::MemoryLimit);
    CHECK(attnlab::testing::processes_running_files_in(env().cache.path()).empty());
}

TEST_CASE("learner output is inert: escape sequences and carriage returns arrive escaped, tab and newline stay") {
    if (!isolation_available()) return;
    const CheckResult r = check_fixture("terminal_escapes.cpp");
    const std::string all = r.stdout_text + r.stderr_text + explain(r, split(), Lang::En);
    CHECK(all.find('\x1b') == std::string::npos);
    CHECK(all.find('\r') == std::string::npos);
    CHECK(all.find('\x07') == std::string::npos);
    CHECK(all.find("\xc2\x9b") == std::string::npos);
    CHECK(contains(r.stdout_text, "\\x1b[2J\\x1b[H\\x1b[32mPassed (fake)"));
    CHECK(contains(r.stdout_text, "\\r\n\\u009b31mred"));
    CHECK(contains(r.stdout_text, "\tend\n"));
    CHECK(contains(r.stderr_text, "\\x1b[1A"));
}

TEST_CASE("inert_text keeps text, tabs, newlines and UTF-8; escapes every control") {
    CHECK(inert_text("plain √ text\twith tab\n") == "plain √ text\twith tab\n");
    CHECK(inert_text(std::string("a\0b", 3)) == "a\\x00b");
    CHECK(inert_text("\x1b[31m") == "\\x1b[31m");
    CHECK(inert_text("x\ry") == "x\\ry");
    CHECK(inert_text("\x7f") == "\\x7f");
    CHECK(inert_text("\xc2\x9b" "2J") == "\\u009b2J");
    CHECK(inert_text("\xc2\xa0") == "\xc2\xa0");  // a no-break space is text
}

// ---- the compiler runs in the sandbox ---------------------------------------

namespace {

std::string correct_with(const std::string& prefix, const std::string& use) {
    return "#include <attnlab/tensor.hpp>\n#include <cstdio>\nusing namespace attnlab;\n" + prefix +
           "\nTensor split_heads(const Tensor& x, int n_heads) {\n" + use +
           "\n    return x.reshape({x.shape(0), n_heads, -1}).transpose(1, 0, 2).contiguous();\n}\n";
}

// A learner file that embeds `path` in the program with the assembler and prints it.
std::string incbin(const std::string& path) {
    return correct_with("__asm__(\".section .rodata\\n.global attnlab_leak\\nattnlab_leak:\\n.incbin \\\"" + path +
                            "\\\"\\n.byte 0\\n.text\\n\");\nextern \"C\" const char attnlab_leak[];",
                        "    std::fprintf(stderr, \"leak: %s\\n\", attnlab_leak);");
}

CheckResult check_text(const std::string& source) {
    CheckResult r = env().runner.check_source(split(), source, "leak.cpp");
    INFO("verdict: " << verdict_code(r.verdict) << "\ncompiler: " << r.compiler_output << "\nstderr: " << r.stderr_text);
    CHECK(r.verdict != Verdict::Pass);
    CHECK(r.verdict != Verdict::InternalError);
    return r;
}

}  // namespace

TEST_CASE("the compiler runs isolated, as the learner's program does") {
    if (!isolation_available()) return;
    TempDir work("compiler-work");
    const ProcessOutcome p = run_program({"/bin/sh", "-c", "id -u > " + (work.path() / "out").string() + " && test ! -e /root/.bashrc"},
                                         compiler_policy({}, work.path().string()));
    INFO(p.err);
    CHECK(p.exit_code == 0);
    CHECK(p.program_uid > 0);
    for (status::Layer l : status::kLayers) CHECK(p.protections[l].state == status::LayerState::Applied);
    CHECK(slurp_text(work.path() / "out") != "0\n");
    struct stat st;
    REQUIRE(::stat((work.path() / "out").c_str(), &st) == 0);
    CHECK(st.st_uid == ::getuid());  // handed back to attnlab's user after the run
}

TEST_CASE("the compiler cannot embed /etc/shadow with .incbin") {
    if (!isolation_available()) return;
    const CheckResult r = check_text(incbin("/etc/shadow"));
    CHECK(r.verdict == Verdict::CompileError);
    CHECK_FALSE(contains(r.stderr_text + r.compiler_output, "root:"));
}

TEST_CASE("the compiler cannot embed or #include a file from the learner's home") {
    if (!isolation_available()) return;
    FakeHome home;
    const fs::path secret = home.path() / "id_rsa";
    std::ofstream(secret) << "attnlab_secret_key_material\n";
    fs::permissions(secret, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
    const CheckResult embedded = check_text(incbin(secret.string()));
    CHECK_FALSE(contains(embedded.stderr_text + embedded.compiler_output, "attnlab_secret_key_material"));
    const CheckResult included = check_text(correct_with("#include \"" + secret.string() + "\"", ""));
    CHECK(included.verdict == Verdict::CompileError);
    CHECK_FALSE(contains(included.compiler_output, "attnlab_secret_key_material"));
}

TEST_CASE("the compiler cannot #include the course's own solution") {
    if (!isolation_available()) return;
    REQUIRE(fs::exists(split().solution_path()));
    const CheckResult r = check_text("#include \"" + fs::absolute(split().solution_path()).string() + "\"\n");
    CHECK(r.verdict == Verdict::CompileError);
}

TEST_CASE("inside: read-only system files, the inputs, three devices, a scratch cwd") {
    if (!isolation_available()) return;
    TempDir dir("isolation-input");
    const fs::path input = dir.path() / "input.txt";
    std::ofstream(input) << "given to the program";
    fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
    fs::permissions(input, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    const std::string script =
        "test \"$(cat \"$0\")\" = 'given to the program' || exit 10\n"
        "test \"$(pwd)\" = \"$TMPDIR\" || exit 11\n"
        "echo x > scratch.txt || exit 12\n"
        "touch /usr/attnlab-escape 2>/dev/null && exit 13\n"
        "test -c /dev/null && test -c /dev/zero && test -c /dev/urandom || exit 14\n"
        "test -e /dev/full && exit 15\n"
        "test -e " + dir.path().string() + " && exit 16\n"
        "test \"$(id -u)\" = 0 && exit 17\n"
        "exit 0\n";
    const ProcessOutcome p = run_program({"/bin/sh", "-c", script, input.string()}, learner_policy(ExecutionTarget::Cpu));
    INFO(p.err);
    CHECK(p.status == ProcessOutcome::Status::Exited);
    CHECK(p.exit_code == 0);
}

TEST_CASE("a runtime's policy adds device nodes, and can lift the address-space limit") {
    if (!isolation_available()) return;
    SandboxPolicy with_device = learner_policy(ExecutionTarget::Cpu);
    with_device.extra_devices = {"/dev/fu?l"};  // a glob, as "/dev/nvidia*" is for CUDA
    CHECK(run_shell("test -c /dev/full", with_device).exit_code == 0);
    CHECK(run_shell("test -e /dev/full").exit_code != 0);

    const SandboxPolicy cuda = learner_policy(ExecutionTarget::Gpu);
    CHECK_FALSE(cuda.address_space_limit);
    ProcessOutcome limited = run_program({"/bin/sh", "-c", "ulimit -v"}, learner_policy(ExecutionTarget::Cpu), 256);
    CHECK(contains(limited.out, "262144"));
    ProcessOutcome unlimited = run_program({"/bin/sh", "-c", "ulimit -v"}, cuda, 256);
    CHECK(contains(unlimited.out, "unlimited"));
}

TEST_CASE("a program in its private root is still found by its file, and gone after a cancel") {
    // The helper the checks above rely on: /proc/PID/exe shows /input/... for
    // an isolated program, so it must match by inode, not by host path.
    TempDir dir("isolation-running");
    const fs::path program = dir.path() / "sleeper";
    fs::copy_file("/bin/sleep", program);
    fs::permissions(dir.path(), fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec);
    std::atomic<bool> cancel{false}, finished{false};
    ProcessOutcome outcome;
    std::thread runner([&] {
        ProcessSpec spec;
        spec.sandbox = env().compiler.toolchain().sandbox.string();
        spec.argv = {program.string(), "600"};
        outcome = run_in_sandbox(spec, nullptr, &cancel);
        finished = true;
    });
    while (attnlab::testing::processes_running_files_in(dir.path()).empty() && !finished)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // the test's own timeout guards a hang
    CHECK_FALSE(attnlab::testing::processes_running_files_in(dir.path()).empty());
    cancel = true;
    runner.join();
    CHECK(outcome.status == ProcessOutcome::Status::Cancelled);
    CHECK(attnlab::testing::processes_running_files_in(dir.path()).empty());
}

TEST_CASE("a hidden path inside a shown tree shows empty (a home under /usr, say)") {
    if (!isolation_available()) return;
    // Any non-empty folder under /usr/share stands for a home inside a shown tree.
    std::string shown;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/usr/share", ec))
        if (e.is_directory(ec) && !fs::is_empty(e.path(), ec)) {
            shown = e.path().string();
            break;
        }
    REQUIRE_FALSE(shown.empty());
    const std::string script = "test -n \"$(ls -A '" + shown + "')\"";
    CHECK(run_shell(script).exit_code == 0);  // shown: it has files
    SandboxPolicy hiding = learner_policy(ExecutionTarget::Cpu);
    hiding.hidden = {shown};
    CHECK(run_shell(script, hiding).exit_code != 0);  // hidden: empty
    CHECK(run_shell("test -d /usr/lib", hiding).exit_code == 0);  // the rest stays
}

TEST_CASE("a learner program sees none of the system's separate debug information") {
    if (!isolation_available()) return;
    // Where the host has some (libc6-dbg...), a CUDA program's first line
    // lookup would read and inflate all of it; the program needs its own lines only.
    std::error_code ec;
    if (!fs::is_directory("/usr/lib/debug", ec) || fs::is_empty("/usr/lib/debug", ec)) {
        MESSAGE("skipped: this host has no /usr/lib/debug to hide");
        return;
    }
    for (ExecutionTarget target : {ExecutionTarget::Cpu, ExecutionTarget::Gpu}) {
        SandboxPolicy policy = learner_policy(target);
        policy.extra_devices.clear();  // no GPU here: only what the policy hides is under test
        CHECK(run_shell("test -z \"$(ls -A /usr/lib/debug)\"", policy).exit_code == 0);
    }
    CHECK(run_shell("test -d /usr/lib/x86_64-linux-gnu || test -d /usr/lib64").exit_code == 0);  // the libraries stay
}

TEST_CASE("NVRTC (the resource report of CUDA files) cannot #include a private file either") {
    if (!isolation_available()) return;
    FakeHome home;
    const fs::path secret = home.path() / "id_rsa";
    std::ofstream(secret) << "attnlab_secret_key_material\n";
    fs::permissions(secret, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
    TempDir work("nvrtc-work");
    const std::string source = "#include \"" + secret.string() + "\"\n__global__ void k(float* x) { x[0] = 1; }\n";
    const ResourceReport r = compile_resources(source, "leak.cu", {}, "sm_90", work.path(), nullptr);
    if (r.status == ResourceReport::Status::Unavailable && !contains(r.log, "cannot")) {
        MESSAGE("skipped: no NVRTC here (" << r.log << ")");
        return;
    }
    INFO(r.log);
    CHECK(r.status == ResourceReport::Status::CompileError);
    CHECK_FALSE(contains(r.log, "attnlab_secret_key_material"));
}
