// attnlab-sandbox: run one program under limits and leave nothing behind.
//
//   attnlab-sandbox [--cpu SECONDS] [--wall SECONDS] [--mem MB] [--fsize MB]
//                   [--nproc-margin N] [--status-fd N]
//                   [--isolate [--network] [--scratch-mb MB] [--device GLOB]...
//                              [--readonly PATH]... [--hide PATH]...]
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
// our "init": when it ends, the kernel kills whatever is left). With
// --isolate (learner programs) it also gets (isolation.cpp): a private root
// with read-only system paths, no home and no attnlab data, its inputs under
// /input, a size-limited /scratch as cwd and TMPDIR, three device nodes, an
// empty network namespace, not root; and a seccomp filter (seccomp_filter.cpp).
// Each layer the kernel refuses is skipped and reported.
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

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "attnlab/common/sandbox_status.hpp"
#include "isolation.hpp"
#include "options.hpp"
#include "process_tree.hpp"
#include "seccomp_filter.hpp"

namespace {

using namespace attnlab::sandbox;
namespace status = attnlab::sandbox_status;

// What the child side (init of the namespace, or the program before its
// exec) tells the sandbox, in order, on the report pipe.
struct ChildMessage {
    enum Kind : int { LayerResult = 1, ProgramEnded = 2 };
    int kind = 0;
    int layer = 0;  // LayerResult
    status::LayerReport report;
    int wait_status = 0;  // ProgramEnded: how the program ended, as init saw it
    rusage usage{};
};

// Everything the sandbox and its children share about this run.
struct Run {
    Options o;
    sigset_t handled;
    int exec_pipe[2] = {-1, -1};    // the program's exec errno (closed on a successful exec)
    int report_pipe[2] = {-1, -1};  // ChildMessages
    ProgramIdentity program{};      // who the program runs as, with a private root
    rlim_t max_processes = 0;
    Protections protections;
    pid_t sandbox_pid = 0;
    double started = 0;
};

// How the program's run ended, as the sandbox saw it.
struct Ending {
    bool exec_failed = false;
    int exec_errno = 0;
    bool timed_out = false;
    bool cancelled = false;
    bool child_done = false;
    bool init_reported = false;
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
bool layer_pending(const Run& r, Layer l) {
    return r.protections[l].state == status::LayerState::Refused && r.protections[l].error == 0;
}

void set_limit(int resource, rlim_t soft, rlim_t hard) {
    rlimit rl{soft, hard};
    setrlimit(resource, &rl);
}

void apply_limits(const Run& r) {
    if (r.max_processes > 0 && getuid() != 0) set_limit(RLIMIT_NPROC, r.max_processes, r.max_processes);
    if (r.o.cpu_seconds > 0) {
        rlim_t soft = static_cast<rlim_t>(r.o.cpu_seconds + 0.999);
        set_limit(RLIMIT_CPU, soft, soft + 1);
    }
    if (r.o.mem_mb > 0) set_limit(RLIMIT_AS, static_cast<rlim_t>(r.o.mem_mb) << 20, static_cast<rlim_t>(r.o.mem_mb) << 20);
    if (r.o.fsize_mb > 0) set_limit(RLIMIT_FSIZE, static_cast<rlim_t>(r.o.fsize_mb) << 20, static_cast<rlim_t>(r.o.fsize_mb) << 20);
    set_limit(RLIMIT_CORE, 0, 0);
}

// In its private root, the program needs no right on the host's files: as
// root, it runs as `nobody`. A failure here must not run it as root.
void leave_root(const Run& r) {
    if (getuid() != 0 || r.program.uid == 0) return;
    if (setgroups(0, nullptr) != 0 || setresgid(r.program.gid, r.program.gid, r.program.gid) != 0 ||
        setresuid(r.program.uid, r.program.uid, r.program.uid) != 0) {
        std::perror("attnlab-sandbox: cannot give up root");
        _exit(126);
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // a change of identity clears it
}

// Identity, seccomp, descriptors, limits, exec: the program's own process.
[[noreturn]] void become_program(Run& r) {
    setpgid(0, 0);
    sigprocmask(SIG_UNBLOCK, &r.handled, nullptr);
    signal(SIGPIPE, SIG_DFL);
    if (layer_applied(r, Layer::MountNamespace)) {
        leave_root(r);
        if (chdir(kScratchDir) != 0) _exit(126);
        setenv("TMPDIR", kScratchDir, 1);
    }
    if (layer_pending(r, Layer::Seccomp)) {
        const int err = install_seccomp_filter();
        r.protections[Layer::Seccomp] = {err ? status::LayerState::Refused : status::LayerState::Applied, err};
        send_layer(r, Layer::Seccomp);
    }
    // Only stdin/stdout/stderr and the result channel (fd 3) go to the
    // program: nothing else attnlab had open may leak into learner code.
    const unsigned keep = static_cast<unsigned>(r.exec_pipe[1]);  // reports a failed exec; closes on exec
    if (keep > 4) close_range(4, keep - 1, 0);
    close_range(keep + 1, ~0U, 0);
    apply_limits(r);
    execv(r.o.argv[0], r.o.argv.data());
    const int err = errno;
    write_all(r.exec_pipe[1], &err, sizeof err);
    _exit(127);
}

// The mount and network layers, set up by the process whose children (or
// itself, after exec) will be the program.
void enter_layers(Run& r) {
    enter_private_root(r.o, r.program, r.o.argv, r.protections);
    send_layer(r, Layer::MountNamespace);
    send_layer(r, Layer::NetworkNamespace);
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
    if (layer_applied(r, Layer::PidNamespace)) run_namespace_init(r);
    if (getppid() != r.sandbox_pid) _exit(127);
    close(r.report_pipe[0]);
    enter_layers(r);
    become_program(r);
}

// Waits until the program has ended, the wall limit passed, or we are told
// to stop; reaps whatever ended meanwhile.
void supervise(Run& r, pid_t child, Ending& e) {
    while (!e.child_done && !e.cancelled) {
        timespec timeout{0, 200 * 1000 * 1000};
        if (r.o.wall_seconds > 0) {
            const double left = r.o.wall_seconds - (now_seconds() - r.started);
            if (left <= 0) {
                e.timed_out = true;
                return;
            }
            if (left < 0.2) timeout = {0, static_cast<long>(left * 1e9)};
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
    rep.protections = r.protections;
    if (e.exec_failed) {
        rep.status = status::RunStatus::ExecFailed;
        rep.code = e.exec_errno;
    } else if (e.cancelled) {
        rep.status = status::RunStatus::Cancelled;
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

// Signals handled synchronously (sigtimedwait), the subreaper role, and the
// process limit, before anything is started.
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
    // Bound the number of processes (a fork loop in learner code must not
    // freeze the desktop). RLIMIT_NPROC counts every thread of the user, so
    // the limit is what that user runs now plus a margin. Asked for learner
    // programs only (the compiler needs none). It does not bind root; the
    // wall-time limit and the tree kill below still do.
    if (r.o.nproc_margin > 0 && r.program.uid != 0)
        r.max_processes = static_cast<rlim_t>(count_user_threads(r.program.uid) + static_cast<size_t>(r.o.nproc_margin));
    return pipe2(r.exec_pipe, O_CLOEXEC) == 0 && pipe2(r.report_pipe, O_CLOEXEC) == 0;
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
    setpgid(child, child);  // also done in the child: whichever runs first wins
    // The program's process group, for the parent to kill if this sandbox
    // itself dies before its final report.
    if (r.o.status_fd >= 0) write_status(r, status::encode_started(child));
    close(r.exec_pipe[1]);
    e.exec_failed = read(r.exec_pipe[0], &e.exec_errno, sizeof e.exec_errno) == static_cast<ssize_t>(sizeof e.exec_errno);
    close(r.exec_pipe[0]);

    supervise(r, child, e);
    kill_all_descendants(child);
    collect_child_messages(r, e);
    write_status(r, status::encode_report(make_report(r, e)));
    return 0;
}
