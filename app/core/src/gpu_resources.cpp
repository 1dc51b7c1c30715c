#include "attnlab/core/gpu_resources.hpp"
#include "attnlab/core/number_format.hpp"

#include <cxxabi.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <regex>
#include <sstream>

#include "attnlab/core/install_layout.hpp"
#include "attnlab/core/messages.hpp"
#include "attnlab/core/process.hpp"
#include "attnlab/core/util.hpp"

namespace attnlab {
namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    if (from.empty()) return;
    for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
}

int64_t to_int64(const std::string& digits) { return std::strtoll(digits.c_str(), nullptr, 10); }

// The end of the bracketed group that starts at `open` ('(' or '<'), or npos.
size_t matching_close(const std::string& s, size_t open) {
    int depth = 0;
    for (size_t i = open; i < s.size(); ++i) {
        if (s[i] == '(' || s[i] == '<') ++depth;
        else if ((s[i] == ')' || s[i] == '>') && --depth == 0) return i;
    }
    return std::string::npos;
}

// "void tile_kernel<16>(float*)" -> "tile_kernel<16>": the parameter list
// (from the first '(' outside template arguments) and a template's return
// type (before the last space outside them) go.
std::string strip_signature(const std::string& demangled) {
    size_t name_end = demangled.size();
    int depth = 0;
    for (size_t i = 0; i < demangled.size(); ++i) {
        const char c = demangled[i];
        if (c == '(' && depth == 0) {
            name_end = i;
            break;
        }
        if (c == '<') ++depth;
        else if (c == '>') --depth;
    }
    std::string name = demangled.substr(0, name_end);
    size_t start = 0;
    for (size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '<') {
            const size_t close = matching_close(name, i);
            if (close == std::string::npos) break;
            i = close;
        } else if (name[i] == ' ') {
            start = i + 1;  // everything before the last top-level space is the return type
        }
    }
    return name.substr(start);
}

}  // namespace

const char* resource_status_code(ResourceReport::Status status) {
    switch (status) {
        case ResourceReport::Status::Ok: return "ok";
        case ResourceReport::Status::CompileError: return "compile_error";
        case ResourceReport::Status::Unavailable: return "unavailable";
    }
    return "unavailable";
}

std::string kernel_display_name(const std::string& mangled) {
    int status = 0;
    char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !demangled) return mangled;  // extern "C": not mangled
    const std::string name = strip_signature(demangled);
    std::free(demangled);
    return name.empty() ? mangled : name;
}

// ---- ptxas -v ---------------------------------------------------------------

std::vector<KernelResources> parse_ptxas_log(const std::string& log) {
    static const std::regex entry_re(R"(Compiling entry function '([^']+)')");
    static const std::regex properties_re(R"(Function properties for ([^\s:]+))");
    static const std::regex frame_re(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
    static const std::regex used_re(R"(Used (\d+) registers)");
    static const std::regex barriers_re(R"(used (\d+) barriers)");
    static const std::regex smem_re(R"((\d+)(?:\+\d+)? bytes smem)");  // old ptxas: "1024+0 bytes smem"
    std::vector<KernelResources> kernels;
    // The function the next "stack frame" / "Used" lines describe: ptxas
    // prints a non-entry (noinline) function's properties too, sometimes in
    // the middle of an entry's report, and those must not land on the entry.
    std::string described;
    auto described_kernel = [&]() -> KernelResources* {
        for (auto& k : kernels)
            if (k.mangled == described) return &k;
        return nullptr;
    };
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (std::regex_search(line, m, entry_re)) {
            described = m[1];
            if (!described_kernel()) kernels.push_back({kernel_display_name(described), described});
        } else if (std::regex_search(line, m, properties_re)) {
            described = m[1];
        } else if (std::regex_search(line, m, frame_re)) {
            if (KernelResources* k = described_kernel()) {
                k->stack_frame_bytes = to_int64(m[1]);
                k->spill_store_bytes = to_int64(m[2]);
                k->spill_load_bytes = to_int64(m[3]);
            }
        } else if (std::regex_search(line, m, used_re)) {
            KernelResources* k = described_kernel();
            if (!k) continue;
            k->registers = static_cast<int>(to_int64(m[1]));
            if (std::regex_search(line, m, barriers_re)) k->barriers = static_cast<int>(to_int64(m[1]));
            if (std::regex_search(line, m, smem_re)) k->shared_bytes = to_int64(m[1]);
        }
    }
    return kernels;
}

// ---- NVRTC diagnostics ------------------------------------------------------

namespace {

// "learner.cu(12): error: message" -> a Diagnostic; nullopt for other lines.
std::optional<Diagnostic> diagnostic_header(const std::string& line, const std::string& file_name) {
    static const std::regex any_file_re(R"(^([^()\s][^()]*)(\(\d+\): .*)$)");
    static const std::regex rest_re(R"(^\((\d+)\): (catastrophic error|error|warning|remark|note)(?: #[\w-]+)?: (.*)$)");
    Diagnostic d;
    std::string rest;
    std::smatch m;
    if (!file_name.empty() && line.rfind(file_name + "(", 0) == 0) {
        d.file = file_name;
        rest = line.substr(file_name.size());
    } else if (std::regex_match(line, m, any_file_re)) {
        d.file = m[1];
        rest = m[2];
    } else {
        return std::nullopt;
    }
    if (!std::regex_match(rest, m, rest_re)) return std::nullopt;
    d.line = static_cast<int>(to_int64(m[1]));
    const std::string severity = m[2];
    d.severity = severity == "catastrophic error" ? "fatal error" : severity == "remark" ? "note" : severity;
    d.message = m[3];
    return d;
}

// NVRTC prints the source line indented by two spaces and a caret under the
// column, tabs kept: the caret's offset is the 1-based byte column.
int column_from_context(const std::string& context) {
    std::istringstream lines(context);
    for (std::string line; std::getline(lines, line);) {
        const size_t caret = line.find('^');
        if (caret == std::string::npos || caret < 2 || line.compare(0, 2, "  ") != 0) continue;
        if (line.find_first_not_of(" \t") != caret) continue;
        return static_cast<int>(caret - 2 + 1);
    }
    return 0;
}

}  // namespace

std::vector<Diagnostic> parse_nvrtc_diagnostics(const std::string& log, const std::string& file_name) {
    std::vector<Diagnostic> out;
    bool in_context = false;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) {
        if (std::optional<Diagnostic> d = diagnostic_header(line, file_name)) {
            out.push_back(std::move(*d));
            in_context = true;
        } else if (in_context && !line.empty() && (line[0] == ' ' || line[0] == '\t')) {
            // The excerpt, the caret and "detected during instantiation" lines.
            if (out.back().context.size() < 2000) out.back().context += line + "\n";
        } else {
            in_context = false;  // a blank line or NVRTC's closing summary
        }
    }
    for (Diagnostic& d : out) d.column = column_from_context(d.context);
    return out;
}

// ---- architectures and occupancy ---------------------------------------------

namespace {

// One row per architecture: its limits and the GPUs a learner knows it by.
struct ArchRow {
    const char* arch;
    const char* gpus;
    int major, minor, threads_per_sm, blocks_per_sm;
    int64_t shared_per_sm_kb, optin_per_block_kb;
};
constexpr ArchRow kArchRows[] = {
    {"sm_75", "T4 / RTX 20xx", 7, 5, 1024, 16, 64, 64},  // Turing
    {"sm_80", "A100", 8, 0, 2048, 32, 164, 163},         // Ampere GA100
    {"sm_86", "RTX 30xx / A40", 8, 6, 1536, 16, 100, 99},  // Ampere GA10x
    {"sm_89", "RTX 4090 / L4", 8, 9, 1536, 24, 100, 99},   // Ada (RTX 40xx, L4, L40)
    {"sm_90", "H100 / H200", 9, 0, 2048, 32, 228, 227},    // Hopper
};

}  // namespace

std::optional<ArchLimits> arch_limits(const std::string& arch) {
    // Per-SM figures: CUDA C++ Programming Guide, "Technical Specifications
    // per Compute Capability" (docs.nvidia.com/cuda/cuda-programming-guide/
    // 05-appendices/compute-capabilities.html): resident threads, blocks,
    // shared memory per SM and per block (opt-in), 64 K registers per SM and
    // per block, 255 registers per thread, 48 KB per block without opt-in.
    // Allocation rules: cuda_occupancy.h (CUDA 13.0): registers in units of
    // 256 per warp over 4 sub-partitions; shared memory in units of 256 B on
    // 7.x and 128 B from 8.x; 1 KB reserved per block from 8.x on (that is
    // also why the opt-in maximum is the SM's memory minus 1 KB).
    // sm_90a is sm_90 plus architecture-specific instructions: same SM.
    const std::string base = arch == "sm_90a" ? "sm_90" : arch;
    for (const ArchRow& r : kArchRows) {
        if (base != r.arch) continue;
        ArchLimits l;
        l.arch = arch;
        l.compute_major = r.major;
        l.compute_minor = r.minor;
        l.gpus = r.gpus;
        l.max_threads_per_sm = r.threads_per_sm;
        l.max_blocks_per_sm = r.blocks_per_sm;
        l.shared_memory_per_sm = r.shared_per_sm_kb * 1024;
        l.max_shared_per_block_optin = r.optin_per_block_kb * 1024;
        l.reserved_shared_per_block = r.major >= 8 ? 1024 : 0;
        l.shared_allocation_unit = r.major >= 8 ? 128 : 256;
        return l;
    }
    return std::nullopt;
}

std::vector<std::string> known_gpu_archs() {
    std::vector<std::string> out;
    for (const ArchRow& r : kArchRows) out.push_back(r.arch);
    return out;
}

std::string gpu_arch_label(const std::string& arch) {
    const std::optional<ArchLimits> l = arch_limits(arch);
    return l && !l->gpus.empty() ? arch + " \xE2\x80\x94 " + l->gpus : arch;
}

namespace {

constexpr int64_t kUnlimited = std::numeric_limits<int>::max();

int64_t round_up(int64_t value, int64_t unit) { return unit <= 0 ? value : (value + unit - 1) / unit * unit; }

// Blocks per SM the register file allows (cudaOccMaxBlocksPerSMRegsLimit).
int64_t blocks_by_registers(const ArchLimits& l, int registers_per_thread, int warps_per_block) {
    if (registers_per_thread <= 0) return kUnlimited;
    if (registers_per_thread > l.max_registers_per_thread) return 0;
    const int64_t per_warp = round_up(int64_t{registers_per_thread} * l.warp_size, l.register_allocation_unit);
    // A launch is refused when the block's warps, spread over every
    // sub-partition, would need more than a block may have.
    if (per_warp * round_up(warps_per_block, l.warp_allocation_granularity) > l.max_registers_per_block) return 0;
    const int64_t warps_per_partition = l.registers_per_sm / l.warp_allocation_granularity / per_warp;
    return warps_per_partition * l.warp_allocation_granularity / warps_per_block;
}

// Blocks per SM its shared memory allows (cudaOccMaxBlocksPerSMSmemLimit,
// with the largest carveout: what the driver picks for a kernel that needs it).
int64_t blocks_by_shared_memory(const ArchLimits& l, int64_t shared_bytes_per_block) {
    const int64_t allocated = round_up(std::max<int64_t>(shared_bytes_per_block, 0) + l.reserved_shared_per_block, l.shared_allocation_unit);
    if (allocated > l.max_shared_per_block_optin + l.reserved_shared_per_block) return 0;
    return allocated == 0 ? kUnlimited : l.shared_memory_per_sm / allocated;
}

}  // namespace

Occupancy occupancy(const ArchLimits& l, int registers_per_thread, int64_t shared_bytes_per_block, int threads_per_block) {
    Occupancy o;
    o.max_warps_per_sm = l.max_threads_per_sm / l.warp_size;
    if (threads_per_block < 1 || threads_per_block > l.max_threads_per_block) {
        o.limited_by = "block_too_large";
        return o;
    }
    const int warps_per_block = (threads_per_block + l.warp_size - 1) / l.warp_size;
    const std::pair<const char*, int64_t> limits[] = {
        {"threads", o.max_warps_per_sm / warps_per_block},
        {"blocks", l.max_blocks_per_sm},
        {"registers", blocks_by_registers(l, registers_per_thread, warps_per_block)},
        {"shared_memory", blocks_by_shared_memory(l, shared_bytes_per_block)},
    };
    const auto* tightest = &limits[0];
    for (const auto& limit : limits)
        if (limit.second < tightest->second) tightest = &limit;  // strict: ties keep the earlier
    o.limited_by = tightest->first;
    o.active_blocks_per_sm = static_cast<int>(tightest->second);
    o.active_warps_per_sm = o.active_blocks_per_sm * warps_per_block;
    o.fraction = o.max_warps_per_sm > 0 ? double(o.active_warps_per_sm) / o.max_warps_per_sm : 0;
    return o;
}

std::optional<Occupancy> kernel_occupancy(const std::string& arch, const KernelResources& kernel, const LaunchShape& shape) {
    const std::optional<ArchLimits> limits = arch_limits(arch);
    if (!limits || shape.threads_per_block <= 0) return std::nullopt;
    return occupancy(*limits, kernel.registers, kernel.shared_bytes + shape.dynamic_shared_bytes, shape.threads_per_block);
}

// ---- words ------------------------------------------------------------------

namespace {

std::string kernel_text(const KernelResources& k, Lang lang) {
    std::string s = tr(lang, "gpu.kernel", {{"kernel", k.kernel}, {"registers", std::to_string(k.registers)},
                                            {"shared", format_count(k.shared_bytes, lang)}});
    if (k.spill_bytes() > 0)
        s += " " + tr(lang, "gpu.spill", {{"stores", format_count(k.spill_store_bytes, lang)}, {"loads", format_count(k.spill_load_bytes, lang)}});
    else s += " " + tr(lang, "gpu.no_spill");
    if (k.spill_bytes() == 0 && k.stack_frame_bytes > 0) s += " " + tr(lang, "gpu.stack", {{"bytes", format_count(k.stack_frame_bytes, lang)}});
    return s;
}

std::string compile_error_text(const ResourceReport& r, Lang lang) {
    std::string s = tr(lang, "gpu.compile_error", {{"arch", r.arch}});
    int shown = 0;
    for (const Diagnostic& d : r.diagnostics) {
        if (d.severity != "error" && d.severity != "fatal error") continue;
        if (++shown > 5) break;  // the editor shows them all; this is a summary
        s += "\n  " + d.file + ":" + std::to_string(d.line) + ": " + d.message;
    }
    if (shown == 0) s += "\n  " + first_line(r.log);
    return s;
}

}  // namespace

std::string describe_resources(const ResourceReport& r, Lang lang) {
    switch (r.status) {
        case ResourceReport::Status::Unavailable:
            if (r.cancelled) return tr(lang, "gpu.cancelled");
            return tr(lang, "gpu.unavailable", {{"detail", first_line(r.log)}});
        case ResourceReport::Status::CompileError: return compile_error_text(r, lang);
        case ResourceReport::Status::Ok: break;
    }
    std::string s = tr(lang, "gpu.header", {{"arch", r.arch}, {"version", r.nvrtc_version}});
    if (r.kernels.empty()) return s + "\n  " + tr(lang, "gpu.no_kernels");
    for (const KernelResources& k : r.kernels) s += "\n  " + kernel_text(k, lang);
    return s;
}

std::string describe_occupancy(const Occupancy& o, Lang lang) {
    const std::string limit = tr(lang, "gpu.limit." + o.limited_by);
    if (o.active_blocks_per_sm == 0) return tr(lang, "gpu.occupancy.none", {{"limit", limit}});
    return tr(lang, "gpu.occupancy",
              {{"percent", format_percent(o.fraction, lang)}, {"warps", std::to_string(o.active_warps_per_sm)},
               {"max_warps", std::to_string(o.max_warps_per_sm)}, {"blocks", std::to_string(o.active_blocks_per_sm)}, {"limit", limit}});
}

// ---- JSON -------------------------------------------------------------------

namespace {

nlohmann::json kernel_json(const std::string& arch, const KernelResources& k, const std::map<std::string, LaunchShape>& launches) {
    nlohmann::json j = {{"kernel", k.kernel},
                        {"mangled", k.mangled},
                        {"registers", k.registers},
                        {"shared_bytes", k.shared_bytes},
                        {"spill_bytes", k.spill_bytes()},
                        {"spill_store_bytes", k.spill_store_bytes},
                        {"spill_load_bytes", k.spill_load_bytes},
                        {"stack_frame_bytes", k.stack_frame_bytes},
                        {"barriers", k.barriers}};
    const auto launch = launches.find(k.kernel);
    if (launch == launches.end()) return j;
    if (const std::optional<Occupancy> o = kernel_occupancy(arch, k, launch->second))
        j["occupancy"] = {{"active_blocks_per_sm", o->active_blocks_per_sm}, {"active_warps_per_sm", o->active_warps_per_sm},
                          {"max_warps_per_sm", o->max_warps_per_sm},         {"fraction", o->fraction},
                          {"limited_by", o->limited_by},                     {"threads_per_block", launch->second.threads_per_block},
                          {"dynamic_shared_bytes", launch->second.dynamic_shared_bytes}};
    return j;
}

}  // namespace

nlohmann::json resources_to_json(const ResourceReport& r, const std::map<std::string, LaunchShape>& launches) {
    nlohmann::json kernels = nlohmann::json::array();
    int max_registers = 0;
    int64_t max_shared = 0, max_spill = 0;
    for (const KernelResources& k : r.kernels) {
        kernels.push_back(kernel_json(r.arch, k, launches));
        max_registers = std::max(max_registers, k.registers);
        max_shared = std::max(max_shared, k.shared_bytes);
        max_spill = std::max(max_spill, k.spill_bytes());
    }
    nlohmann::json diagnostics = nlohmann::json::array();
    for (const Diagnostic& d : r.diagnostics)
        diagnostics.push_back({{"file", d.file}, {"line", d.line}, {"column", d.column}, {"severity", d.severity}, {"message", d.message}});
    return {{"status", resource_status_code(r.status)},
            {"arch", r.arch},
            {"nvrtc_version", r.nvrtc_version},
            {"registers", max_registers},
            {"shared_bytes", max_shared},
            {"spill_bytes", max_spill},
            {"kernels", kernels},
            {"diagnostics", diagnostics},
            {"log", r.log},
            {"ms", r.ms}};
}

// ---- the compile --------------------------------------------------------------

namespace {

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

// Writes the source and headers under `dir` and returns attnlab-nvrtc's argv.
// NVRTC has no C or C++ standard library, yet a correct CUDA file includes
// <cfloat>, <cmath> or <cstdio> (nvcc and the emulator's host compiler have
// them): those headers as NVRTC needs them (its math functions and printf are
// built in), unless the caller gives its own.
std::vector<std::pair<std::string, std::string>> standard_header_stubs() {
    const std::string floats =
        "#pragma once\n#ifndef FLT_MAX\n#define FLT_MAX 3.402823466e+38f\n#endif\n#ifndef FLT_MIN\n#define FLT_MIN 1.175494351e-38f\n#endif\n"
        "#ifndef FLT_EPSILON\n#define FLT_EPSILON 1.192092896e-07f\n#endif\n";
    const std::string maths =
        "#pragma once\n#ifndef INFINITY\n#define INFINITY __int_as_float(0x7f800000)\n#endif\n#ifndef NAN\n#define NAN __int_as_float(0x7fffffff)\n#endif\n"
        "#ifndef M_PI\n#define M_PI 3.14159265358979323846\n#endif\n";
    const std::string ints =
        "#pragma once\ntypedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long long int64_t;\n"
        "typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t; typedef unsigned long long uint64_t;\n"
        "namespace std { using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t; using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t; }\n";
    const std::string limits =
        "#pragma once\n#define INT_MAX 2147483647\n#define INT_MIN (-INT_MAX - 1)\n#define UINT_MAX 4294967295u\n"
        "#define LLONG_MAX 9223372036854775807LL\n#define LLONG_MIN (-LLONG_MAX - 1)\n";
    const std::string none = "#pragma once\n";
    // The CUDA runtime's host side is the prelude's (attnlab/cuda.hpp); assert stops the thread as on a GPU.
    const std::string runtime = "#pragma once\n#include <attnlab/cuda.hpp>\n";
    const std::string asserts = "#pragma once\n#ifndef assert\n#define assert(e) ((e) ? (void)0 : __trap())\n#endif\n";
    return {{"cfloat", floats}, {"float.h", floats}, {"cmath", maths},   {"math.h", maths},   {"cstdint", ints},
            {"stdint.h", ints}, {"climits", limits}, {"limits.h", limits}, {"cstdio", none}, {"stdio.h", none},
            {"cuda_runtime.h", runtime}, {"cuda_runtime_api.h", runtime}, {"cuda.h", runtime}, {"cassert", asserts},
            {"assert.h", asserts}, {"cstring", none}, {"string.h", none}};
}

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
void read_outcome(const ProcessOutcome& p, const std::string& display_name, const std::string& source, ResourceReport& r) {
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
            r.log = "NVRTC did not finish within 30 s";
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
              const std::atomic<bool>* cancel, ResourceReport& r) {
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
    spec.policy.pass_env = {"ATTNLAB_NVRTC_LIB", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH"};  // where libnvrtc is
    for (const char* var : {"ATTNLAB_NVRTC_LIB", "CUDA_HOME", "CUDA_PATH"})
        if (const char* path = std::getenv(var); path && path[0] == '/') spec.policy.binds.push_back(path);
    spec.limits.wall_seconds = 30;
    spec.limits.memory_mb = 4096;
    spec.capture_bytes = 4 * 1024 * 1024;  // a log of many errors, JSON-escaped
    read_outcome(run_in_sandbox(spec, nullptr, cancel), display_name, source, r);
}

}  // namespace

ResourceReport compile_resources(const std::string& nvrtc_source, const std::string& display_name,
                                 const std::vector<std::pair<std::string, std::string>>& headers, const std::string& arch,
                                 const fs::path& work_dir, const std::atomic<bool>* cancel) {
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
        run_tool(tool, sandbox, nvrtc_source, display_name, headers, work_dir, cancel, r);
    }
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

}  // namespace attnlab
