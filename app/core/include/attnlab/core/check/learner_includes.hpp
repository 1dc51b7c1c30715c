#pragma once
// Which library headers a learner's file includes before its first line of
// code: what a precompiled header may hold for that file without changing
// what the file means. A header the file does not include stays out of it,
// so a forgotten #include is still the compiler's error, as it would be
// anywhere else.
#include <string>
#include <vector>

namespace attnlab {

// The headers named by the file's leading `#include <name>` lines, sorted and
// without repeats, as long as every name is in `known`. The scan stops at the
// first line that is not blank, a comment, or such an include (code, another
// directive, an unknown or quoted header): a macro defined there could change
// what a later header declares, so nothing after it is moved ahead of it.
std::vector<std::string> leading_library_includes(const std::string& source, const std::vector<std::string>& known);

// The C++17 standard library's headers, and the C library's under both
// spellings (<cmath>, <math.h>): the headers a learner's C++ file may include.
const std::vector<std::string>& standard_library_headers();

}  // namespace attnlab
