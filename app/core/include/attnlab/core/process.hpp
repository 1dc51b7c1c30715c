#pragma once
// Runs a program inside attnlab-sandbox and pumps its output without ever
// blocking on it: stdout/stderr are captured up to a cap (the rest is drained
// and counted), the result channel (fd 3) is handed to a callback, and a
// cancel flag or a parent-side deadline ends the run. Thread-safe to call from
// several threads: every descriptor is created close-on-exec.
#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "attnlab/common/sandbox_status.hpp"

namespace attnlab {

struct SandboxLimits {
    double cpu_seconds = 0;   // 0 = none
    double wall_seconds = 0;  // 0 = none
    long memory_mb = 0;       // 0 = none
    long file_size_mb = 64;
    long process_margin = 0;  // > 0: limit the (non-root) user's processes to what runs now + this
};

// How a program is fenced in besides its limits. The default is the one for
// learner programs: whatever runs in the sandbox is isolated unless its caller
// says it is a trusted tool (the compiler, see trusted_tool_policy()).
struct SandboxPolicy {
    // A private, read-only root (system paths only: no home, no attnlab data),
    // inputs under /input, a size-limited /scratch as cwd and TMPDIR, not root;
    // a seccomp filter. argv[0] and every argument naming a file are the inputs.
    bool isolate = true;
    bool network = false;              // with isolate: keep the host's network (no exercise needs it)
    bool address_space_limit = true;   // RLIMIT_AS = limits.memory_mb (a GPU runtime maps far more than it uses)
    long scratch_mb = 16;              // size of /scratch
    std::vector<std::string> extra_devices;   // device nodes besides /dev/null, zero, urandom (globs: "/dev/nvidia*")
    std::vector<std::string> extra_readonly;  // host paths shown read-only besides /usr, /etc, /opt, /bin, /sbin, /lib*
    std::vector<std::string> hidden;          // hidden even inside a shown path (besides $HOME, $ATTNLAB_HOME, $XDG_*_HOME)
};

// The policy for learner programs of a runtime: "cpp" (the default for any
// unknown name) or "cuda" (the NVIDIA device nodes and /sys, no RLIMIT_AS).
SandboxPolicy sandbox_policy_for(const std::string& runtime);
// Tools attnlab runs on the learner's behalf: limits and process-tree cleanup only.
SandboxPolicy trusted_tool_policy();

struct ProcessSpec {
    std::string sandbox;            // path of attnlab-sandbox
    std::vector<std::string> argv;  // program and arguments
    std::string cwd;                // "" = inherit (an isolated program starts in /scratch)
    SandboxLimits limits;
    SandboxPolicy policy;
    size_t capture_bytes = 256 * 1024;  // stdout and stderr are each kept up to this
    size_t output_cap_bytes = 0;        // > 0: stop the run when stdout+stderr exceed this
    bool with_channel = false;          // give the program a result channel on fd 3
};

struct ProcessOutcome {
    // SandboxKilled: the sandbox died without reporting (the program killed it).
    enum class Status { Exited, Signaled, WallTimeout, Cancelled, OutputLimit, ChannelStop, ExecFailed, SpawnFailed, SandboxKilled };
    Status status = Status::SpawnFailed;
    int exit_code = 0;
    int signal = 0;
    long cpu_ms = 0;
    long wall_ms = 0;
    long maxrss_kb = 0;
    std::string out;
    std::string err;
    size_t out_total = 0;
    size_t err_total = 0;
    std::string error;  // when spawning failed
    // Which protections the program ran under, as the sandbox reported them
    // (all NotAsked when the sandbox gave no report).
    sandbox_status::Protections protections;
};

// on_channel gets the bytes of fd 3 as they arrive; returning false stops the
// run (status ChannelStop), e.g. when the channel is corrupt.
ProcessOutcome run_in_sandbox(const ProcessSpec& spec, const std::function<bool(const char*, size_t)>& on_channel,
                              const std::atomic<bool>* cancel);

// Starts a program detached from attnlab (its own session: closing attnlab
// leaves it running), e.g. the learner's editor. argv[0] is looked up on PATH.
// Returns its pid, or -1 with `error` set.
int spawn_detached(const std::vector<std::string>& argv, std::string* error);
// True once a process started by spawn_detached has ended (it is reaped then).
// Waits for that pid only: never waitpid(-1), the runner waits for its own children.
bool reap_if_exited(int pid);

}  // namespace attnlab
