#include "attnlab/core/cuda_source.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace attnlab::cuda_source {
namespace {

bool is_ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The source with comments and literals blanked (newlines kept), so every
// search below sees code only, at the same offsets as the original.
std::string code_only(const std::string& s) {
    std::string out = s;
    size_t i = 0;
    auto blank = [&](size_t from, size_t to) {
        for (size_t k = from; k < to && k < out.size(); ++k)
            if (out[k] != '\n') out[k] = ' ';
    };
    while (i < s.size()) {
        if (s.compare(i, 2, "//") == 0) {
            size_t end = s.find('\n', i);
            if (end == std::string::npos) end = s.size();
            blank(i, end);
            i = end;
        } else if (s.compare(i, 2, "/*") == 0) {
            size_t end = s.find("*/", i + 2);
            end = end == std::string::npos ? s.size() : end + 2;
            blank(i, end);
            i = end;
        } else if (s[i] == '"' || s[i] == '\'') {
            const char quote = s[i];
            size_t k = i + 1;
            while (k < s.size() && s[k] != quote && s[k] != '\n') k += s[k] == '\\' ? 2 : 1;
            blank(i + 1, k);  // the quotes stay: a literal is still a token
            i = k + 1;
        } else {
            ++i;
        }
    }
    return out;
}

// Offset just past the bracket that closes the one at `open` (any of ( [ <
// nested), or npos. `<` only counts for template arguments before `<<<`.
size_t matching_triple_close(const std::string& code, size_t from) {
    int depth = 0;
    for (size_t i = from; i + 2 < code.size() + 0; ++i) {
        const char c = code[i];
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth < 0) return std::string::npos;
        } else if (depth == 0 && code.compare(i, 3, ">>>") == 0) {
            return i;
        } else if (c == ';') {
            return std::string::npos;
        }
    }
    return std::string::npos;
}

// The kernel expression before `<<<` at `at`: an identifier, qualified or
// with template arguments (`ns::k`, `k<float, 4>`). Returns its start, or npos.
size_t kernel_name_start(const std::string& code, size_t at) {
    size_t i = at;
    while (i > 0 && std::isspace(static_cast<unsigned char>(code[i - 1]))) --i;
    const size_t end = i;
    while (i > 0) {
        const char c = code[i - 1];
        if (c == '>') {  // template arguments: back to the matching '<'
            int depth = 0;
            size_t k = i;
            while (k > 0) {
                --k;
                if (code[k] == '>') ++depth;
                else if (code[k] == '<' && --depth == 0) break;
            }
            if (depth != 0) return std::string::npos;
            i = k;
        } else if (is_ident(c) || c == ':') {
            --i;
        } else {
            break;
        }
    }
    return i < end ? i : std::string::npos;
}

// The replacement of `replaced` with the same number of lines: the newlines
// it lacks (a declaration spread over lines becomes one) follow it.
std::string keep_lines(const std::string& replaced, std::string replacement) {
    const auto newlines = [](const std::string& t) { return std::count(t.begin(), t.end(), '\n'); };
    const auto missing = newlines(replaced) - newlines(replacement);
    if (missing > 0) replacement.append(static_cast<size_t>(missing), '\n');
    return replacement;
}

struct Edit {
    size_t from, to;
    std::string text;
};

std::string apply(const std::string& s, const std::vector<Edit>& edits) {
    std::string out;
    size_t at = 0;
    for (const Edit& e : edits) {
        out.append(s, at, e.from - at);
        out += keep_lines(s.substr(e.from, e.to - e.from), e.text);
        at = e.to;
    }
    out.append(s, at, std::string::npos);
    return out;
}

std::string trim(const std::string& s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

// Every `name<<<config>>>(` in the code, rewritten by `make(name, config)`.
template <class Make> void find_launches(const std::string& s, const std::string& code, std::vector<Edit>& edits, Make make) {
    for (size_t at = code.find("<<<"); at != std::string::npos; at = code.find("<<<", at + 3)) {
        const size_t name_from = kernel_name_start(code, at);
        const size_t close = matching_triple_close(code, at + 3);
        if (name_from == std::string::npos || close == std::string::npos) continue;
        size_t paren = close + 3;
        while (paren < code.size() && std::isspace(static_cast<unsigned char>(code[paren]))) ++paren;
        if (paren >= code.size() || code[paren] != '(') continue;
        const std::string name = trim(s.substr(name_from, at - name_from));
        const std::string config = s.substr(at + 3, close - at - 3);
        edits.push_back({name_from, paren + 1, make(name, config)});
        at = paren;
    }
}

// `[extern] __shared__ T name[dims];` -> the emulator's checked forms.
// Anything else (a scalar, a pointer, an initialiser, __align__) is left alone.
void find_shared(const std::string& s, const std::string& code, std::vector<Edit>& edits) {
    const std::string key = "__shared__";
    for (size_t at = code.find(key); at != std::string::npos; at = code.find(key, at + key.size())) {
        if ((at > 0 && is_ident(code[at - 1])) || is_ident(code[at + key.size()])) continue;
        const size_t semi = code.find(';', at);
        if (semi == std::string::npos) continue;
        const std::string decl = code.substr(at + key.size(), semi - at - key.size());
        if (decl.find_first_of("*=,(){}&") != std::string::npos) continue;
        const size_t bracket = decl.find('[');
        if (bracket == std::string::npos) continue;
        // name = the identifier right before the first '['; type = what precedes it
        size_t name_end = bracket;
        while (name_end > 0 && std::isspace(static_cast<unsigned char>(decl[name_end - 1]))) --name_end;
        size_t name_begin = name_end;
        while (name_begin > 0 && is_ident(decl[name_begin - 1])) --name_begin;
        const std::string name = decl.substr(name_begin, name_end - name_begin);
        std::string type = " " + decl.substr(0, name_begin) + " ";
        for (size_t v; (v = type.find(" volatile ")) != std::string::npos;) type.erase(v, 9);
        type = trim(type);
        const std::string dims = trim(decl.substr(bracket));
        if (name.empty() || type.empty()) continue;
        // `extern` before __shared__ makes it the launch's dynamic shared memory
        size_t before = at;
        while (before > 0 && std::isspace(static_cast<unsigned char>(code[before - 1]))) --before;
        const bool is_extern = before >= 6 && code.compare(before - 6, 6, "extern") == 0 && (before == 6 || !is_ident(code[before - 7]));
        if (is_extern) {
            if (dims != "[]") continue;
            edits.push_back({before - 6, semi + 1,
                             "::attnlab::emu::SharedPtr<" + type + "> " + name + " = ::attnlab::emu::dynamic_shared<" + type + ">(\"" + name + "\");"});
        } else {
            edits.push_back({at, semi + 1, "__shared__ ::attnlab::emu::shared<" + type + dims + "> " + name + "{\"" + name + "\"};"});
        }
    }
}

std::vector<Edit> sorted(std::vector<Edit> edits) {
    std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.from < b.from; });
    std::vector<Edit> out;  // overlapping edits cannot happen in valid code; keep the first
    for (Edit& e : edits)
        if (out.empty() || e.from >= out.back().to) out.push_back(std::move(e));
    return out;
}

}  // namespace

std::string for_emulator(const std::string& source) {
    const std::string code = code_only(source);
    std::vector<Edit> edits;
    find_launches(source, code, edits, [](const std::string& name, const std::string& config) {
        return "::attnlab::detail::launch_site(\"" + name + "\", " + name + ", " + config + ")(";
    });
    find_shared(source, code, edits);
    return apply(source, sorted(std::move(edits)));
}

std::string for_nvrtc(const std::string& source) {
    const std::string code = code_only(source);
    std::vector<Edit> edits;
    find_launches(source, code, edits, [](const std::string& name, const std::string& config) {
        return "::attnlab::detail::launch_site(\"" + name + "\", " + config + ")(";
    });
    return apply(source, sorted(std::move(edits)));
}

const std::string& nvrtc_prelude() {
    static const std::string text = R"(// attnlab/cuda.hpp as NVRTC sees it: the dialect of attnlab's CUDA exercises on a GPU.
#pragma once
// NVRTC has no <cmath>/<cfloat>: the constants learners use, spelled for the device.
#define INFINITY __int_as_float(0x7f800000)
#define FLT_MAX 3.402823466e+38f
template <class T> using dev_ptr = T*;
class DeviceTensor {
public:
    int rank() const { return rank_; }
    long long size(int axis) const { return shape_[axis]; }
    long long numel() const { long long n = 1; for (int i = 0; i < rank_; ++i) n *= shape_[i]; return n; }
    float* data() { return data_; }
    const float* data() const { return data_; }
private:
    float* data_ = nullptr;
    long long shape_[8] = {};
    int rank_ = 0;
};
inline int ceil_div(long long a, long long b) { return b <= 0 ? 0 : int((a + b - 1) / b); }
// NVRTC declares cudaError_t and the device runtime's functions itself; the
// host calls a launcher makes are no-ops here (this compile is for resources).
#define cudaGetLastError() cudaSuccess
#define cudaPeekAtLastError() cudaSuccess
#define cudaDeviceSynchronize() cudaSuccess
#define cudaGetErrorString(error) ""
namespace attnlab { namespace detail {
struct LaunchStub { template <class... A> void operator()(A&&...) const {} };
inline LaunchStub launch_site(const char*, dim3, dim3, unsigned long long = 0, int = 0) { return {}; }
} }
)";
    return text;
}

}  // namespace attnlab::cuda_source
