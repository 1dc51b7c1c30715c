#pragma once
// What attnlab-sandbox tells the process that started it, and how: text lines
// on one descriptor (kStatusFd), written by the sandbox and read by the core
// (app/core/src/process.cpp). This header is the only definition of them.
//
//   pgid=1234
//   status=exited code=0 signal=0 cpu_ms=12 wall_ms=40 maxrss_kb=3120 pidns=on mountns=on netns=off seccomp=refused:22
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

enum class RunStatus { Exited, Signaled, WallTimeout, Cancelled, ExecFailed };

// The protections around a learner program, each of which the kernel (or a
// container) may refuse on its own.
enum class Layer {
    PidNamespace,      // every process the program starts dies with it
    MountNamespace,    // read-only files, no home or attnlab data, a private scratch dir; not root
    NetworkNamespace,  // no network at all
    Seccomp,           // system calls no exercise needs are refused (EPERM)
};
constexpr int kLayerCount = 4;
constexpr std::array<Layer, kLayerCount> kLayers = {Layer::PidNamespace, Layer::MountNamespace, Layer::NetworkNamespace,
                                                    Layer::Seccomp};

enum class LayerState {
    NotAsked,        // the caller did not want it (the compiler runs without isolation)
    Applied,
    DisabledByUser,  // an ATTNLAB_NO_* variable turned it off
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
// The name of an ATTNLAB_NO_* variable that turns the layer off.
const char* layer_env_switch(Layer l);

struct Report {
    RunStatus status = RunStatus::Exited;
    int code = 0;    // exit code; errno for ExecFailed
    int signal = 0;  // for Signaled
    long cpu_ms = 0;
    long wall_ms = 0;
    long maxrss_kb = 0;
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
