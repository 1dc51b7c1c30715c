#include "syntax.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace attnlab::gui {

namespace {

constexpr std::array kKeywords = {
    "alignas", "auto", "break", "case", "catch", "class", "const", "constexpr", "continue", "default", "delete", "do",
    "else", "enum", "explicit", "extern", "false", "for", "friend", "goto", "if", "inline", "mutable", "namespace", "new",
    "noexcept", "nullptr", "operator", "private", "protected", "public", "return", "sizeof", "static", "static_assert",
    "static_cast", "reinterpret_cast", "const_cast", "dynamic_cast", "struct", "switch", "template", "this", "throw",
    "true", "try", "typedef", "typename", "union", "using", "virtual", "volatile", "while", "decltype", "restrict",
};
constexpr std::array kTypes = {
    "bool", "char", "double", "float", "int", "long", "short", "signed", "unsigned", "void", "size_t", "int64_t",
    "int32_t", "uint32_t", "uint64_t", "int8_t", "uint8_t", "int16_t", "uint16_t", "ptrdiff_t", "Tensor", "DeviceTensor",
    "dev_ptr", "dim3", "float2", "float4", "int2", "int4", "uint3", "half", "std",
};
// CUDA's qualifiers, built-in variables and functions.
constexpr std::array kCuda = {
    "__global__", "__device__", "__host__", "__shared__", "__constant__", "__restrict__", "__forceinline__",
    "__noinline__", "__launch_bounds__", "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "__syncthreads",
    "__syncthreads_count", "__syncthreads_and", "__syncthreads_or", "__syncwarp", "__shfl_sync", "__shfl_down_sync",
    "__shfl_up_sync", "__shfl_xor_sync", "__ballot_sync", "__any_sync", "__all_sync", "__ldg", "__expf", "__fdividef",
    "__fmaf_rn", "atomicAdd", "atomicMax", "atomicMin", "atomicExch", "atomicCAS", "__threadfence", "__threadfence_block",
    "__popc", "__clz", "__ffs", "cudaMalloc", "cudaFree", "cudaMemcpy", "cudaGetLastError", "cudaDeviceSynchronize",
};

template <size_t N>
bool in(const std::array<const char*, N>& list, std::string_view word) {
    return std::any_of(list.begin(), list.end(), [&](const char* w) { return word == w; });
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A number literal from `i`: digits, '.', exponents, hex, suffixes, separators.
size_t number_end(std::string_view s, size_t i) {
    size_t j = i;
    while (j < s.size()) {
        const char c = s[j];
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '\'') ++j;
        else if ((c == '+' || c == '-') && j > i && (s[j - 1] == 'e' || s[j - 1] == 'E') && !(s.size() > i + 1 && (s[i + 1] == 'x' || s[i + 1] == 'X'))) ++j;
        else break;
    }
    return j;
}

size_t quoted_end(std::string_view s, size_t i) {
    const char q = s[i];
    size_t j = i + 1;
    while (j < s.size() && s[j] != q) j += s[j] == '\\' ? 2 : 1;
    return std::min(j + 1, s.size());
}

void push(std::vector<TokenSpan>& out, size_t b, size_t e, TokenKind k) {
    out.push_back({static_cast<int>(b), static_cast<int>(e), k});
}

}  // namespace

std::vector<TokenSpan> highlight_line(std::string_view s, bool& in_block_comment) {
    std::vector<TokenSpan> out;
    size_t i = 0;
    if (in_block_comment) {
        const size_t close = s.find("*/");
        const size_t end = close == std::string_view::npos ? s.size() : close + 2;
        push(out, 0, end, TokenKind::Comment);
        if (close == std::string_view::npos) return out;
        in_block_comment = false;
        i = end;
    }
    const size_t first = s.find_first_not_of(" \t");
    if (i == 0 && first != std::string_view::npos && s[first] == '#') {
        // A directive: the directive itself, then an <include> or "include" as a string.
        size_t e = first + 1;
        while (e < s.size() && (s[e] == ' ' || ident_char(s[e]))) ++e;
        push(out, first, e, TokenKind::Preprocessor);
        i = e;
        if (i < s.size() && s[i] == '<') {
            const size_t close = s.find('>', i);
            const size_t end = close == std::string_view::npos ? s.size() : close + 1;
            push(out, i, end, TokenKind::String);
            i = end;
        }
    }
    while (i < s.size()) {
        const char c = s[i];
        const char n = i + 1 < s.size() ? s[i + 1] : '\0';
        if (c == '/' && n == '/') {
            push(out, i, s.size(), TokenKind::Comment);
            break;
        }
        if (c == '/' && n == '*') {
            const size_t close = s.find("*/", i + 2);
            const size_t end = close == std::string_view::npos ? s.size() : close + 2;
            push(out, i, end, TokenKind::Comment);
            if (close == std::string_view::npos) in_block_comment = true;
            i = end;
        } else if (c == '"' || c == '\'') {
            const size_t end = quoted_end(s, i);
            push(out, i, end, TokenKind::String);
            i = end;
        } else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && std::isdigit(static_cast<unsigned char>(n)))) {
            const size_t end = number_end(s, i);
            push(out, i, end, TokenKind::Number);
            i = end;
        } else if (ident_start(c)) {
            size_t end = i;
            while (end < s.size() && ident_char(s[end])) ++end;
            const std::string_view word = s.substr(i, end - i);
            if (in(kCuda, word)) push(out, i, end, TokenKind::Cuda);
            else if (in(kTypes, word)) push(out, i, end, TokenKind::Type);
            else if (in(kKeywords, word)) push(out, i, end, TokenKind::Keyword);
            i = end;
        } else if (c == '<' && n == '<' && i + 2 < s.size() && s[i + 2] == '<') {
            push(out, i, i + 3, TokenKind::Cuda);  // a launch: <<<grid, block>>>
            i += 3;
        } else if (c == '>' && n == '>' && i + 2 < s.size() && s[i + 2] == '>') {
            push(out, i, i + 3, TokenKind::Cuda);
            i += 3;
        } else {
            ++i;
        }
    }
    return out;
}

}  // namespace attnlab::gui
