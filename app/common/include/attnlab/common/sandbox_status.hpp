#pragma once
// What attnlab-sandbox tells the process that started it, and how: text lines
// on one descriptor (kStatusFd), written by the sandbox and read by the core
// (app/core/src/check/process.cpp). This header is the only definition of them.
//
//   pgid=1234
//   status=exited code=0 signal=0 cpu_ms=12 wall_ms=40 maxrss_kb=3120 peak_kb=5200 uid=65534 accounting=cgroup
//     pidns=on mountns=on netns=off seccomp=refused:22 ipcns=on utsns=on identity=on      (one line)
//
// The first line comes as soon as the program's process group exists (the
// parent kills that group if the sandbox dies before reporting); the second
// when everything has ended. Unknown keys are ignored, so either side can add
// one without breaking the other; a line without its final '\n' is not read.
#include <array>
#include <string>

namespace attnlab::sandbox_status {

// The descriptor the core gives the sandbox for these lines (fds 0-2 are the
// program's stdio, 3 is its result channel).
constexpr int kStatusFd = 4;

// IsolationRefused: a layer the program needs was refused (or turned off)
// and the caller did not allow running without it, so the program was never
// started (fail closed); the layers say which. MemoryLimit: the program's
// processes together went over the memory limit and were killed.
// SetupFailed: the sandbox could not prepare the run (the program's user
// cannot enter its folder, its inputs could not be copied): nothing of the
// program ran, and it is attnlab's set-up, never the program, to blame.
enum class RunStatus { Exited, Signaled, WallTimeout, Cancelled, ExecFailed, IsolationRefused, MemoryLimit, SetupFailed };

// The protections around a learner program, each of which the kernel (or a
// container) may refuse on its own.
enum class Layer {
    PidNamespace,      // every process the program starts dies with it
    MountNamespace,    // read-only files, no home or attnlab data, a private scratch dir; not root
    NetworkNamespace,  // no network at all
    Seccomp,           // system calls no exercise needs are refused (EPERM)
    IpcNamespace,      // its own SysV IPC and POSIX message queues: no other program's shared memory
    UtsNamespace,      // its own host name
    Identity,          // it runs as an unprivileged user (never root, no capabilities on the host)
};
constexpr int kLayerCount = 7;
constexpr std::array<Layer, kLayerCount> kLayers = {Layer::Identity,     Layer::PidNamespace, Layer::MountNamespace,
                                                    Layer::NetworkNamespace, Layer::IpcNamespace, Layer::UtsNamespace,
                                                    Layer::Seccomp};

// How the memory and processes of one run are counted: as a whole in a
// cgroup v2 made for the run, or (where none can be made) by the sandbox
// itself: per-process limits, the tree's resident memory sampled, and
// oom_score_adj=1000 so the kernel's OOM killer picks the program first.
enum class Accounting { None, Cgroup, Fallback };

enum class LayerState {
    NotAsked,        // the caller did not want it (the compiler runs without isolation)
    Applied,
    DisabledByUser,  // an ATTNLAB_NO_* variable turned it off (runs only with the weak-sandbox opt-in)
    Refused,         // the kernel said no; `error` says why
};

struct LayerReport {
    LayerState state = LayerState::NotAsked;
    int error = 0;  // errno, when Refused
    bool operator==(const LayerReport& o) const { return state == o.state && error == o.error; }
};

struct Protections {
    std::array<LayerReport, kLayerCount> layers{};
    LayerReport& operator[](Layer l) { return layers[static_cast<size_t>(l)]; }
    const LayerReport& operator[](Layer l) const { return layers[static_cast<size_t>(l)]; }
    // True when no layer that was asked for is missing.
    bool complete() const;
    bool operator==(const Protections& o) const { return layers == o.layers; }
    bool operator!=(const Protections& o) const { return !(*this == o); }
};

// "pidns", "mountns", "netns", "seccomp": the keys in the report line, also
// used in `attnlab doctor --json`.
const char* layer_code(Layer l);
// The name of an ATTNLAB_NO_* variable that turns the layer off ("" for
// Identity, which cannot be turned off).
const char* layer_env_switch(Layer l);
const char* accounting_code(Accounting a);  // "none", "cgroup", "fallback"
const char* run_status_code(RunStatus s);   // "exited", ..., "isolation_refused", "memory_limit"

// The explicit opt-in to run learner code without a layer the kernel refuses
// (or an ATTNLAB_NO_* switch turns off): the environment variable and the
// settings.json key, both needed (see attnlab/core/check/process.hpp).
constexpr const char* kWeakSandboxEnv = "ATTNLAB_ALLOW_WEAK_SANDBOX";
constexpr const char* kWeakSandboxSetting = "allow_weak_sandbox";

// Without a cgroup for the run (the fallback), RLIMIT_NPROC lets the program's
// user run what it runs now plus at most this many more processes.
constexpr long kFallbackProcessMargin = 64;
// An isolated program's oom_score_adj: the kernel's OOM killer ends it first.
constexpr int kProgramOomScoreAdj = 1000;

struct Report {
    RunStatus status = RunStatus::Exited;
    int code = 0;    // exit code; errno for ExecFailed and SetupFailed
    int signal = 0;  // for Signaled
    long cpu_ms = 0;
    long wall_ms = 0;
    long maxrss_kb = 0;
    long peak_kb = 0;  // the largest resident memory of all its processes together (0: unknown)
    long uid = -1;     // the uid the program ran as, seen from the host (-1: unknown)
    Accounting accounting = Accounting::None;
    Protections protections;
};

std::string encode_started(long pgid);
std::string encode_report(const Report& r);

// Everything read so far from the status descriptor.
struct Decoded {
    long pgid = 0;  // 0: no (valid) start line
    bool has_report = false;
    Report report;  // meaningful when has_report
};
// Reads every complete line. A line that is cut short, has no status, or
// carries a malformed number is not a report: the caller then knows the
// sandbox ended without telling how.
Decoded decode(const std::string& text);

}  // namespace attnlab::sandbox_status
