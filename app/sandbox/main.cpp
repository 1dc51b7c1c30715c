// attnlab-sandbox: run one program under limits and leave nothing behind.
//
//   attnlab-sandbox [--cpu SECONDS] [--wall SECONDS] [--mem MB] [--fsize MB]
//                   [--nproc-margin N] [--status-fd N] -- PROGRAM [ARGS...]
//
// Why a separate process: limits (RLIMIT_CPU, RLIMIT_AS, ...) must be in
// place before the learner's program starts — its static initialisers run
// before any code of ours — and only a process that outlives the program can
// clean up after it. This one becomes a child subreaper, so every descendant
// of the program (a forked child, a daemon that called setsid()) is re-parented
// here when its parent dies and is killed before we report. The parent
// (attnlab's runner) sends SIGTERM to cancel.
//
// First a line with the program's process group, "pgid=1234"; then the final
// report, one line on --status-fd:
//   status=exited code=0 signal=0 cpu_ms=12 wall_ms=40 maxrss_kb=3120
// status is one of exited, signaled, wall_timeout, cancelled, exec_failed.
// Exit code: 0 when a report was written, 2 on a usage error.
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Options {
    double cpu_seconds = 0;   // 0 = no limit
    double wall_seconds = 0;  // 0 = no limit
    long mem_mb = 0;
    long fsize_mb = 64;
    long nproc_margin = 0;  // > 0 and not root: RLIMIT_NPROC = the user's threads now + this
    int status_fd = -1;
    std::vector<char*> argv;
};

bool parse(int argc, char** argv, Options& o) {
    int i = 1;
    for (; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (i + 1 >= argc) return false;
        const char* v = argv[++i];
        if (a == "--cpu") o.cpu_seconds = std::atof(v);
        else if (a == "--wall") o.wall_seconds = std::atof(v);
        else if (a == "--mem") o.mem_mb = std::atol(v);
        else if (a == "--fsize") o.fsize_mb = std::atol(v);
        else if (a == "--nproc-margin") o.nproc_margin = std::atol(v);
        else if (a == "--status-fd") o.status_fd = std::atoi(v);
        else return false;
    }
    for (; i < argc; ++i) o.argv.push_back(argv[i]);
    o.argv.push_back(nullptr);
    return o.argv.size() > 1;
}

double now_seconds() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void set_limit(int resource, rlim_t soft, rlim_t hard) {
    rlimit rl{soft, hard};
    setrlimit(resource, &rl);
}

// Direct children of this process, read from /proc (our subreaper role makes
// every orphaned descendant one of them sooner or later).
std::vector<pid_t> direct_children() {
    std::vector<pid_t> kids;
    const pid_t self = getpid();
    DIR* d = opendir("/proc");
    if (!d) return kids;
    while (dirent* e = readdir(d)) {
        char* end = nullptr;
        long pid = std::strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0) continue;
        char path[64];
        std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE* f = std::fopen(path, "r");
        if (!f) continue;
        char buf[512];
        size_t n = std::fread(buf, 1, sizeof buf - 1, f);
        std::fclose(f);
        buf[n] = '\0';
        // Format: pid (comm) state ppid ... ; comm may contain spaces and ')'.
        char* close = std::strrchr(buf, ')');
        if (!close) continue;
        char state = 0;
        long ppid = 0;
        if (std::sscanf(close + 1, " %c %ld", &state, &ppid) == 2 && ppid == self) kids.push_back(static_cast<pid_t>(pid));
    }
    closedir(d);
    return kids;
}

bool write_text(const char* path, const std::string& text) {
    const int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    return ok;
}

// Puts our next child in a new PID namespace, where it is init: when it
// exits or is killed, the kernel kills every process left in the namespace,
// including ones that setsid()'d and double-forked away from us. As root a
// PID namespace alone will do; other users need a user namespace too, in
// which they keep their own uid and gid (so the program is not root there).
// False when the kernel or the container refuses (we then rely on the
// subreaper tree kill alone).
bool enter_pid_namespace() {
    if (std::getenv("ATTNLAB_NO_PIDNS")) return false;
    if (getuid() == 0) return unshare(CLONE_NEWPID) == 0;
    const uid_t uid = getuid();
    const gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0) return false;
    write_text("/proc/self/setgroups", "deny");
    return write_text("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n") &&
           write_text("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n");
}

// What init reports about the program when it ends.
struct ProgramEnd {
    int wait_status = 0;
    rusage usage{};
};

// RLIMIT_NPROC is checked against every thread of the user, so count threads.
size_t count_user_threads(uid_t uid) {
    size_t n = 0;
    DIR* d = opendir("/proc");
    if (!d) return 0;
    while (dirent* e = readdir(d)) {
        char* end = nullptr;
        long pid = std::strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0) continue;
        const std::string path = std::string("/proc/") + e->d_name + "/status";
        FILE* f = std::fopen(path.c_str(), "r");
        if (!f) continue;
        char line[256];
        long owner = -1, threads = 0;
        while (std::fgets(line, sizeof line, f)) {
            if (std::strncmp(line, "Uid:", 4) == 0) owner = std::strtol(line + 4, nullptr, 10);
            else if (std::strncmp(line, "Threads:", 8) == 0) threads = std::strtol(line + 8, nullptr, 10);
        }
        std::fclose(f);
        if (owner == static_cast<long>(uid)) n += static_cast<size_t>(std::max(threads, 1L));
    }
    closedir(d);
    return n;
}

// Kill and reap every descendant. Bounded: each round kills all current
// children; their own children are re-parented to us for the next round.
void kill_all_descendants(pid_t group) {
    if (group > 0) kill(-group, SIGKILL);
    for (int round = 0; round < 10000; ++round) {
        int st;
        while (waitpid(-1, &st, WNOHANG) > 0) {
        }
        std::vector<pid_t> kids = direct_children();
        if (kids.empty()) {
            if (waitpid(-1, &st, WNOHANG) < 0 && errno == ECHILD) return;
            usleep(1000);
            continue;
        }
        for (pid_t k : kids) kill(k, SIGKILL);
        usleep(200);
    }
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse(argc, argv, o)) {
        std::fprintf(stderr,
                     "usage: attnlab-sandbox [--cpu S] [--wall S] [--mem MB] [--fsize MB] [--nproc-margin N] [--status-fd N] -- PROGRAM [ARGS...]\n");
        return 2;
    }
    const double started = now_seconds();
    const pid_t original_parent = getppid();
    // Hold nothing we were not meant to: only 0-2 and the status fd matter.
    if (o.status_fd >= 0 && o.status_fd != 3) close_range(o.status_fd + 1, ~0U, 0);

    // Signals we handle synchronously with sigtimedwait.
    sigset_t handled;
    sigemptyset(&handled);
    sigaddset(&handled, SIGCHLD);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGHUP);
    sigprocmask(SIG_BLOCK, &handled, nullptr);

    prctl(PR_SET_CHILD_SUBREAPER, 1);
    prctl(PR_SET_PDEATHSIG, SIGTERM);  // attnlab died: clean up, don't linger
    bool cancelled = getppid() != original_parent;

    // Not root: bound the number of processes (a fork loop in learner code
    // must not freeze the desktop). RLIMIT_NPROC counts every thread of the
    // user, so the limit is what the user runs now plus a margin. Asked for
    // learner programs only (the compiler needs none). As root it does not
    // apply; the wall-time limit and the tree kill below still do.
    rlim_t max_processes = 0;
    if (getuid() != 0 && o.nproc_margin > 0) max_processes = static_cast<rlim_t>(count_user_threads(getuid()) + o.nproc_margin);
    const pid_t sandbox_pid = getpid();

    // A pipe that tells us whether exec succeeded (closed on exec, written on failure).
    int exec_pipe[2];
    if (pipe2(exec_pipe, O_CLOEXEC) != 0) return 3;

    // init (in the namespace) tells us how the program ended, with its rusage.
    int report_pipe[2];
    if (pipe2(report_pipe, O_CLOEXEC) != 0) return 3;
    const bool pid_namespace = enter_pid_namespace();

    // Limits, descriptors, exec: the program's own process.
    auto become_program = [&]() {
        setpgid(0, 0);
        sigprocmask(SIG_UNBLOCK, &handled, nullptr);
        signal(SIGPIPE, SIG_DFL);
        // Only stdin/stdout/stderr and the result channel (fd 3) go to the
        // program: nothing else attnlab had open may leak into learner code.
        const unsigned keep = static_cast<unsigned>(exec_pipe[1]);  // reports a failed exec; closes on exec
        if (keep > 4) close_range(4, keep - 1, 0);
        close_range(keep + 1, ~0U, 0);
        if (max_processes > 0) set_limit(RLIMIT_NPROC, max_processes, max_processes);
        if (o.cpu_seconds > 0) {
            rlim_t soft = static_cast<rlim_t>(o.cpu_seconds + 0.999);
            set_limit(RLIMIT_CPU, soft, soft + 1);
        }
        if (o.mem_mb > 0) {
            rlim_t bytes = static_cast<rlim_t>(o.mem_mb) << 20;
            set_limit(RLIMIT_AS, bytes, bytes);
        }
        if (o.fsize_mb > 0) {
            rlim_t bytes = static_cast<rlim_t>(o.fsize_mb) << 20;
            set_limit(RLIMIT_FSIZE, bytes, bytes);
        }
        set_limit(RLIMIT_CORE, 0, 0);
        execv(o.argv[0], o.argv.data());
        int err = errno;
        ssize_t ignored = write(exec_pipe[1], &err, sizeof err);
        (void)ignored;
        _exit(127);
    };

    pid_t child = fork();
    if (child < 0) {
        std::perror("attnlab-sandbox: fork");
        return 3;
    }
    if (child == 0) {
        // If we (the sandbox) are killed — by the program, say — the kernel
        // kills this child too, and with it, as init, the whole namespace.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (!pid_namespace) {
            if (getppid() != sandbox_pid) _exit(127);
            become_program();
        }
        // init of the namespace (pid 1 there; getppid() is 0 from inside).
        setpgid(0, 0);
        close(report_pipe[0]);
        const pid_t program = fork();
        if (program < 0) _exit(126);
        if (program == 0) {
            close(report_pipe[1]);
            become_program();
        }
        close(exec_pipe[1]);
        ProgramEnd end;
        while (wait4(program, &end.wait_status, 0, &end.usage) < 0 && errno == EINTR) {
        }
        ssize_t ignored = write(report_pipe[1], &end, sizeof end);
        (void)ignored;
        _exit(0);  // the kernel now kills whatever the program left running
    }
    close(report_pipe[1]);
    setpgid(child, child);  // also done in the child: whichever runs first wins
    if (o.status_fd >= 0) {
        // Early line: the program's process group, for the parent to kill if
        // this sandbox itself dies before its final report.
        char line[64];
        const int n = std::snprintf(line, sizeof line, "pgid=%d\n", static_cast<int>(child));
        ssize_t ignored = write(o.status_fd, line, static_cast<size_t>(n));
        (void)ignored;
    }
    close(exec_pipe[1]);
    int exec_errno = 0;
    bool exec_failed = read(exec_pipe[0], &exec_errno, sizeof exec_errno) == static_cast<ssize_t>(sizeof exec_errno);
    close(exec_pipe[0]);

    bool timed_out = false;
    int wait_status = 0;
    rusage usage{};
    bool child_done = false;
    while (!child_done) {
        if (cancelled) break;
        timespec timeout{0, 200 * 1000 * 1000};
        if (o.wall_seconds > 0) {
            double left = o.wall_seconds - (now_seconds() - started);
            if (left <= 0) {
                timed_out = true;
                break;
            }
            if (left < 0.2) timeout = {0, static_cast<long>(left * 1e9)};
        }
        siginfo_t info;
        int sig = sigtimedwait(&handled, &info, &timeout);
        if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
            cancelled = true;
            break;
        }
        // SIGCHLD, or a periodic wake-up: reap whatever ended.
        pid_t p;
        int st;
        rusage ru;
        while ((p = wait4(-1, &st, WNOHANG, &ru)) > 0) {
            if (p == child) {
                wait_status = st;
                usage = ru;
                child_done = true;
            }
        }
    }
    kill_all_descendants(child);
    if (pid_namespace) {
        // The program's own end, as init saw it (absent when we killed init).
        ProgramEnd end;
        if (read(report_pipe[0], &end, sizeof end) == static_cast<ssize_t>(sizeof end)) {
            wait_status = end.wait_status;
            usage = end.usage;
        } else if (child_done && !timed_out && !cancelled) {
            wait_status = W_EXITCODE(0, SIGKILL);  // init itself was killed (from outside the namespace)
        }
    }
    close(report_pipe[0]);
    if (!child_done) {
        // The program itself was killed above; its rusage is lost with the
        // reap, so report our children's totals instead.
        getrusage(RUSAGE_CHILDREN, &usage);
    }

    const long cpu_ms = usage.ru_utime.tv_sec * 1000 + usage.ru_utime.tv_usec / 1000 + usage.ru_stime.tv_sec * 1000 +
                        usage.ru_stime.tv_usec / 1000;
    const long wall_ms = static_cast<long>((now_seconds() - started) * 1000);
    const char* status = "exited";
    int code = 0, signo = 0;
    if (exec_failed) {
        status = "exec_failed";
        code = exec_errno;
    } else if (cancelled) {
        status = "cancelled";
    } else if (timed_out) {
        status = "wall_timeout";
    } else if (WIFSIGNALED(wait_status)) {
        status = "signaled";
        signo = WTERMSIG(wait_status);
    } else {
        code = WEXITSTATUS(wait_status);
    }
    char line[256];
    int n = std::snprintf(line, sizeof line, "status=%s code=%d signal=%d cpu_ms=%ld wall_ms=%ld maxrss_kb=%ld\n", status,
                          code, signo, cpu_ms, wall_ms, static_cast<long>(usage.ru_maxrss));
    if (o.status_fd >= 0) {
        ssize_t ignored = write(o.status_fd, line, static_cast<size_t>(n));
        (void)ignored;
    } else {
        std::fputs(line, stderr);
    }
    return 0;
}
