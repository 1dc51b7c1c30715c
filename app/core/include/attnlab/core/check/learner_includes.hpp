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

// Whether the file names one of C++17's special math functions
// (std::cyl_bessel_j, std::riemann_zeta, std::beta, ... and their f and l
// forms) anywhere, comments included: a word match, so a variable called
// `beta` counts too, and the file simply keeps them.
bool names_special_math_function(const std::string& source);

// The lines a precompiled header for `source` starts with, before any
// #include. libstdc++'s C++17 <cmath> defines the special math functions
// inline, and g++ instantiates their templates (about a hundred) at the end
// of every file that includes <cmath>, used or not: 0.07 s of each check.
// A file that names none of them gets <bits/specfun.h>'s include guard
// defined first, which leaves them out; one that names any gets all of them.
std::vector<std::string> precompiled_header_prelude(const std::string& source);

// The C++17 standard library's headers, and the C library's under both
// spellings (<cmath>, <math.h>): the headers a learner's C++ file may include.
const std::vector<std::string>& standard_library_headers();

}  // namespace attnlab
