#include "attnlab/core/check/learner_includes.hpp"

#include <algorithm>
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
