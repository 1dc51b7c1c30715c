#pragma once
// Runs a program inside attnlab-sandbox and pumps its output without ever
// blocking on it: stdout/stderr are captured up to a cap (the rest is drained
// and counted), the result channel (fd 3) is handed to a callback, and a
// cancel flag or a parent-side deadline ends the run. Thread-safe to call from
// several threads: every descriptor is created close-on-exec.
#include <atomic>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "attnlab/common/sandbox_status.hpp"
#include "attnlab/core/course/limits.hpp"

namespace attnlab {

namespace fs = std::filesystem;

// How a program is fenced in besides its limits. The default is the one for
// learner programs: whatever runs in the sandbox is isolated unless its caller
// says it is a trusted tool (a version query, see trusted_tool_policy()). The
// compiler is isolated too (compiler_policy()): it reads learner code.
//
// Isolation fails closed: when the kernel refuses a layer, the program is not
// started (ProcessOutcome::Status::IsolationRefused) unless the user opted in
// to a weaker sandbox (missing_layers_allowed()).
struct SandboxPolicy {
    // A private, read-only root (system paths only: no home, no attnlab data),
    // inputs under /input, a size-limited /scratch as cwd, HOME and TMPDIR, a
    // minimal environment, new network/IPC/UTS/PID namespaces, never root; a
    // seccomp filter. argv[0] and every argument naming a file are the inputs.
    bool isolate = true;
    bool network = false;              // with isolate: keep the host's network (no exercise needs it)
    bool address_space_limit = true;   // RLIMIT_AS and RLIMIT_DATA = limits.memory_mb (a GPU runtime maps far more than it uses)
    bool map_inputs = true;            // file arguments appear under /input (false: at their own paths, through `binds`)
    long scratch_mb = 16;              // size of /scratch
    bool unix_sockets = false;         // socket(AF_UNIX) allowed (a GPU driver's daemons); every other family is refused
    std::vector<std::string> extra_devices;   // device nodes besides /dev/null, zero, urandom (globs: "/dev/nvidia*")
    std::vector<std::string> extra_readonly;  // host paths shown read-only besides /usr, /etc, /opt, /bin, /sbin, /lib*
    std::vector<std::string> hidden;          // hidden even inside a shown path (besides $HOME, $ATTNLAB_HOME, $XDG_*_HOME)
    std::vector<std::string> binds;           // shown read-only at their own paths, even inside a hidden one
    std::vector<std::string> writable_binds;  // folders shown writable at their own paths (handed to `nobody` for the run as root)
    std::vector<std::string> pass_env;        // environment variables passed on (isolated programs get PATH, LANG, HOME, TMPDIR only)
    int nice = 0;  // > 0: a background job at lower priority (NVRTC's report), so a verdict's compile and run go first
    // With isolate: the user's opt-in (WeakSandboxOptIn below) to run even
    // where the kernel refuses a layer, handed to this one run by whoever
    // read it (Toolchain::weak_sandbox_allowed). Without it such a run never starts.
    bool allow_missing_layers = false;
};

// Where a learner program runs: on the CPU (C++ programs, and CUDA programs
// on the emulator, which are ordinary programs) or with a GPU.
enum class ExecutionTarget { Cpu, Gpu };
// The policy for learner programs on a target: on the CPU the default one
// (address-space limit included); with a GPU the NVIDIA device nodes and
// /sys, and no RLIMIT_AS (a GPU runtime maps far more than it uses).
// `active_course`: the course being checked; it and every other course folder
// attnlab knows (course_folders()) are hidden from the program.
SandboxPolicy learner_policy(ExecutionTarget target, const fs::path& active_course = {});
// The course folders a sandboxed compiler or program must never see, absolute
// and resolved: the active course, the installed (or source tree's) course
// and $ATTNLAB_COURSE.
std::vector<std::string> course_folders(const fs::path& active_course);
// The compiler (g++, nvcc) on a learner's file: isolated like a learner
// program, with the toolchain's system paths, `readable` (attnlab's learner
// headers and libraries, the generated headers) and the one `work` folder
// (the source, the output) at their own paths; `hidden` (the course, whose
// solutions must not be #included) never shows. It runs as `nobody` as root.
SandboxPolicy compiler_policy(std::vector<std::string> readable, const std::string& work, std::vector<std::string> hidden = {});
// Tools attnlab runs on its own behalf on no learner input (version queries):
// limits and process-tree cleanup only.
SandboxPolicy trusted_tool_policy();

// The user's explicit opt-in to run learner code where the kernel refuses a
// layer: the environment variable ATTNLAB_ALLOW_WEAK_SANDBOX=1 and
// "allow_weak_sandbox": true in settings.json, both. The desk layer reads the
// two halves (desk/workspace: weak_sandbox_opt_in()); this layer reads no settings.
struct WeakSandboxOptIn {
    bool env = false;
    bool setting = false;
    bool allowed() const { return env && setting; }
};

// Learner output made inert for a terminal or a window: control characters
// (escape sequences, carriage returns, C1 codes, DEL) are shown escaped
// ("\x1b", "\r", "\u009b"); tab and newline stay. Expects UTF-8.
std::string inert_text(const std::string& text);

struct ProcessSpec {
    std::string sandbox;            // path of attnlab-sandbox
    std::vector<std::string> argv;  // program and arguments
    std::string cwd;                // "" = inherit (an isolated program starts in /scratch)
    Limits limits;                  // output_kb > 0 stops the run when stdout+stderr exceed it
    SandboxPolicy policy;
    size_t capture_bytes = 256 * 1024;  // stdout and stderr are each kept up to this
    bool with_channel = false;          // give the program a result channel on fd 3
};

struct ProcessOutcome {
    // SandboxKilled: the sandbox died without reporting (the program killed it).
    // IsolationRefused: a protection the program needs was missing, so it
    // never ran (`protections` says which). MemoryLimit: its processes
    // together went over limits.total_memory_mb.
    // SetupFailed: the sandbox could not prepare the run (`error` says what);
    // attnlab's set-up is to blame, never the program.
    enum class Status { Exited, Signaled, WallTimeout, Cancelled, OutputLimit, ChannelStop, ExecFailed, SpawnFailed, SandboxKilled,
                        IsolationRefused, MemoryLimit, SetupFailed };
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
    long program_uid = -1;  // who it ran as, on the host
    sandbox_status::Accounting accounting = sandbox_status::Accounting::None;
    long peak_kb = 0;       // all its processes together, at most
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
