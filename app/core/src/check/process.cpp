#include "attnlab/core/check/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "attnlab/core/base/install_layout.hpp"

extern char** environ;

namespace attnlab {
namespace {

struct Pipe {
    int read = -1, write = -1;
    bool open() {
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0) return false;
        read = fds[0];
        write = fds[1];
        return true;
    }
    // A connected pair of Unix sockets used one way: unlike a pipe's, its
    // write end cannot be opened again through /proc/self/fd (the result
    // channel: only the harness may write it, channel_writer.hpp).
    bool open_socket() {
        int fds[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return false;
        read = fds[0];
        write = fds[1];
        ::shutdown(read, SHUT_WR);
        ::shutdown(write, SHUT_RD);
        return true;
    }
    void close_read() {
        if (read >= 0) ::close(read);
        read = -1;
    }
    void close_write() {
        if (write >= 0) ::close(write);
        write = -1;
    }
    ~Pipe() {
        close_read();
        close_write();
    }
};

std::string fmt_seconds(double s) {
    std::ostringstream o;
    o << s;
    return o.str();
}

// The program's process group from the sandbox's first line; never a group
// we could not have made.
void kill_program_group(const std::string& status) {
    const long pgid = sandbox_status::decode(status).pgid;
    if (pgid > 1 && pgid != ::getpgrp()) ::kill(static_cast<pid_t>(-pgid), SIGKILL);
}

ProcessOutcome::Status outcome_status(sandbox_status::RunStatus s) {
    using R = sandbox_status::RunStatus;
    using S = ProcessOutcome::Status;
    switch (s) {
        case R::Exited: return S::Exited;
        case R::Signaled: return S::Signaled;
        case R::WallTimeout: return S::WallTimeout;
        case R::Cancelled: return S::Cancelled;
        case R::ExecFailed: return S::ExecFailed;
        case R::IsolationRefused: return S::IsolationRefused;
        case R::MemoryLimit: return S::MemoryLimit;
        case R::SetupFailed: return S::SetupFailed;
    }
    return S::SpawnFailed;
}

// attnlab-sandbox's command line for `spec` (see app/sandbox/main.cpp).
std::vector<std::string> sandbox_arguments(const ProcessSpec& spec) {
    std::vector<std::string> args = {spec.sandbox, "--status-fd", std::to_string(sandbox_status::kStatusFd)};
    const Limits& l = spec.limits;
    const SandboxPolicy& policy = spec.policy;
    if (l.cpu_seconds > 0) args.insert(args.end(), {"--cpu", fmt_seconds(l.cpu_seconds)});
    if (l.wall_seconds > 0) args.insert(args.end(), {"--wall", fmt_seconds(l.wall_seconds)});
    if (l.memory_mb > 0 && policy.address_space_limit) args.insert(args.end(), {"--mem", std::to_string(l.memory_mb)});
    const long total = l.total_memory_mb != 0 ? l.total_memory_mb : l.memory_mb > 0 ? l.memory_mb + (policy.address_space_limit ? 0 : 1024) : 0;
    if (total > 0) args.insert(args.end(), {"--tree-mem", std::to_string(total)});
    if (l.process_margin > 0) args.insert(args.end(), {"--nproc-margin", std::to_string(l.process_margin)});
    args.insert(args.end(), {"--fsize", std::to_string(l.file_size_mb)});
    if (policy.nice > 0) args.insert(args.end(), {"--nice", std::to_string(policy.nice)});
    if (policy.isolate) {
        args.insert(args.end(), {"--isolate", "--scratch-mb", std::to_string(policy.scratch_mb)});
        if (policy.network) args.push_back("--network");
        if (!policy.map_inputs) args.push_back("--no-input-map");
        if (policy.unix_sockets) args.push_back("--unix-sockets");
        if (policy.allow_missing_layers) args.push_back("--allow-missing-layers");
        for (const std::string& d : policy.extra_devices) args.insert(args.end(), {"--device", d});
        for (const std::string& p : policy.extra_readonly) args.insert(args.end(), {"--readonly", p});
        for (const std::string& p : policy.hidden)
            if (!p.empty() && p[0] == '/') args.insert(args.end(), {"--hide", p});
        for (const std::string& p : policy.binds)
            if (!p.empty() && p[0] == '/') args.insert(args.end(), {"--bind", p});
        for (const std::string& p : policy.writable_binds)
            if (!p.empty() && p[0] == '/') args.insert(args.end(), {"--bind-rw", p});
        for (const std::string& name : policy.pass_env) args.insert(args.end(), {"--env", name});
    }
    args.push_back("--");
    args.insert(args.end(), spec.argv.begin(), spec.argv.end());
    return args;
}

}  // namespace

std::string inert_text(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    static const char* const hex = "0123456789abcdef";
    for (size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c == '\t' || c == '\n' || (c >= 0x20 && c != 0x7f && c != 0xc2)) {
            out += static_cast<char>(c);
        } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                   static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
            const unsigned char code = static_cast<unsigned char>(text[++i]);  // a C1 control (U+0080-U+009F): CSI and friends
            out += "\\u00";
            out += hex[code >> 4];
            out += hex[code & 15];
        } else if (c == 0xc2) {
            out += static_cast<char>(c);
        } else if (c == '\r') {
            out += "\\r";
        } else {
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

std::vector<std::string> course_folders(const fs::path& active_course) {
    std::vector<fs::path> candidates = {active_course, InstallLayout::current().course_dir};
    if (const char* env = std::getenv("ATTNLAB_COURSE"); env && *env) candidates.emplace_back(env);
    std::vector<std::string> out;
    for (const fs::path& p : candidates) {
        if (p.empty()) continue;
        std::error_code ec;
        const fs::path abs = fs::weakly_canonical(fs::absolute(p, ec), ec);
        if (!abs.empty()) out.push_back(abs.string());
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

SandboxPolicy learner_policy(ExecutionTarget target, const fs::path& active_course) {
    SandboxPolicy p;
    // The system's separate debug information (libc6-dbg and the like): a
    // CUDA program's first line lookup (for a cudaMalloc's name, a fault)
    // reads the debug information of every loaded library it finds, and
    // inflating libc's was two thirds of the tensor-core exercise's run.
    // A learner program needs its own file's lines only.
    p.hidden = {"/usr/lib/debug"};
    // Every course attnlab knows, wherever it lies (an installed one is under
    // /usr or /opt, which the program otherwise sees): no solution can be read.
    for (std::string& course : course_folders(active_course)) p.hidden.push_back(std::move(course));
    if (target == ExecutionTarget::Gpu) {
        // The driver maps the GPU's memory into the address space and reads
        // its topology from /sys; the device nodes come and go with the driver.
        p.address_space_limit = false;
        p.extra_devices = {"/dev/nvidia*", "/dev/nvidia-caps/*"};
        p.unix_sockets = true;  // the driver may ask nvidia-persistenced over a Unix socket
        p.extra_readonly = {"/sys"};
    }
    return p;
}

SandboxPolicy compiler_policy(std::vector<std::string> readable, const std::string& work, std::vector<std::string> hidden) {
    SandboxPolicy p;
    p.map_inputs = false;      // its command line names paths it must find where they are
    p.scratch_mb = 512;        // TMPDIR: the assembler's and the linker's temporary files
    p.binds = std::move(readable);
    p.writable_binds = {work};
    p.hidden = std::move(hidden);
    return p;
}

SandboxPolicy trusted_tool_policy() {
    SandboxPolicy p;
    p.isolate = false;
    return p;
}

namespace {

using Clock = std::chrono::steady_clock;
using Status = ProcessOutcome::Status;
using ChannelSink = std::function<bool(const char*, size_t)>;

// The pipes between us and the sandbox (and the program under it).
struct SandboxPipes {
    Pipe out, err, channel, status;
    bool open(bool with_channel) { return out.open() && err.open() && status.open() && (!with_channel || channel.open_socket()); }
    void close_write_ends() {
        out.close_write();
        err.close_write();
        channel.close_write();
        status.close_write();
    }
};

// Starts attnlab-sandbox in its own process group with the program's stdio,
// the result channel on fd 3 and the status lines on kStatusFd.
pid_t spawn_sandbox(const ProcessSpec& spec, SandboxPipes& pipes, std::string& error) {
    std::vector<std::string> args = sandbox_arguments(spec);
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pipes.out.write, 1);
    posix_spawn_file_actions_adddup2(&fa, pipes.err.write, 2);
    if (spec.with_channel) posix_spawn_file_actions_adddup2(&fa, pipes.channel.write, 3);
    else posix_spawn_file_actions_addopen(&fa, 3, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pipes.status.write, sandbox_status::kStatusFd);
    if (!spec.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, spec.cwd.c_str());
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t empty, defaults;
    sigemptyset(&empty);
    posix_spawnattr_setsigmask(&attr, &empty);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    posix_spawnattr_setsigdefault(&attr, &defaults);

    pid_t pid = -1;
    const int rc = posix_spawn(&pid, spec.sandbox.c_str(), &fa, &attr, cargs.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    pipes.close_write_ends();
    if (rc != 0) {
        error = "cannot start " + spec.sandbox + ": " + std::strerror(rc);
        return -1;
    }
    return pid;
}

// Watches one running sandbox without ever blocking on it: pumps stdout,
// stderr, the result channel and the status lines, and ends the run when
// cancelled, when the output is too large, when the channel is refused, or —
// if the sandbox cannot end it itself — at the backstop.
class Supervisor {
public:
    Supervisor(const ProcessSpec& spec, pid_t pid, SandboxPipes& pipes, const ChannelSink& on_channel,
               const std::atomic<bool>* cancel, ProcessOutcome& out)
        : spec_(spec), pid_(pid), pipes_(pipes), on_channel_(on_channel), cancel_(cancel), out_(out) {}

    // Until every pipe has closed, or waiting longer is pointless.
    void run() {
        while (true) {
            pollfd fds[4];
            Pipe* owners[4];
            nfds_t n = 0;
            for (Pipe* p : {&pipes_.out, &pipes_.err, &pipes_.channel, &pipes_.status})
                if (p->read >= 0) {
                    owners[n] = p;
                    fds[n++] = {p->read, POLLIN, 0};
                }
            if (n == 0) return;
            const int ready = ::poll(fds, n, 50);
            if (ready < 0 && errno != EINTR) return;
            if (!keep_waiting()) return;
            for (nfds_t i = 0; ready > 0 && i < n; ++i)
                if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) read_from(*owners[i]);
        }
    }
    // Why we ended the run, when we did; the first reason wins.
    const std::optional<Status>& forced() const { return forced_; }
    const std::string& status_text() const { return status_text_; }

private:
    void force(Status why) {
        if (forced_) return;
        forced_ = why;
        ::kill(pid_, SIGTERM);  // the sandbox kills the whole tree and reports
        terminated_at_ = Clock::now();
    }

    // Cancel, backstop, escalation; false when there is nothing left to wait for.
    bool keep_waiting() {
        if (cancel_ && cancel_->load()) force(Status::Cancelled);
        const auto now = Clock::now();
        const double elapsed = std::chrono::duration<double>(now - started_).count();
        // The sandbox enforces the wall limit; this is the backstop if it cannot.
        const double backstop = spec_.limits.wall_seconds > 0 ? spec_.limits.wall_seconds + 5.0 : 0;
        if (backstop > 0 && elapsed > backstop) {
            ::kill(pid_, SIGKILL);
            ::kill(-pid_, SIGKILL);
            kill_program_group(status_text_);
            forced_ = Status::WallTimeout;
            return false;
        }
        // A sandbox that does not end promptly after SIGTERM (stopped by the
        // program, say) is killed with its program's group, so cancel is quick.
        if (forced_ && !escalated_ && now - terminated_at_ > std::chrono::milliseconds(500)) {
            escalated_ = true;
            ::kill(pid_, SIGKILL);
            kill_program_group(status_text_);
        }
        // Once the sandbox is gone (or killed by us), stop waiting for output
        // from anything that escaped it: its pipes are not worth a hang.
        if (gone_at_ || escalated_) {
            const auto since = gone_at_ ? *gone_at_ : terminated_at_;
            if (now - since > std::chrono::seconds(1)) return false;
        }
        return !(forced_ && elapsed > backstop + 10);  // should never happen
    }

    void read_from(Pipe& p) {
        const ssize_t r = ::read(p.read, buf_, sizeof buf_);
        if (r < 0 && errno == EINTR) return;
        if (r <= 0) {
            p.close_read();
            if (&p == &pipes_.status) sandbox_ended();
            return;
        }
        const size_t n = static_cast<size_t>(r);
        if (&p == &pipes_.out) keep_output(out_.out, out_.out_total, n);
        else if (&p == &pipes_.err) keep_output(out_.err, out_.err_total, n);
        else if (&p == &pipes_.status) status_text_.append(buf_, n);
        else if (channel_ok_ && on_channel_ && !on_channel_(buf_, n)) {
            channel_ok_ = false;
            force(Status::ChannelStop);
        }
    }

    void keep_output(std::string& sink, size_t& total, size_t n) {
        total += n;
        if (sink.size() < spec_.capture_bytes) sink.append(buf_, std::min(n, spec_.capture_bytes - sink.size()));
        if (spec_.limits.output_kb > 0 && out_.out_total + out_.err_total > static_cast<size_t>(spec_.limits.output_kb) * 1024) force(Status::OutputLimit);
    }

    // The status pipe closed: the sandbox is gone. Without its final report
    // it was killed (by the program, say): kill the program's group ourselves
    // so nothing outlives the check and the pipes close now.
    void sandbox_ended() {
        if (!sandbox_status::decode(status_text_).has_report) kill_program_group(status_text_);
        gone_at_ = Clock::now();
    }

    const ProcessSpec& spec_;
    const pid_t pid_;
    SandboxPipes& pipes_;
    const ChannelSink& on_channel_;
    const std::atomic<bool>* cancel_;
    ProcessOutcome& out_;
    const Clock::time_point started_ = Clock::now();
    std::optional<Status> forced_;
    Clock::time_point terminated_at_;
    bool escalated_ = false;
    std::optional<Clock::time_point> gone_at_;
    bool channel_ok_ = true;
    std::string status_text_;
    char buf_[65536];
};

// What the sandbox reported, unless we ended the run ourselves.
void apply_status(const std::string& status_text, const std::optional<Status>& forced, ProcessOutcome& out) {
    const sandbox_status::Decoded status = sandbox_status::decode(status_text);
    if (status.has_report) {
        const sandbox_status::Report& rep = status.report;
        out.status = outcome_status(rep.status);
        out.exit_code = rep.code;
        out.signal = rep.signal;
        out.cpu_ms = rep.cpu_ms;
        out.wall_ms = rep.wall_ms;
        out.maxrss_kb = rep.maxrss_kb;
        out.protections = rep.protections;
        out.program_uid = rep.uid;
        out.accounting = rep.accounting;
        out.peak_kb = rep.peak_kb;
    } else if (!forced) {
        if (status.pgid > 0) {
            out.status = Status::SandboxKilled;
            out.error = "the sandbox was killed before it could report";
        } else {
            out.status = Status::SpawnFailed;
            out.error = "the sandbox ended without a report (" + out.err.substr(0, 200) + ")";
        }
    }
    if (forced) out.status = *forced;
    if (out.status == Status::ExecFailed) out.error = std::strerror(out.exit_code);
    if (out.status == Status::SetupFailed) {
        // The sandbox's own line on stderr says what it could not do.
        const size_t line = out.err.find("attnlab-sandbox: ");
        out.error = line == std::string::npos ? std::strerror(out.exit_code) : out.err.substr(line, out.err.find('\n', line) - line);
    }
}

}  // namespace

ProcessOutcome run_in_sandbox(const ProcessSpec& spec, const ChannelSink& on_channel, const std::atomic<bool>* cancel) {
    ProcessOutcome out;
    SandboxPipes pipes;
    if (!pipes.open(spec.with_channel)) {
        out.error = std::string("cannot create pipes: ") + std::strerror(errno);
        return out;
    }
    const pid_t pid = spawn_sandbox(spec, pipes, out.error);
    if (pid < 0) return out;
    Supervisor supervisor(spec, pid, pipes, on_channel, cancel, out);
    supervisor.run();
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    apply_status(supervisor.status_text(), supervisor.forced(), out);
    return out;
}

int spawn_detached(const std::vector<std::string>& argv, std::string* error) {
    if (argv.empty()) {
        if (error) *error = "no program";
        return -1;
    }
    std::vector<std::string> args = argv;
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    pid_t pid = -1;
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    const int rc = posix_spawnp(&pid, cargs[0], nullptr, &attr, cargs.data(), environ);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        if (error) *error = std::strerror(rc);
        return -1;
    }
    return pid;
}

bool reap_if_exited(int pid) { return waitpid(pid, nullptr, WNOHANG) != 0; }

}  // namespace attnlab
