#include "attnlab/core/desk/doctor.hpp"

#include <dlfcn.h>
#include <pwd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "attnlab/core/text/messages.hpp"
#include "attnlab/core/text/number_format.hpp"
#include "attnlab/core/text/protection_words.hpp"
#include "attnlab/core/check/process.hpp"
#include "attnlab/core/desk/workspace.hpp"
#include "attnlab/nvrtc/library.hpp"

namespace attnlab {
namespace {

using sandbox_status::Layer;
using sandbox_status::LayerState;
using sandbox_status::Protections;

std::string find_in_path(const std::string& name) {
    if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
        const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return "";
}

// What `argv` prints (stdout then stderr), run like the compiler is: limits
// and cleanup, no isolation. "" when it does not run or fails.
std::string tool_output(const Toolchain& toolchain, const std::vector<std::string>& argv) {
    ProcessSpec spec;
    spec.sandbox = toolchain.sandbox.string();
    spec.argv = argv;
    spec.policy = trusted_tool_policy();
    spec.limits.wall_seconds = 20;
    spec.capture_bytes = 16 * 1024;
    const ProcessOutcome p = run_in_sandbox(spec, nullptr, nullptr);
    if (p.status != ProcessOutcome::Status::Exited || p.exit_code != 0) return "";
    return p.out + p.err;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

FoundTool find_tool(const std::string& path, const Toolchain& toolchain, const std::vector<std::string>& version_args) {
    FoundTool t;
    t.path = path;
    t.found = !path.empty();
    if (t.found && !version_args.empty()) {
        std::vector<std::string> argv = {path};
        argv.insert(argv.end(), version_args.begin(), version_args.end());
        t.version = first_line(tool_output(toolchain, argv));
    }
    return t;
}

FoundTool find_nvcc(const Toolchain& toolchain) {
    std::string path = find_in_path("nvcc");
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* home = std::getenv(var); path.empty() && home && *home) path = find_in_path(std::string(home) + "/bin/nvcc");
    if (path.empty()) path = find_in_path("/usr/local/cuda/bin/nvcc");
    FoundTool t = find_tool(path, toolchain, {});
    if (!t.found) return t;
    const std::string text = tool_output(toolchain, {path, "--version"});
    const auto at = text.find("release ");  // "Cuda compilation tools, release 12.4, V12.4.131"
    t.version = at == std::string::npos ? first_line(text) : text.substr(at + 8, text.find(',', at) - at - 8);
    return t;
}

// NVRTC through the same search attnlab-nvrtc uses (attnlab/nvrtc/library.hpp),
// so the doctor never reports a library the resource panel would not find.
FoundTool find_nvrtc() {
    FoundTool t;
    const nvrtc::Library lib = nvrtc::Library::open();
    t.found = lib.loaded();
    t.path = lib.path();
    t.version = lib.version();
    return t;
}

// Asks the NVIDIA driver (libcuda, loaded only if present) how many GPUs it sees.
void ask_driver(DoctorReport& r) {
    void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        r.driver_problem = "libcuda.so.1";
        return;
    }
    using InitFn = int (*)(unsigned);
    using CountFn = int (*)(int*);
    using NameFn = int (*)(char*, int, int);
    using DeviceFn = int (*)(int*, int);
    auto init = reinterpret_cast<InitFn>(dlsym(h, "cuInit"));
    auto count = reinterpret_cast<CountFn>(dlsym(h, "cuDeviceGetCount"));
    auto device = reinterpret_cast<DeviceFn>(dlsym(h, "cuDeviceGet"));
    auto name = reinterpret_cast<NameFn>(dlsym(h, "cuDeviceGetName"));
    int n = 0;
    int rc = init && count ? init(0) : -1;
    if (rc == 0) rc = count(&n);
    if (rc != 0) {
        r.driver_problem = "cuInit/cuDeviceGetCount: error " + std::to_string(rc);
    } else {
        r.driver_gpu_count = n;
        for (int i = 0; r.gpus.empty() && device && name && i < n; ++i) {
            int dev = 0;
            char buf[256] = {0};
            if (device(&dev, i) == 0 && name(buf, sizeof buf, dev) == 0) r.gpus.push_back(buf);
        }
    }
    // The driver is not unloaded: it keeps threads and handlers after cuInit.
}

void find_gpu(const Toolchain& toolchain, DoctorReport& r) {
    r.gpu_device_node = ::access("/dev/nvidia0", F_OK) == 0;
    r.nvidia_smi = find_tool(find_in_path("nvidia-smi"), toolchain, {});
    if (r.nvidia_smi.found) {
        std::istringstream lines(tool_output(toolchain, {r.nvidia_smi.path, "-L"}));
        for (std::string line; std::getline(lines, line);)  // "GPU 0: NVIDIA H200 (UUID: …)"
            if (line.rfind("GPU ", 0) == 0) r.gpus.push_back(line.substr(line.find(": ") + 2, line.find(" (UUID") - line.find(": ") - 2));
    }
    if (r.gpu_device_node) {
        std::vector<std::string> from_smi = r.gpus;
        r.gpus.clear();
        ask_driver(r);
        if (r.gpus.empty()) r.gpus = from_smi;
    }
}

std::string identity_text(const DoctorReport& r, Lang lang) {
    if (r.program_uid < 0) return tr(lang, msg::doctor_runs_as_unknown);
    const std::string who = r.program_user + " (uid " + std::to_string(r.program_uid) + ")";
    if (r.program_uid == 0) return tr(lang, msg::doctor_runs_as_root, {{"user", who}});
    if (::getuid() == 0) return tr(lang, msg::doctor_runs_as_nobody, {{"user", who}});
    return tr(lang, r.protections[Layer::PidNamespace].state == LayerState::Applied ? msg::doctor_runs_as_userns : msg::doctor_runs_as_same,
              {{"user", who}});
}

std::string compiler_sandbox_text(const DoctorReport& r, Lang lang) {
    if (!r.compiler_problem.empty()) return tr(lang, msg::doctor_compiler_sandbox_failed, {{"detail", r.compiler_problem}});
    if (r.compiler_protections.complete()) return tr(lang, msg::doctor_layer_on);
    return tr(lang, msg::doctor_compiler_sandbox_some_off, {{"layers", missing_layers(r.compiler_protections, lang)}});
}

std::string accounting_text(const DoctorReport& r, Lang lang) {
    if (r.accounting == sandbox_status::Accounting::Cgroup) return tr(lang, msg::doctor_accounting_cgroup);
    return tr(lang, msg::doctor_accounting_fallback, {{"processes", format_count(sandbox_status::kFallbackProcessMargin, lang)},
                                                   {"oom_score_adj", std::to_string(sandbox_status::kProgramOomScoreAdj)}});
}

std::string tool_text(const FoundTool& t, Lang lang) {
    if (!t.found) return tr(lang, msg::doctor_not_found);
    return t.path + (t.version.empty() ? "" : " — " + t.version);
}

void add_line(std::ostringstream& out, const std::string& label, const std::string& value) {
    std::string padded = label + ":";
    // Labels are padded by characters, not bytes (Indonesian labels are plain ASCII too).
    if (padded.size() < 22) padded.resize(22, ' ');
    out << "  " << padded << " " << value << "\n";
}

std::string limits_text(const DoctorReport& r, Lang lang) {
    const Limits& l = r.default_limits;
    return tr(lang, msg::doctor_limits_value,
              {{"cpu", format_number(l.cpu_seconds, lang)}, {"wall", format_number(l.wall_seconds, lang)},
               {"memory", format_count(l.memory_mb, lang)}, {"output", format_count(l.output_kb, lang)},
               {"scratch", format_count(r.scratch_mb, lang)},
               {"processes", tr(lang, r.process_limit ? msg::doctor_limits_processes_on : msg::doctor_limits_processes_root)}});
}

std::string gpu_text(const DoctorReport& r, Lang lang) {
    if (!r.gpus.empty()) {
        std::string names;
        for (const std::string& g : r.gpus) names += (names.empty() ? "" : ", ") + g;
        return names;
    }
    if (r.gpu_device_node && !r.driver_problem.empty()) return tr(lang, msg::doctor_gpu_no_driver, {{"detail", r.driver_problem}});
    if (r.gpu_device_node) return tr(lang, msg::doctor_gpu_none_visible);
    return tr(lang, msg::doctor_not_found);
}

nlohmann::json tool_json(const FoundTool& t) { return {{"found", t.found}, {"path", t.path}, {"version", t.version}}; }

nlohmann::json layers_json(const Protections& p) {
    nlohmann::json layers = nlohmann::json::object();
    for (Layer l : sandbox_status::kLayers) {
        const auto& s = p[l];
        static const char* const kStates[] = {"not_asked", "on", "disabled", "refused"};
        layers[sandbox_status::layer_code(l)] = {{"state", kStates[static_cast<int>(s.state)]}, {"errno", s.error}};
    }
    return layers;
}

std::string user_name(long uid) {
    if (uid < 0) return "";
    const passwd* pw = getpwuid(static_cast<uid_t>(uid));
    return pw ? pw->pw_name : "uid " + std::to_string(uid);
}

// One real run under `policy`; `problem` says why it did not run (or exit 0).
ProcessOutcome probe(const Toolchain& toolchain, const std::vector<std::string>& argv, const SandboxPolicy& policy, std::string* problem) {
    ProcessSpec spec;
    spec.sandbox = toolchain.sandbox.string();
    spec.argv = argv;
    spec.policy = policy;
    spec.policy.allow_missing_layers = toolchain.weak_sandbox_allowed;
    spec.limits.wall_seconds = 20;
    spec.limits.memory_mb = 4096;
    spec.limits.process_margin = 64;
    const ProcessOutcome p = run_in_sandbox(spec, nullptr, nullptr);
    if (problem && p.status == ProcessOutcome::Status::IsolationRefused) *problem = "";  // the layers say why
    else if (problem && (p.status != ProcessOutcome::Status::Exited || p.exit_code != 0))
        *problem = p.error.empty() ? "exit " + std::to_string(p.exit_code) + ", signal " + std::to_string(p.signal) : p.error;
    return p;
}

// The compiler under its sandbox, as a check runs it (with a throw-away work folder).
void probe_compiler(const Toolchain& toolchain, DoctorReport& r) {
    char work[] = "/tmp/attnlab-doctor-XXXXXX";
    if (!::mkdtemp(work)) {
        r.compiler_problem = std::strerror(errno);
        return;
    }
    std::vector<std::string> readable;
    std::error_code ec;
    for (const fs::path& p : {toolchain.include_dir, toolchain.learner_library})
        if (fs::exists(p, ec)) readable.push_back(p.string());
    const ProcessOutcome p = probe(toolchain, {toolchain.compiler, "--version"}, compiler_policy(readable, work), &r.compiler_problem);
    r.compiler_protections = p.protections;
    fs::remove_all(work, ec);
}

}  // namespace

Protections probe_protections(const Toolchain& toolchain, std::string* problem) {
    return probe(toolchain, {::access("/bin/true", X_OK) == 0 ? "/bin/true" : "/usr/bin/true"}, learner_policy(ExecutionTarget::Cpu), problem)
        .protections;
}

DoctorReport run_doctor(const Toolchain& detected) {
    DoctorReport r;
    // The probes below run as a check would, under the user's opt-in as it is now.
    r.weak_sandbox = weak_sandbox_opt_in(Paths::from_environment().settings_file());
    Toolchain toolchain = detected;
    toolchain.weak_sandbox_allowed = r.weak_sandbox.allowed();
    r.sandbox.path = toolchain.sandbox.string();
    r.sandbox.found = ::access(r.sandbox.path.c_str(), X_OK) == 0;
    r.compiler = find_tool(find_in_path(toolchain.compiler), toolchain, {"--version"});
    r.runtime_problem = toolchain.problem();
    r.runtime_library = toolchain.learner_library.string();
    r.runtime_include = toolchain.include_dir.string();
    std::error_code ec;
    r.runtime_found = fs::exists(toolchain.learner_library, ec) && fs::exists(toolchain.include_dir / "attnlab" / "tensor.hpp", ec);
    r.precompiled_headers = toolchain.use_pch;
    if (r.sandbox.found) {
        const ProcessOutcome p = probe(toolchain, {::access("/bin/true", X_OK) == 0 ? "/bin/true" : "/usr/bin/true"},
                                       learner_policy(ExecutionTarget::Cpu), &r.protections_problem);
        r.protections = p.protections;
        r.program_uid = p.program_uid;
        r.program_user = user_name(p.program_uid);
        r.accounting = p.accounting;
        probe_compiler(toolchain, r);
    }
    const SandboxPolicy learner = learner_policy(ExecutionTarget::Cpu);
    r.scratch_mb = learner.scratch_mb;
    // Learner programs never run as root: a cgroup, or RLIMIT_NPROC, binds them.
    r.process_limit = r.accounting == sandbox_status::Accounting::Cgroup || r.program_uid > 0;
    r.settings_file = Paths::from_environment().settings_file().string();
    r.nvcc = find_nvcc(toolchain);
    r.nvrtc = find_nvrtc();
    find_gpu(toolchain, r);
    return r;
}

std::string doctor_text(const DoctorReport& r, Lang lang) {
    std::ostringstream out;
    out << tr(lang, msg::doctor_title) << "\n";
    add_line(out, tr(lang, msg::doctor_compiler), tool_text(r.compiler, lang));
    add_line(out, tr(lang, msg::doctor_runtime),
             r.runtime_found ? r.runtime_library : tr(lang, msg::doctor_runtime_missing, {{"detail", r.runtime_problem}}));
    add_line(out, tr(lang, msg::doctor_pch), tr(lang, r.precompiled_headers ? msg::doctor_layer_on : msg::doctor_pch_off));
    add_line(out, tr(lang, msg::doctor_sandbox), tool_text(r.sandbox, lang));
    add_line(out, tr(lang, msg::doctor_runs_as), identity_text(r, lang));
    for (Layer l : sandbox_status::kLayers) add_line(out, layer_name(l, lang), layer_state_text(l, r.protections[l], lang));
    if (!r.protections_problem.empty()) add_line(out, "", tr(lang, msg::doctor_probe_failed, {{"detail", r.protections_problem}}));
    add_line(out, tr(lang, msg::doctor_accounting), accounting_text(r, lang));
    add_line(out, tr(lang, msg::doctor_compiler_sandbox), compiler_sandbox_text(r, lang));
    add_line(out, tr(lang, msg::doctor_weak_sandbox),
             tr(lang, r.weak_sandbox.allowed() ? msg::doctor_weak_sandbox_on : msg::doctor_weak_sandbox_off,
                {{"env", sandbox_status::kWeakSandboxEnv}, {"setting", sandbox_status::kWeakSandboxSetting}, {"file", r.settings_file},
                 {"env_state", tr(lang, r.weak_sandbox.env ? msg::doctor_weak_sandbox_set : msg::doctor_weak_sandbox_unset)},
                 {"setting_state", tr(lang, r.weak_sandbox.setting ? msg::doctor_weak_sandbox_set : msg::doctor_weak_sandbox_unset)}}));
    add_line(out, tr(lang, msg::doctor_limits), limits_text(r, lang));
    add_line(out, tr(lang, msg::doctor_nvcc), tool_text(r.nvcc, lang));
    add_line(out, tr(lang, msg::doctor_nvrtc), tool_text(r.nvrtc, lang));
    add_line(out, tr(lang, msg::doctor_gpu), gpu_text(r, lang));
    out << "\n" << protections_summary(r.protections, lang) << "\n";
    if (!r.protections.complete() && !r.weak_sandbox.allowed()) out << isolation_refusal_text(r.protections, lang) << "\n";
    if (!r.checks_can_run()) out << tr(lang, msg::doctor_cannot_check) << "\n";
    return out.str();
}

std::string doctor_json(const DoctorReport& r) {
    const nlohmann::json layers = layers_json(r.protections);
    nlohmann::json namespaces = nlohmann::json::object();
    for (Layer ns : {Layer::PidNamespace, Layer::MountNamespace, Layer::NetworkNamespace, Layer::IpcNamespace, Layer::UtsNamespace})
        namespaces[sandbox_status::layer_code(ns)] = layers[sandbox_status::layer_code(ns)];
    const Limits& l = r.default_limits;
    nlohmann::json j = {
        {"compiler", tool_json(r.compiler)},
        {"learner_runtime", {{"found", r.runtime_found}, {"library", r.runtime_library}, {"include", r.runtime_include},
                             {"problem", r.runtime_problem}, {"precompiled_headers", r.precompiled_headers}}},
        {"sandbox", tool_json(r.sandbox)},
        {"protections", {{"layers", layers}, {"complete", r.protections.complete()}, {"probe_problem", r.protections_problem}}},
        {"identity", {{"uid", r.program_uid}, {"user", r.program_user}, {"unprivileged", r.program_uid > 0},
                      {"how", r.program_uid < 0 ? "unknown" : ::getuid() == 0 ? "nobody" : r.protections[Layer::PidNamespace].state == LayerState::Applied
                                                                                               ? "user_namespace"
                                                                                               : "same_user"}}},
        {"namespaces", namespaces},
        {"cgroup", {{"accounting", sandbox_status::accounting_code(r.accounting)},
                    {"per_check_scope", r.accounting == sandbox_status::Accounting::Cgroup},
                    {"fallback", r.accounting == sandbox_status::Accounting::Cgroup
                                     ? nlohmann::json(nullptr)
                                     : nlohmann::json{{"oom_score_adj", sandbox_status::kProgramOomScoreAdj}, {"rlimit_as_and_data", true}, {"tree_memory_sampled", true},
                                                      {"process_margin", sandbox_status::kFallbackProcessMargin}}}}},
        {"compiler_sandbox", {{"isolated", r.compiler_protections[Layer::MountNamespace].state == LayerState::Applied},
                              {"complete", r.compiler_protections.complete() && r.compiler_problem.empty()},
                              {"layers", layers_json(r.compiler_protections)}, {"problem", r.compiler_problem}}},
        {"weak_sandbox_opt_in", {{"env", sandbox_status::kWeakSandboxEnv}, {"env_set", r.weak_sandbox.env},
                                 {"setting", sandbox_status::kWeakSandboxSetting}, {"setting_set", r.weak_sandbox.setting},
                                 {"settings_file", r.settings_file}, {"allowed", r.weak_sandbox.allowed()}}},
        {"limits", {{"cpu_seconds", l.cpu_seconds}, {"wall_seconds", l.wall_seconds}, {"memory_mb", l.memory_mb},
                    {"output_kb", l.output_kb}, {"scratch_mb", r.scratch_mb}, {"process_limit", r.process_limit}}},
        {"cuda_toolkit", tool_json(r.nvcc)},
        {"nvrtc", tool_json(r.nvrtc)},
        {"gpu", {{"device_node", r.gpu_device_node}, {"nvidia_smi", tool_json(r.nvidia_smi)}, {"names", r.gpus},
                 {"driver_gpu_count", r.driver_gpu_count < 0 ? nlohmann::json(nullptr) : nlohmann::json(r.driver_gpu_count)},
                 {"driver_problem", r.driver_problem}}},
        {"checks_can_run", r.checks_can_run()},
    };
    return j.dump(2);
}

}  // namespace attnlab
