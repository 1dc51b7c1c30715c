#include "attnlab/core/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>

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

// "pgid=N" from the sandbox's first line; never a group we could not have made.
void kill_program_group(const std::string& status) {
    const auto at = status.find("pgid=");
    if (at == std::string::npos) return;
    const long pgid = std::atol(status.c_str() + at + 5);
    if (pgid > 1 && pgid != ::getpgrp()) ::kill(static_cast<pid_t>(-pgid), SIGKILL);
}

void parse_status_line(const std::string& line, ProcessOutcome& out) {
    std::istringstream in(line);
    std::string token;
    while (in >> token) {
        auto eq = token.find('=');
        if (eq == std::string::npos) continue;
        std::string key = token.substr(0, eq), value = token.substr(eq + 1);
        if (key == "status") {
            if (value == "exited") out.status = ProcessOutcome::Status::Exited;
            else if (value == "signaled") out.status = ProcessOutcome::Status::Signaled;
            else if (value == "wall_timeout") out.status = ProcessOutcome::Status::WallTimeout;
            else if (value == "cancelled") out.status = ProcessOutcome::Status::Cancelled;
            else if (value == "exec_failed") out.status = ProcessOutcome::Status::ExecFailed;
        } else if (key == "code") out.exit_code = std::atoi(value.c_str());
        else if (key == "signal") out.signal = std::atoi(value.c_str());
        else if (key == "cpu_ms") out.cpu_ms = std::atol(value.c_str());
        else if (key == "wall_ms") out.wall_ms = std::atol(value.c_str());
        else if (key == "maxrss_kb") out.maxrss_kb = std::atol(value.c_str());
    }
}

}  // namespace

ProcessOutcome run_in_sandbox(const ProcessSpec& spec, const std::function<bool(const char*, size_t)>& on_channel,
                              const std::atomic<bool>* cancel) {
    ProcessOutcome out;
    Pipe out_pipe, err_pipe, chan_pipe, status_pipe;
    if (!out_pipe.open() || !err_pipe.open() || !status_pipe.open() || (spec.with_channel && !chan_pipe.open())) {
        out.error = std::string("cannot create pipes: ") + std::strerror(errno);
        return out;
    }

    std::vector<std::string> args = {spec.sandbox, "--status-fd", "4"};
    const SandboxLimits& l = spec.limits;
    if (l.cpu_seconds > 0) args.insert(args.end(), {"--cpu", fmt_seconds(l.cpu_seconds)});
    if (l.wall_seconds > 0) args.insert(args.end(), {"--wall", fmt_seconds(l.wall_seconds)});
    if (l.memory_mb > 0) args.insert(args.end(), {"--mem", std::to_string(l.memory_mb)});
    if (l.process_margin > 0) args.insert(args.end(), {"--nproc-margin", std::to_string(l.process_margin)});
    args.insert(args.end(), {"--fsize", std::to_string(l.file_size_mb), "--"});
    args.insert(args.end(), spec.argv.begin(), spec.argv.end());
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_pipe.write, 1);
    posix_spawn_file_actions_adddup2(&fa, err_pipe.write, 2);
    if (spec.with_channel) posix_spawn_file_actions_adddup2(&fa, chan_pipe.write, 3);
    else posix_spawn_file_actions_addopen(&fa, 3, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, status_pipe.write, 4);
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
    int rc = posix_spawn(&pid, spec.sandbox.c_str(), &fa, &attr, cargs.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    out_pipe.close_write();
    err_pipe.close_write();
    chan_pipe.close_write();
    status_pipe.close_write();
    if (rc != 0) {
        out.error = "cannot start " + spec.sandbox + ": " + std::strerror(rc);
        return out;
    }

    using clock = std::chrono::steady_clock;
    const auto started = clock::now();
    // The sandbox enforces the wall limit; this is the backstop if it cannot.
    const double backstop = l.wall_seconds > 0 ? l.wall_seconds + 5.0 : 0;
    bool terminated = false;
    auto terminated_at = started;
    bool escalated = false;
    auto terminate = [&](ProcessOutcome::Status why) {
        if (!terminated) {
            ::kill(pid, SIGTERM);  // the sandbox kills the whole tree and reports
            terminated = true;
            terminated_at = clock::now();
            out.status = why;
        }
    };
    bool sandbox_gone = false;  // the status pipe closed
    auto sandbox_gone_at = started;
    ProcessOutcome::Status forced = ProcessOutcome::Status::Exited;
    bool has_forced = false;
    std::string status_line;
    bool channel_ok = true;
    char buf[65536];

    while (true) {
        pollfd fds[4];
        int n = 0;
        int idx_out = -1, idx_err = -1, idx_chan = -1, idx_status = -1;
        if (out_pipe.read >= 0) { idx_out = n; fds[n++] = {out_pipe.read, POLLIN, 0}; }
        if (err_pipe.read >= 0) { idx_err = n; fds[n++] = {err_pipe.read, POLLIN, 0}; }
        if (chan_pipe.read >= 0) { idx_chan = n; fds[n++] = {chan_pipe.read, POLLIN, 0}; }
        if (status_pipe.read >= 0) { idx_status = n; fds[n++] = {status_pipe.read, POLLIN, 0}; }
        if (n == 0) break;
        int pr = ::poll(fds, static_cast<nfds_t>(n), 50);
        if (pr < 0 && errno != EINTR) break;

        if (cancel && cancel->load() && !terminated) {
            terminate(ProcessOutcome::Status::Cancelled);
            forced = ProcessOutcome::Status::Cancelled;
            has_forced = true;
        }
        const double elapsed = std::chrono::duration<double>(clock::now() - started).count();
        if (backstop > 0 && elapsed > backstop) {
            ::kill(pid, SIGKILL);
            ::kill(-pid, SIGKILL);
            kill_program_group(status_line);
            forced = ProcessOutcome::Status::WallTimeout;
            has_forced = true;
            break;
        }
        // A sandbox that does not end promptly after SIGTERM (stopped by the
        // program, say) is killed with its program's group, so cancel is quick.
        if (terminated && !escalated && clock::now() - terminated_at > std::chrono::milliseconds(500)) {
            escalated = true;
            ::kill(pid, SIGKILL);
            kill_program_group(status_line);
        }
        // Once the sandbox is gone (or killed by us), stop waiting for output
        // from anything that escaped it: its pipes are not worth a hang.
        if ((sandbox_gone || escalated) && clock::now() - (sandbox_gone ? sandbox_gone_at : terminated_at) > std::chrono::seconds(1)) break;
        if (terminated && elapsed > backstop + 10) break;  // should never happen
        if (pr <= 0) continue;

        auto drain = [&](int idx, Pipe& p, std::string& sink, size_t& total) {
            if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
            ssize_t r = ::read(p.read, buf, sizeof buf);
            if (r <= 0) {
                if (r < 0 && errno == EINTR) return;
                p.close_read();
                return;
            }
            total += static_cast<size_t>(r);
            if (sink.size() < spec.capture_bytes) sink.append(buf, std::min(static_cast<size_t>(r), spec.capture_bytes - sink.size()));
            if (spec.output_cap_bytes > 0 && out.out_total + out.err_total > spec.output_cap_bytes && !has_forced) {
                terminate(ProcessOutcome::Status::OutputLimit);
                forced = ProcessOutcome::Status::OutputLimit;
                has_forced = true;
            }
        };
        drain(idx_out, out_pipe, out.out, out.out_total);
        drain(idx_err, err_pipe, out.err, out.err_total);
        if (idx_chan >= 0 && (fds[idx_chan].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t r = ::read(chan_pipe.read, buf, sizeof buf);
            if (r > 0) {
                if (channel_ok && on_channel && !on_channel(buf, static_cast<size_t>(r))) {
                    channel_ok = false;
                    if (!has_forced) {
                        terminate(ProcessOutcome::Status::ChannelStop);
                        forced = ProcessOutcome::Status::ChannelStop;
                        has_forced = true;
                    }
                }
            } else if (r == 0 || errno != EINTR) {
                chan_pipe.close_read();
            }
        }
        if (idx_status >= 0 && (fds[idx_status].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t r = ::read(status_pipe.read, buf, sizeof buf);
            if (r > 0) {
                status_line.append(buf, static_cast<size_t>(r));
            } else if (r == 0 || errno != EINTR) {
                status_pipe.close_read();
                // The sandbox is gone. Without its final report it was killed
                // (by the program, say): kill the program's group ourselves so
                // nothing outlives the check and the pipes close now.
                if (status_line.find("status=") == std::string::npos) kill_program_group(status_line);
                sandbox_gone = true;
                sandbox_gone_at = clock::now();
            }
        }
    }
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    parse_status_line(status_line, out);
    if (status_line.find("status=") == std::string::npos && !has_forced) {
        if (status_line.find("pgid=") != std::string::npos) {
            out.status = ProcessOutcome::Status::SandboxKilled;
            out.error = "the sandbox was killed before it could report";
        } else {
            out.status = ProcessOutcome::Status::SpawnFailed;
            out.error = "the sandbox ended without a report (" + out.err.substr(0, 200) + ")";
        }
    }
    if (has_forced) out.status = forced;
    if (out.status == ProcessOutcome::Status::ExecFailed) out.error = std::strerror(out.exit_code);
    return out;
}

}  // namespace attnlab
