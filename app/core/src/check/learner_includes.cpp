#include "attnlab/core/check/learner_includes.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace attnlab {
namespace {

std::string trim(const std::string& s) {
    const size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// The name in `#include <name>` (spaces allowed around '#' and the name, a
// trailing comment allowed); "" for any other line.
std::string angle_include(const std::string& line) {
    if (line.empty() || line[0] != '#') return "";
    std::string rest = trim(line.substr(1));
    if (rest.rfind("include", 0) != 0) return "";
    rest = trim(rest.substr(7));
    if (rest.empty() || rest[0] != '<') return "";
    const size_t close = rest.find('>');
    if (close == std::string::npos) return "";
    const std::string after = trim(rest.substr(close + 1));
    if (!after.empty() && after.rfind("//", 0) != 0) return "";  // a block comment or anything else: not plain
    return trim(rest.substr(1, close - 1));
}

}  // namespace

std::vector<std::string> leading_library_includes(const std::string& source, const std::vector<std::string>& known) {
    std::vector<std::string> found;
    std::istringstream in(source);
    bool in_block_comment = false;
    for (std::string raw; std::getline(in, raw);) {
        std::string line = trim(raw);
        if (in_block_comment) {
            const size_t end = line.find("*/");
            if (end == std::string::npos) continue;
            in_block_comment = false;
            line = trim(line.substr(end + 2));
        }
        if (line.rfind("/*", 0) == 0) {
            const size_t end = line.find("*/", 2);
            if (end == std::string::npos) {
                in_block_comment = true;
                continue;
            }
            line = trim(line.substr(end + 2));
        }
        if (line.empty() || line.rfind("//", 0) == 0) continue;
        const std::string name = angle_include(line);
        if (name.empty() || std::find(known.begin(), known.end(), name) == known.end()) break;
        found.push_back(name);
    }
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    return found;
}

bool names_special_math_function(const std::string& source) {
    static const char* const kNames[] = {"assoc_laguerre", "assoc_legendre", "beta",         "comp_ellint_1", "comp_ellint_2",
                                         "comp_ellint_3",  "cyl_bessel_i",   "cyl_bessel_j", "cyl_bessel_k",  "cyl_neumann",
                                         "ellint_1",       "ellint_2",       "ellint_3",     "expint",        "hermite",
                                         "laguerre",       "legendre",       "riemann_zeta", "sph_bessel",    "sph_legendre",
                                         "sph_neumann"};
    auto is_word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (size_t i = 0; i < source.size();) {
        if (!is_word(source[i])) {
            ++i;
            continue;
        }
        size_t end = i;
        while (end < source.size() && is_word(source[end])) ++end;
        std::string word = source.substr(i, end - i);
        i = end;
        for (const char* name : kNames)
            if (word == name || word == std::string(name) + "f" || word == std::string(name) + "l") return true;
    }
    return false;
}

std::vector<std::string> precompiled_header_prelude(const std::string& source) {
    if (names_special_math_function(source)) return {};
    return {"#define _GLIBCXX_BITS_SPECFUN_H 1  // no special math functions: the file names none (see learner_includes.hpp)"};
}

const std::vector<std::string>& standard_library_headers() {
    static const std::vector<std::string> headers = [] {
        std::vector<std::string> h = {
            "algorithm", "any", "array", "atomic", "bitset", "cassert", "cctype", "cerrno", "cfenv", "cfloat", "charconv",
            "chrono", "cinttypes", "climits", "clocale", "cmath", "codecvt", "complex", "condition_variable", "csetjmp",
            "csignal", "cstdarg", "cstddef", "cstdint", "cstdio", "cstdlib", "cstring", "ctime", "cuchar", "cwchar", "cwctype",
            "deque", "exception", "execution", "filesystem", "forward_list", "fstream", "functional", "future",
            "initializer_list", "iomanip", "ios", "iosfwd", "iostream", "istream", "iterator", "limits", "list", "locale",
            "map", "memory", "memory_resource", "mutex", "new", "numeric", "optional", "ostream", "queue", "random", "ratio",
            "regex", "scoped_allocator", "set", "shared_mutex", "sstream", "stack", "stdexcept", "streambuf", "string",
            "string_view", "system_error", "thread", "tuple", "type_traits", "typeindex", "typeinfo", "unordered_map",
            "unordered_set", "utility", "valarray", "variant", "vector"};
        // The C library's headers, also as <name.h>.
        for (const char* c : {"assert", "ctype", "errno", "fenv", "float", "inttypes", "limits", "locale", "math", "setjmp",
                              "signal", "stdarg", "stddef", "stdint", "stdio", "stdlib", "string", "time", "uchar", "wchar", "wctype"})
            h.push_back(std::string(c) + ".h");
        std::sort(h.begin(), h.end());
        return h;
    }();
    return headers;
}

}  // namespace attnlab
