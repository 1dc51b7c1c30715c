// ptxas -v, as NVRTC puts it in its log: one entry per __global__ kernel,
// named as the learner wrote it.
#include "attnlab/core/check/gpu_resources.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <algorithm>
#include <cctype>
#include <string_view>
#include <sstream>

namespace attnlab {
namespace {

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

namespace {

// The log's lines are read with plain searches: a learner's kernel name is
// in them, as long as the learner made it, and no pattern here backtracks.

// The digits that end just before `end` (a number ptxas printed); -1 when none.
int64_t number_ending_at(std::string_view line, size_t end) {
    size_t begin = end;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1])) && end - begin < 18) --begin;
    return begin == end ? -1 : std::strtoll(std::string(line.substr(begin, end - begin)).c_str(), nullptr, 10);
}

// The number printed just before `words` in `line` ("12 bytes stack frame"); -1 when absent.
int64_t number_before(std::string_view line, std::string_view words) {
    const size_t at = line.find(words);
    if (at == std::string_view::npos || at == 0 || line[at - 1] != ' ') return -1;
    return number_ending_at(line, at - 1);
}

// What follows `prefix` up to the first of `stops`; "" when `prefix` is absent.
std::string text_after(std::string_view line, std::string_view prefix, const char* stops) {
    const size_t at = line.find(prefix);
    if (at == std::string_view::npos) return {};
    const std::string_view rest = line.substr(at + prefix.size());
    return std::string(rest.substr(0, rest.find_first_of(stops)));
}

// "Used 40 registers, used 1 barriers, 1024 bytes smem" (old ptxas: "1024+0 bytes smem").
void read_used_line(std::string_view line, KernelResources& k) {
    const size_t used = line.find("Used ");
    if (used == std::string_view::npos) return;
    k.registers = static_cast<int>(number_before(line.substr(used), "registers"));
    if (const int64_t barriers = number_before(line, "barriers"); barriers >= 0) k.barriers = static_cast<int>(barriers);
    const size_t smem = line.find(" bytes smem");
    if (smem == std::string_view::npos) return;
    size_t end = smem, digits = smem;
    while (digits > 0 && std::isdigit(static_cast<unsigned char>(line[digits - 1]))) --digits;
    if (digits > 0 && digits < end && line[digits - 1] == '+') end = digits - 1;  // "1024+0": the first figure
    if (const int64_t bytes = number_ending_at(line, end); bytes >= 0) k.shared_bytes = bytes;
}

}  // namespace

std::vector<KernelResources> parse_ptxas_log(const std::string& log) {
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
        if (std::string entry = text_after(line, "Compiling entry function '", "'"); !entry.empty()) {
            described = entry;
            if (!described_kernel()) kernels.push_back({kernel_display_name(described), described});
        } else if (std::string function = text_after(line, "Function properties for ", " \t:"); !function.empty()) {
            described = function;
        } else if (line.find(" bytes stack frame, ") != std::string::npos) {
            if (KernelResources* k = described_kernel()) {
                k->stack_frame_bytes = std::max<int64_t>(0, number_before(line, "bytes stack frame"));
                k->spill_store_bytes = std::max<int64_t>(0, number_before(line, "bytes spill stores"));
                k->spill_load_bytes = std::max<int64_t>(0, number_before(line, "bytes spill loads"));
            }
        } else if (line.find("Used ") != std::string::npos && line.find(" registers") != std::string::npos) {
            if (KernelResources* k = described_kernel()) read_used_line(line, *k);
        }
    }
    return kernels;
}

}  // namespace attnlab
