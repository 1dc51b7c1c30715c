// ptxas -v, as NVRTC puts it in its log: one entry per __global__ kernel,
// named as the learner wrote it.
#include "attnlab/core/check/gpu_resources.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <regex>
#include <sstream>

namespace attnlab {
namespace {

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

std::string kernel_display_name(const std::string& mangled) {
    int status = 0;
    char* demangled = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    if (status != 0 || !demangled) return mangled;  // extern "C": not mangled
    const std::string name = strip_signature(demangled);
    std::free(demangled);
    return name.empty() ? mangled : name;
}

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

}  // namespace attnlab
