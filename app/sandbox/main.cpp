// attnlab-sandbox: run one program under limits and leave nothing behind.
//
//   attnlab-sandbox [--cpu SECONDS] [--wall SECONDS] [--mem MB] [--tree-mem MB] [--fsize MB]
//                   [--nproc-margin N] [--status-fd N]
//                   [--isolate [--network] [--allow-missing-layers] [--no-input-map] [--scratch-mb MB]
//                              [--device GLOB]... [--readonly PATH]... [--hide PATH]...
//                              [--bind PATH]... [--bind-rw PATH]...]
//                   -- PROGRAM [ARGS...]
//
// Why a separate process: limits (RLIMIT_CPU, RLIMIT_AS, ...) must be in
// place before the learner's program starts — its static initialisers run
// before any code of ours — and only a process that outlives the program can
// clean up after it. This one becomes a child subreaper, so every descendant
// of the program (a forked child, a daemon that called setsid()) is re-parented
// here when its parent dies and is killed before we report. The parent
// (attnlab's runner) sends SIGTERM to cancel.
//
// The program runs as pid 1's only child in its own PID namespace (pid 1 is
// our "init": when it ends, the kernel kills whatever is left), in a cgroup
// of its own where one can be made (cgroup.cpp). With --isolate (learner
// programs and the compiler) it also gets (isolation.cpp): a private root
// with read-only system paths, no home and no attnlab data, its inputs under
// /input (or its --bind paths), a size-limited /scratch as cwd, HOME and
// TMPDIR, three device nodes, empty network, IPC and UTS namespaces, a
// minimal environment, never root (as root: `nobody`), and a seccomp filter
// (seccomp_filter.cpp). Isolation fails closed: when the kernel refuses a
// layer (or an ATTNLAB_NO_* switch turns one off) the program is not started
// and the report says status=isolation_refused with every layer's state,
// unless the caller passed --allow-missing-layers (the user's opt-in).
//
// The lines on --status-fd are defined in attnlab/common/sandbox_status.hpp.
// Exit code: 0 when a report was written, 2 on a usage error.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <grp.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "attnlab/common/sandbox_status.hpp"
#include "cgroup.hpp"
#include "isolation.hpp"
#include "options.hpp"
#include "process_tree.hpp"
#include "seccomp_filter.hpp"

extern char** environ;

namespace {

using namespace attnlab::sandbox;
namespace status = attnlab::sandbox_status;

// What the child side (init of the namespace, or the program before its
// exec) tells the sandbox, in order, on the report pipe.
struct ChildMessage {
    enum Kind : int { LayerResult = 1, ProgramEnded = 2, IsolationRefused = 3 };
    int kind = 0;
    int layer = 0;  // LayerResult
    status::LayerReport report;
    int wait_status = 0;  // ProgramEnded: how the program ended, as init saw it
    rusage usage{};
};

// What the sandbox tells the child once it is in its cgroup (or not).
struct GoMessage {
    int in_cgroup = 0;
    rlim_t max_processes = 0;  // RLIMIT_NPROC, without a cgroup
};

// Everything the sandbox and its children share about this run.
struct Run {
    Options o;
    sigset_t handled;
    int exec_pipe[2] = {-1, -1};    // the program's exec errno (closed on a successful exec)
    int report_pipe[2] = {-1, -1};  // ChildMessages
    int go_pipe[2] = {-1, -1};      // one GoMessage, before the child does anything
    ProgramIdentity program{};      // who the program runs as
    GoMessage go;
    Protections protections;
    CgroupScope scope;
    std::string staged_dir;  // inputs copied for a program without a private root (opt-in only)
    pid_t sandbox_pid = 0;
    double started = 0;
};

// How the program's run ended, as the sandbox saw it.
struct Ending {
    bool exec_failed = false;
    bool setup_failed = false;  // the program's process could not be prepared (exec_errno says why)
    int exec_errno = 0;
    bool timed_out = false;
    bool cancelled = false;
    bool child_done = false;
    bool init_reported = false;
    bool isolation_refused = false;
    bool memory_exceeded = false;
    long peak_kb = 0;
    int wait_status = 0;
    rusage usage{};
};

double now_seconds() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void write_all(int fd, const void* data, size_t n) {
    ssize_t ignored = write(fd, data, n);  // a pipe write below PIPE_BUF: whole or not at all
    (void)ignored;
}

void send_layer(const Run& r, Layer l) {
    ChildMessage m;
    m.kind = ChildMessage::LayerResult;
    m.layer = static_cast<int>(l);
    m.report = r.protections[l];
    write_all(r.report_pipe[1], &m, sizeof m);
}

bool layer_applied(const Run& r, Layer l) { return r.protections[l].state == status::LayerState::Applied; }

void set_limit(int resource, rlim_t soft, rlim_t hard) {
    rlimit rl{soft, hard};
    setrlimit(resource, &rl);
}

void apply_limits(const Run& r) {
    if (r.go.max_processes > 0 && getuid() != 0) set_limit(RLIMIT_NPROC, r.go.max_processes, r.go.max_processes);
    if (r.o.cpu_seconds > 0) {
        rlim_t soft = static_cast<rlim_t>(r.o.cpu_seconds + 0.999);
        set_limit(RLIMIT_CPU, soft, soft + 1);
    }
    if (r.o.mem_mb > 0) {
        const rlim_t bytes = static_cast<rlim_t>(r.o.mem_mb) << 20;
        set_limit(RLIMIT_AS, bytes, bytes);
        set_limit(RLIMIT_DATA, bytes, bytes);
    }
    if (r.o.fsize_mb > 0) set_limit(RLIMIT_FSIZE, static_cast<rlim_t>(r.o.fsize_mb) << 20, static_cast<rlim_t>(r.o.fsize_mb) << 20);
    set_limit(RLIMIT_CORE, 0, 0);
    if (r.o.nice > 0) setpriority(PRIO_PROCESS, 0, std::min(r.o.nice, 19));  // inherited by all it starts
}

// Started by root, an isolated program always runs as `nobody` (its files are
// in its private root, or copied for it): never as root, with no capability.
// A failure here must not run it as root.
void leave_root(Run& r) {
    if (getuid() != 0 || r.program.uid == 0) return;
    // Where root cannot change identity (a user namespace that maps root
    // alone), the identity layer is refused: may_run() then stops the program
    // unless the user opted in, as for any other missing layer.
    if (setgroups(0, nullptr) != 0 || setresgid(r.program.gid, r.program.gid, r.program.gid) != 0 ||
        setresuid(r.program.uid, r.program.uid, r.program.uid) != 0)
        return;
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // a change of identity clears it
}

// The identity layer: whoever runs the program, it is not root on the host.
void change_identity(Run& r) {
    if (r.protections[Layer::Identity].state == status::LayerState::NotAsked) return;
    leave_root(r);
    // Not root, and (an ordinary user) in a user namespace mapped to itself:
    // exec gives a non-root uid no capability.
    r.protections[Layer::Identity] = {getuid() != 0 && geteuid() != 0 ? status::LayerState::Applied : status::LayerState::Refused,
                                      getuid() != 0 ? 0 : EPERM};
    send_layer(r, Layer::Identity);
}

// Every layer that was asked for is in place (or, before_seccomp, still
// to come), or the user allowed it to be missing.
bool may_run(const Run& r, bool before_seccomp = false) {
    if (r.o.isolation.allow_missing || !r.o.isolation.enabled) return true;  // a trusted tool: its PID namespace is a convenience
    for (Layer l : status::kLayers) {
        if (before_seccomp && (l == Layer::Seccomp || l == Layer::Identity) && layer_pending(r.protections, l)) continue;
        const status::LayerState s = r.protections[l].state;
        if (s == status::LayerState::Refused || s == status::LayerState::DisabledByUser) return false;
    }
    return true;
}

[[noreturn]] void refuse_to_run(const Run& r) {
    ChildMessage m;
    m.kind = ChildMessage::IsolationRefused;
    write_all(r.report_pipe[1], &m, sizeof m);
    _exit(126);
}

// The program's environment: nothing of attnlab's (no secrets, no tokens)
// but what the caller named with --env.
std::vector<std::string> program_environment(const Options& o, const std::string& home) {
    std::string path = "/usr/local/bin:/usr/bin:/bin";
    std::vector<std::string> env = {"PATH=" + path, "LANG=C.UTF-8", "HOME=" + home, "TMPDIR=" + home};
    for (const std::string& name : o.isolation.env)
        if (const char* v = std::getenv(name.c_str()); v && name.find('=') == std::string::npos) env.push_back(name + "=" + v);
    // Test fixtures read their parameters here (never anything secret); a
    // GPU run needs to know which devices it may use.
    for (char** e = environ; *e; ++e)
        if (std::strncmp(*e, "ATTNLAB_TEST_", 13) == 0 || std::strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) == 0) env.emplace_back(*e);
    return env;
}

// The program's process could not be prepared: the sandbox's report says so
// (SetupFailed, with the errno) and the message on stderr says what; never an
// exit code of the program's that a caller could read as its own failure.
[[noreturn]] void setup_failed(const Run& r, int err) {
    const int negated = -err;
    write_all(r.exec_pipe[1], &negated, sizeof negated);
    _exit(126);
}

// Where the program works: its private /scratch; without a private root
// (which only the user's opt-in allows), its writable folder (the
// compiler's), else a folder of its own with copies of its inputs (as
// another user), else the folder it was started in.
std::string prepare_working_folder(Run& r) {
    if (layer_applied(r, Layer::MountNamespace)) return kScratchDir;
    if (!r.o.isolation.writable.empty()) return r.o.isolation.writable.front();
    const bool foreign = r.o.isolation.enabled && getuid() == 0 && r.program.uid != 0;
    if (foreign && r.o.isolation.allow_missing && r.o.isolation.map_inputs) {
        // In a user namespace that maps root alone the other user does not
        // exist here: the identity layer is refused too (leave_root), and the
        // program keeps root's view of its inputs, as the opt-in allowed.
        if (stage_inputs_on_host(r.staged_dir, r.program, r.o.argv) == 0) return r.staged_dir + "/scratch";
        if (errno != EINVAL) {
            const int err = errno;
            std::perror("attnlab-sandbox: cannot copy the program's inputs");
            setup_failed(r, err);
        }
    }
    char cwd[4096];
    return getcwd(cwd, sizeof cwd) ? cwd : "/";
}

// Identity, seccomp, descriptors, limits, exec: the program's own process.
[[noreturn]] void become_program(Run& r) {
    setpgid(0, 0);
    sigprocmask(SIG_UNBLOCK, &r.handled, nullptr);
    signal(SIGPIPE, SIG_DFL);
    if (r.o.isolation.enabled) {
        // Whatever the OOM killer must end, it ends the learner's code first.
        const int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            const std::string adj = std::to_string(status::kProgramOomScoreAdj);
            write_all(fd, adj.data(), adj.size());
            close(fd);
        }
    }
    // Fail closed before anything of the program's is touched.
    if (!may_run(r, true)) refuse_to_run(r);
    const std::string home = prepare_working_folder(r);
    change_identity(r);
    if (r.o.isolation.enabled && chdir(home.c_str()) != 0) {
        // Only without a private root (the user's opt-in): its folder is out of the program user's reach.
        const int err = errno;
        std::fprintf(stderr, "attnlab-sandbox: uid %ld cannot enter %s (%s): without a private root, attnlab's folders must be reachable by it\n",
                     static_cast<long>(getuid()), home.c_str(), std::strerror(err));
        setup_failed(r, err);
    }
    if (layer_pending(r.protections, Layer::Seccomp)) {
        const int err = install_seccomp_filter(r.o.isolation.unix_sockets ? SocketFamilies::UnixOnly : SocketFamilies::None);
        r.protections[Layer::Seccomp] = {err ? status::LayerState::Refused : status::LayerState::Applied, err};
        send_layer(r, Layer::Seccomp);
    }
    if (!may_run(r)) refuse_to_run(r);
    std::vector<std::string> env_text;
    std::vector<char*> env;
    if (r.o.isolation.enabled) {
        env_text = program_environment(r.o, home);
        for (std::string& e : env_text) env.push_back(e.data());
    }
    env.push_back(nullptr);
    // Only stdin/stdout/stderr and the result channel (fd 3) go to the
    // program: nothing else attnlab had open may leak into learner code.
    const unsigned keep = static_cast<unsigned>(r.exec_pipe[1]);  // reports a failed exec; closes on exec
    if (keep > 4) close_range(4, keep - 1, 0);
    close_range(keep + 1, ~0U, 0);
    apply_limits(r);
    execve(r.o.argv[0], r.o.argv.data(), r.o.isolation.enabled ? env.data() : environ);
    const int err = errno;
    write_all(r.exec_pipe[1], &err, sizeof err);
    _exit(127);
}

// The namespaces set up by the process whose children (or itself, after
// exec) will be the program.
void enter_layers(Run& r) {
    enter_namespaces(r.o, r.program, r.o.argv, r.protections);
    for (Layer l : {Layer::MountNamespace, Layer::NetworkNamespace, Layer::IpcNamespace, Layer::UtsNamespace}) send_layer(r, l);
}

// Waits for the sandbox to put this process in the run's cgroup (or not).
void wait_for_go(Run& r) {
    close(r.go_pipe[1]);
    GoMessage go;
    if (read(r.go_pipe[0], &go, sizeof go) != static_cast<ssize_t>(sizeof go)) _exit(126);  // the sandbox is gone
    close(r.go_pipe[0]);
    r.go = go;
}

// pid 1 of the program's PID namespace (getppid() is 0 from inside).
[[noreturn]] void run_namespace_init(Run& r) {
    setpgid(0, 0);
    close(r.report_pipe[0]);
    enter_layers(r);
    const pid_t program = fork();
    if (program < 0) _exit(126);
    if (program == 0) become_program(r);
    close(r.exec_pipe[1]);
    ChildMessage end;
    end.kind = ChildMessage::ProgramEnded;
    while (wait4(program, &end.wait_status, 0, &end.usage) < 0 && errno == EINTR) {
    }
    write_all(r.report_pipe[1], &end, sizeof end);
    _exit(0);  // the kernel now kills whatever the program left running
}

[[noreturn]] void run_child(Run& r) {
    // If we (the sandbox) are killed — by the program, say — the kernel
    // kills this child too, and with it, as init, the whole namespace.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    wait_for_go(r);
    if (layer_applied(r, Layer::PidNamespace)) run_namespace_init(r);
    if (getppid() != r.sandbox_pid) _exit(127);
    close(r.report_pipe[0]);
    enter_layers(r);
    become_program(r);
}

// Without a cgroup, the run's memory as a whole is the sum over its
// processes, sampled: over the limit, everything is stopped.
bool over_memory(const Run& r, Ending& e) {
    if (r.go.in_cgroup || r.o.tree_mem_mb <= 0) return false;
    const long kb = descendants_rss_kb();
    e.peak_kb = std::max(e.peak_kb, kb);
    return kb > (r.o.tree_mem_mb << 10);
}

// Waits until the program has ended, the wall limit passed, its memory went
// over the limit, or we are told to stop; reaps whatever ended meanwhile.
void supervise(Run& r, pid_t child, Ending& e) {
    const bool sampling = !r.go.in_cgroup && r.o.tree_mem_mb > 0;
    const long tick_ns = sampling ? 10 * 1000 * 1000 : 200 * 1000 * 1000;
    while (!e.child_done && !e.cancelled) {
        timespec timeout{0, tick_ns};
        if (r.o.wall_seconds > 0) {
            const double left = r.o.wall_seconds - (now_seconds() - r.started);
            if (left <= 0) {
                e.timed_out = true;
                return;
            }
            if (left * 1e9 < tick_ns) timeout = {0, static_cast<long>(left * 1e9)};
        }
        siginfo_t info;
        const int sig = sigtimedwait(&r.handled, &info, &timeout);
        if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
            e.cancelled = true;
            return;
        }
        // SIGCHLD, or a periodic wake-up: reap whatever ended.
        pid_t p;
        int st;
        rusage ru;
        while ((p = wait4(-1, &st, WNOHANG, &ru)) > 0) {
            if (p == child) {
                e.wait_status = st;
                e.usage = ru;
                e.child_done = true;
            }
        }
        if (!e.child_done && over_memory(r, e)) {
            e.memory_exceeded = true;
            return;
        }
    }
}

// After every process is gone: the layers the child side set up, and the
// program's own end as init saw it (absent when init was killed).
void collect_child_messages(Run& r, Ending& e) {
    ChildMessage m;
    while (read(r.report_pipe[0], &m, sizeof m) == static_cast<ssize_t>(sizeof m)) {
        if (m.kind == ChildMessage::LayerResult && m.layer >= 0 && m.layer < status::kLayerCount) {
            r.protections.layers[static_cast<size_t>(m.layer)] = m.report;
        } else if (m.kind == ChildMessage::ProgramEnded) {
            e.wait_status = m.wait_status;
            e.usage = m.usage;
            e.init_reported = true;
        } else if (m.kind == ChildMessage::IsolationRefused) {
            e.isolation_refused = true;
        }
    }
    close(r.report_pipe[0]);
    // Init ended without telling how the program did: it was killed (from
    // outside the namespace), or could not set the program up (exit 126/127,
    // reported as is).
    const bool init_silent_exit_0 = WIFEXITED(e.wait_status) && WEXITSTATUS(e.wait_status) == 0;
    if (layer_applied(r, Layer::PidNamespace) && !e.init_reported && e.child_done && !e.timed_out && !e.cancelled && init_silent_exit_0)
        e.wait_status = W_EXITCODE(0, SIGKILL);
}

status::Report make_report(const Run& r, const Ending& e) {
    status::Report rep;
    rusage usage = e.usage;
    // The program itself was killed by us: its rusage is lost with the reap,
    // so report our children's totals instead.
    if (!e.child_done) getrusage(RUSAGE_CHILDREN, &usage);
    rep.cpu_ms = usage.ru_utime.tv_sec * 1000 + usage.ru_utime.tv_usec / 1000 + usage.ru_stime.tv_sec * 1000 + usage.ru_stime.tv_usec / 1000;
    rep.wall_ms = static_cast<long>((now_seconds() - r.started) * 1000);
    rep.maxrss_kb = usage.ru_maxrss;
    rep.peak_kb = e.peak_kb;
    rep.uid = static_cast<long>(r.program.uid);
    rep.accounting = r.go.in_cgroup ? status::Accounting::Cgroup : status::Accounting::Fallback;
    rep.protections = r.protections;
    if (e.isolation_refused) {
        rep.status = status::RunStatus::IsolationRefused;
    } else if (e.setup_failed) {
        rep.status = status::RunStatus::SetupFailed;
        rep.code = e.exec_errno;
    } else if (e.exec_failed) {
        rep.status = status::RunStatus::ExecFailed;
        rep.code = e.exec_errno;
    } else if (e.cancelled) {
        rep.status = status::RunStatus::Cancelled;
    } else if (e.memory_exceeded) {
        rep.status = status::RunStatus::MemoryLimit;
    } else if (e.timed_out) {
        rep.status = status::RunStatus::WallTimeout;
    } else if (WIFSIGNALED(e.wait_status)) {
        rep.status = status::RunStatus::Signaled;
        rep.signal = WTERMSIG(e.wait_status);
    } else {
        rep.code = WEXITSTATUS(e.wait_status);
    }
    return rep;
}

// Signals handled synchronously (sigtimedwait), the subreaper role, the
// run's cgroup, before anything is started.
bool prepare(Run& r) {
    r.started = now_seconds();
    r.sandbox_pid = getpid();
    // Hold nothing we were not meant to: only 0-2 and the status fd matter.
    if (r.o.status_fd >= 0 && r.o.status_fd != 3) close_range(r.o.status_fd + 1, ~0U, 0);
    sigemptyset(&r.handled);
    for (int sig : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) sigaddset(&r.handled, sig);
    sigprocmask(SIG_BLOCK, &r.handled, nullptr);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // attnlab died: clean up, don't linger
    r.program = getuid() == 0 && r.o.isolation.enabled ? unprivileged_identity() : ProgramIdentity{getuid(), getgid()};
    r.staged_dir = "/tmp/attnlab-sandbox-" + std::to_string(getpid()) + "-" + std::to_string(static_cast<long>(now_seconds() * 1e6) % 1000000);
    if (r.o.tree_mem_mb > 0 || r.o.nproc_margin > 0)
        r.scope = create_scope(r.o.tree_mem_mb, r.o.nproc_margin > 0 ? r.o.nproc_margin + 8 : 0);
    hand_over_writable(r.o, r.program);
    return pipe2(r.exec_pipe, O_CLOEXEC) == 0 && pipe2(r.report_pipe, O_CLOEXEC) == 0 && pipe2(r.go_pipe, O_CLOEXEC) == 0;
}

// The child is in its cgroup (or, where none could be made, the fallback's
// process limit is worked out); then it may start.
void let_child_go(Run& r, pid_t child) {
    GoMessage go;
    go.in_cgroup = move_into_scope(r.scope, child) ? 1 : 0;
    if (!go.in_cgroup && !r.scope.path.empty()) {
        end_scope(r.scope);
        r.scope = {};
    }
    // Bound the number of processes (a fork loop in learner code must not
    // freeze the desktop). Without a cgroup, RLIMIT_NPROC counts every thread
    // of the user, so the limit is what that user runs now plus a smaller
    // margin. It does not bind root, who never runs learner code.
    if (!go.in_cgroup && r.o.nproc_margin > 0 && r.program.uid != 0)
        go.max_processes = static_cast<rlim_t>(count_user_threads(r.program.uid) + static_cast<size_t>(std::min(r.o.nproc_margin, status::kFallbackProcessMargin)));
    r.go = go;
    close(r.go_pipe[0]);
    write_all(r.go_pipe[1], &go, sizeof go);
    close(r.go_pipe[1]);
}

void write_status(const Run& r, const std::string& text) {
    if (r.o.status_fd >= 0) write_all(r.o.status_fd, text.data(), text.size());
    else std::fputs(text.c_str(), stderr);
}

}  // namespace

int main(int argc, char** argv) {
    Run r;
    if (!parse_options(argc, argv, r.o)) {
        std::fputs(usage_text(), stderr);
        return 2;
    }
    const pid_t original_parent = getppid();
    if (!prepare(r)) return 3;
    Ending e;
    e.cancelled = getppid() != original_parent;
    enter_user_and_pid_namespaces(r.o, r.protections);

    const pid_t child = fork();
    if (child < 0) {
        std::perror("attnlab-sandbox: fork");
        return 3;
    }
    if (child == 0) run_child(r);
    close(r.report_pipe[1]);
    let_child_go(r, child);
    setpgid(child, child);  // also done in the child: whichever runs first wins
    // The program's process group, for the parent to kill if this sandbox
    // itself dies before its final report.
    if (r.o.status_fd >= 0) write_status(r, status::encode_started(child));
    close(r.exec_pipe[1]);
    e.exec_failed = read(r.exec_pipe[0], &e.exec_errno, sizeof e.exec_errno) == static_cast<ssize_t>(sizeof e.exec_errno);
    if (e.exec_failed && e.exec_errno < 0) {  // setup_failed() sends the errno negated
        e.setup_failed = true;
        e.exec_errno = -e.exec_errno;
    }
    close(r.exec_pipe[0]);

    supervise(r, child, e);
    kill_scope(r.scope);
    kill_all_descendants(child);
    collect_child_messages(r, e);
    const ScopeUsage usage = end_scope(r.scope);
    if (usage.oom_kills > 0 && !e.cancelled) e.memory_exceeded = true;
    if (usage.peak_kb > 0) e.peak_kb = usage.peak_kb;
    take_back_writable(r.o, r.program);
    remove_tree(r.staged_dir);
    write_status(r, status::encode_report(make_report(r, e)));
    return 0;
}
