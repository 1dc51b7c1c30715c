#pragma once
// `attnlab doctor`: what this machine gives attnlab — compiler, learner
// runtime, the sandbox's protections, limits, and the CUDA pieces (toolkit,
// NVRTC, GPU), found without any hard dependency on them. Probing returns
// data; the CLI and the GUI only print it.
#include <string>
#include <vector>

#include "attnlab/common/sandbox_status.hpp"
#include "attnlab/core/compiler.hpp"
#include "attnlab/core/course.hpp"

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
    // Limits: the defaults of a check, and whether the process limit binds
    // (RLIMIT_NPROC does not bind root; the sandbox's namespaces still do).
    Limits default_limits;
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

    // The compiler, the runtime and the sandbox are there: checks can run.
    bool checks_can_run() const { return compiler.found && runtime_found && sandbox.found; }
};

DoctorReport run_doctor(const Toolchain& toolchain);
std::string doctor_text(const DoctorReport& report, Lang lang);
std::string doctor_json(const DoctorReport& report);  // pretty-printed

// What learner programs run under here, in one line ("all protections on" or
// which are off and why).
std::string protections_summary(const sandbox_status::Protections& p, Lang lang);
// The notice to show when a check ran with a protection off: "" when all
// asked-for layers were applied, and "" for a state already announced in this
// process — so attnlab says it once, not after every check.
std::string protections_notice_once(const sandbox_status::Protections& p, Lang lang);
// One real run of /bin/true under the learner policy: what the kernel allows.
sandbox_status::Protections probe_protections(const Toolchain& toolchain, std::string* problem = nullptr);

}  // namespace attnlab
