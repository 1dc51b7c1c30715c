// The resource compile: the learner's file through attnlab-nvrtc under
// attnlab-sandbox, and the tool's reply read into a ResourceReport.
#include "attnlab/core/check/gpu_resources.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <regex>

#include "attnlab/core/base/install_layout.hpp"
#include "attnlab/core/check/compiler.hpp"
#include "attnlab/core/check/nvrtc_headers.hpp"
#include "attnlab/core/check/process.hpp"
#include "attnlab/core/base/util.hpp"

namespace attnlab {
namespace {

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    if (from.empty()) return;
    for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
}

// What NVRTC calls the learner's file; the log is then rewritten to the
// display name, which may be any path (spaces, parentheses) the learner has.
constexpr const char* kNvrtcSourceName = "attnlab-learner-source.cu";

struct RemoveOnExit {
    fs::path dir;
    ~RemoveOnExit() {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }
};

// Only real architectures make ptxas run (compute_XX stops at PTX) and the
// value travels as one NVRTC option, so only "sm_<digits>[letter]" is sent.
bool valid_arch(const std::string& arch) {
    static const std::regex arch_re(R"(^sm_\d{2,3}[a-z]?$)");
    return std::regex_match(arch, arch_re);
}

fs::path fresh_folder(const fs::path& work_dir) {
    static std::atomic<unsigned> counter{0};
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    const fs::path dir = work_dir / ("nvrtc-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" + hex64(hash64(std::to_string(now))));
    fs::create_directories(dir);
    return dir;
}

// NVRTC has no C or C++ standard library, yet a correct CUDA file includes
// <cfloat>, <cmath> or <cstdio> (nvcc and the emulator's host compiler have
// them): those headers as NVRTC needs them (its math functions and printf are
// built in), unless the caller gives its own. Include name -> the file of
// app/core/nvrtc_headers/ that serves it; assert stops the thread as on a GPU,
// and the CUDA runtime's host side is the prelude's (attnlab/cuda.hpp).
std::vector<std::pair<std::string, std::string>> standard_header_stubs() {
    static const std::pair<const char*, const char*> kServedBy[] = {
        {"cfloat", "float.h"},          {"float.h", "float.h"},   {"cmath", "math.h"},     {"math.h", "math.h"},
        {"cstdint", "stdint.h"},        {"stdint.h", "stdint.h"}, {"climits", "limits.h"}, {"limits.h", "limits.h"},
        {"cstdio", "empty.h"},          {"stdio.h", "empty.h"},   {"cuda_runtime.h", "cuda_runtime.h"},
        {"cuda_runtime_api.h", "cuda_runtime.h"},                 {"cuda.h", "cuda_runtime.h"},
        {"cassert", "assert.h"},        {"assert.h", "assert.h"}, {"cstring", "empty.h"},  {"string.h", "empty.h"}};
    std::vector<std::pair<std::string, std::string>> stubs;
    for (const auto& [name, file] : kServedBy) stubs.emplace_back(name, embedded_nvrtc_header(file));
    return stubs;
}

// Writes the source and headers under `dir` and returns attnlab-nvrtc's argv.
std::vector<std::string> tool_command(const fs::path& tool, const fs::path& dir, const std::string& source,
                                      std::vector<std::pair<std::string, std::string>> headers, const std::string& arch) {
    for (auto& stub : standard_header_stubs())
        if (std::none_of(headers.begin(), headers.end(), [&](const auto& h) { return h.first == stub.first; }))
            headers.push_back(std::move(stub));
    std::vector<std::string> argv = {tool.string(), "--arch", arch, "--name", kNvrtcSourceName};
    for (size_t i = 0; i < headers.size(); ++i) {
        const fs::path file = dir / ("header-" + std::to_string(i) + ".h");
        write_file_atomic(file, headers[i].second);
        argv.insert(argv.end(), {"--header", headers[i].first + "=" + file.string()});
    }
    const fs::path source_file = dir / "source.cu";
    write_file_atomic(source_file, source);
    argv.insert(argv.end(), {"--source", source_file.string()});
    return argv;
}

// Kernels in the order the learner wrote them (ptxas reports them in its own
// order): by the first place the name is followed by "(" or "<".
void order_like_source(std::vector<KernelResources>& kernels, const std::string& source) {
    auto position = [&](const KernelResources& k) {
        const std::string name = k.kernel.substr(0, k.kernel.find('<'));
        auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
        for (size_t at = source.find(name); at != std::string::npos; at = source.find(name, at + 1)) {
            if (at > 0 && is_word(source[at - 1])) continue;
            const size_t next = source.find_first_not_of(" \t", at + name.size());
            if (next != std::string::npos && (source[next] == '(' || source[next] == '<')) return at;
        }
        return std::string::npos;
    };
    std::stable_sort(kernels.begin(), kernels.end(), [&](const auto& a, const auto& b) { return position(a) < position(b); });
}

// Fills status, version, log, kernels and diagnostics from the tool's JSON.
void read_tool_reply(const std::string& out, const std::string& display_name, const std::string& source, ResourceReport& r) {
    const nlohmann::json reply = nlohmann::json::parse(out, nullptr, false);
    if (reply.is_discarded() || !reply.is_object() || !reply.contains("status")) {
        r.log = "attnlab-nvrtc gave an unreadable reply\n" + sanitize_utf8(out.substr(0, 2000));
        return;
    }
    const std::string status = reply.value("status", "");
    r.nvrtc_version = reply.value("version", "");
    r.log = sanitize_utf8(reply.value("log", ""));
    if (status == "unavailable") return;
    replace_all(r.log, kNvrtcSourceName, display_name);
    r.diagnostics = parse_nvrtc_diagnostics(r.log, display_name);
    if (status != "ok") {
        r.status = ResourceReport::Status::CompileError;
        return;
    }
    r.status = ResourceReport::Status::Ok;
    r.kernels = parse_ptxas_log(r.log);
    order_like_source(r.kernels, source);
}

// Fills the report from how the tool's run ended.
void read_outcome(const ProcessOutcome& p, double wall_seconds, const std::string& display_name, const std::string& source,
                  ResourceReport& r) {
    using S = ProcessOutcome::Status;
    switch (p.status) {
        case S::Exited:
            if (p.exit_code == 0) read_tool_reply(p.out, display_name, source, r);
            else r.log = "attnlab-nvrtc failed (exit " + std::to_string(p.exit_code) + ")\n" + sanitize_utf8(p.err);
            return;
        case S::Cancelled:
            r.cancelled = true;
            r.log = "cancelled";
            return;
        case S::WallTimeout:  // the learner's source made NVRTC run away: theirs to fix
            r.status = ResourceReport::Status::CompileError;
            r.log = "NVRTC did not finish within " + std::to_string(static_cast<int>(wall_seconds)) + " s";
            return;
        case S::Signaled:
            r.status = ResourceReport::Status::CompileError;
            r.log = "NVRTC stopped with signal " + std::to_string(p.signal) + " (it may have needed more than 4096 MB)";
            return;
        default:
            r.log = "cannot run attnlab-nvrtc" + (p.error.empty() ? std::string() : ": " + p.error);
            return;
    }
}

// Runs attnlab-nvrtc on the files written under a fresh folder of work_dir.
void run_tool(const fs::path& tool, const fs::path& sandbox, const std::string& source, const std::string& display_name,
              const std::vector<std::pair<std::string, std::string>>& headers, const fs::path& work_dir,
              const std::atomic<bool>* cancel, bool weak_sandbox_allowed, ResourceReport& r) {
    ProcessSpec spec;
    std::optional<RemoveOnExit> cleanup;
    try {
        fs::create_directories(work_dir);
        cleanup.emplace();  // (not from a temporary: its destructor would remove the folder)
        cleanup->dir = fresh_folder(work_dir);
        spec.argv = tool_command(tool, cleanup->dir, source, headers, r.arch);
    } catch (const std::exception& e) {  // an unwritable work folder: no figures, not a failed check
        r.log = std::string("cannot write the files for NVRTC: ") + e.what();
        return;
    }
    spec.sandbox = sandbox.string();
    // NVRTC reads learner code (an #include of any file it can open): it runs
    // isolated like the compiler, seeing the tool and its one work folder.
    spec.policy = compiler_policy({tool.string()}, cleanup->dir.string());
    spec.policy.allow_missing_layers = weak_sandbox_allowed;
    spec.policy.pass_env = {"ATTNLAB_NVRTC_LIB", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH"};  // where libnvrtc is
    // The verdict waits for this report only when a block could be refused for
    // its registers (Runner::run_with_register_counts): otherwise it is the
    // learner's g++ compile and program that the verdict waits for, so they go first.
    spec.policy.nice = 10;
    for (const char* var : {"ATTNLAB_NVRTC_LIB", "CUDA_HOME", "CUDA_PATH"})
        if (const char* path = std::getenv(var); path && path[0] == '/') spec.policy.binds.push_back(path);
    spec.limits.wall_seconds = compile_seconds_limit(30);
    spec.limits.memory_mb = 4096;
    spec.capture_bytes = 4 * 1024 * 1024;  // a log of many errors, JSON-escaped
    read_outcome(run_in_sandbox(spec, nullptr, cancel), spec.limits.wall_seconds, display_name, source, r);
}

}  // namespace

ResourceReport compile_resources(const std::string& nvrtc_source, const std::string& display_name,
                                 const std::vector<std::pair<std::string, std::string>>& headers, const std::string& arch,
                                 const fs::path& work_dir, const std::atomic<bool>* cancel, bool weak_sandbox_allowed) {
    const auto t0 = std::chrono::steady_clock::now();
    ResourceReport r;
    r.arch = arch;
    const fs::path tool = resolve_nvrtc_tool();
    const fs::path sandbox = resolve_sandbox();
    if (cancel && cancel->load()) {  // the learner moved on before it started
        r.cancelled = true;
        r.log = "cancelled";
    } else if (!valid_arch(arch)) {
        r.status = ResourceReport::Status::CompileError;
        r.log = "\"" + arch + "\" is not a GPU architecture NVRTC can compile for (sm_75, sm_90, ...)";
    } else if (::access(tool.c_str(), X_OK) != 0) {
        r.log = "attnlab-nvrtc is missing: " + tool.string();
    } else if (::access(sandbox.c_str(), X_OK) != 0) {
        r.log = "attnlab-sandbox is missing: " + sandbox.string();
    } else {
        run_tool(tool, sandbox, nvrtc_source, display_name, headers, work_dir, cancel, weak_sandbox_allowed, r);
    }
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

}  // namespace attnlab
