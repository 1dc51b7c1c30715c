#pragma once
// `attnlab doctor`: what this machine gives attnlab — compiler, learner
// runtime, the sandbox's protections, limits, and the CUDA pieces (toolkit,
// NVRTC, GPU), found without any hard dependency on them. Probing returns
// data; the CLI and the GUI only print it.
#include <string>
#include <vector>

#include "attnlab/common/sandbox_status.hpp"
#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/check/process.hpp"

namespace attnlab {

struct FoundTool {
    bool found = false;
    std::string path;
    std::string version;  // as the tool says it ("g++ (Debian 12.2.0-14) 12.2.0", "12.4")
};

struct DoctorReport {
    FoundTool compiler;
    // The learner runtime: the library learner programs link and its headers.
    bool runtime_found = false;
    std::string runtime_library;
    std::string runtime_include;
    std::string runtime_problem;  // Toolchain::problem(), "" when usable
    bool precompiled_headers = false;
    FoundTool sandbox;
    // What a learner program actually gets here (one real run of /bin/true).
    sandbox_status::Protections protections;
    std::string protections_problem;  // the probe itself could not run
    // Who that program ran as (uid on the host; -1 unknown), and how a run's
    // memory and processes were counted (a cgroup per check, or the fallback).
    long program_uid = -1;
    std::string program_user;  // "nobody", or the user's name
    sandbox_status::Accounting accounting = sandbox_status::Accounting::None;
    // The compiler's own sandbox (one real run of `compiler --version` under
    // the compiler's policy): the same layers as a learner program's.
    sandbox_status::Protections compiler_protections;
    std::string compiler_problem;  // it did not run there
    // The user's opt-in to run without a missing protection (both halves needed).
    WeakSandboxOptIn weak_sandbox;
    std::string settings_file;
    // Limits: the defaults of a check, and whether the process limit binds
    // (RLIMIT_NPROC does not bind root; the sandbox's namespaces still do).
    Limits default_limits = Limits::learner_program();
    long scratch_mb = 0;
    bool process_limit = false;
    // CUDA, all optional.
    FoundTool nvcc;
    FoundTool nvrtc;  // path of libnvrtc, version "major.minor"
    bool gpu_device_node = false;   // /dev/nvidia0
    FoundTool nvidia_smi;
    std::vector<std::string> gpus;  // names, from nvidia-smi -L or the driver
    int driver_gpu_count = -1;      // cuDeviceGetCount through libcuda; -1: not asked
    std::string driver_problem;     // why the driver could not be asked

    // The compiler, the runtime and the sandbox are there, and the sandbox is
    // complete (or the user opted in to running without what is missing):
    // checks can run.
    bool checks_can_run() const {
        return compiler.found && runtime_found && sandbox.found && (protections.complete() || weak_sandbox.allowed());
    }
};

DoctorReport run_doctor(const Toolchain& toolchain);
std::string doctor_text(const DoctorReport& report, Lang lang);
std::string doctor_json(const DoctorReport& report);  // pretty-printed

// One real run of /bin/true under the learner policy: what the kernel allows.
sandbox_status::Protections probe_protections(const Toolchain& toolchain, std::string* problem = nullptr);

}  // namespace attnlab
