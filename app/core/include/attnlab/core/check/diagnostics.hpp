#pragma once
// The compiler's output read as diagnostics: "file:line:col: severity: message"
// lines, with the source excerpt and caret lines that follow each one. The
// output is the learner's to shape (a 60 KB line, binary bytes, megabytes of
// errors): one linear scan, no backtracking, every kept field capped.
#include <string>
#include <vector>

#include "attnlab/core/check/check_result.hpp"

namespace attnlab {

// What is kept of one diagnostic: its message and its context (the excerpt
// and caret lines) up to these many bytes each; a longer one is cut at a
// character boundary and ends in "…".
inline constexpr size_t kMaxDiagnosticMessageBytes = 2000;
inline constexpr size_t kMaxDiagnosticContextBytes = 2000;
// At most this many diagnostics are kept (g++ stops after -fmax-errors anyway).
inline constexpr size_t kMaxDiagnostics = 1000;

// Parses gcc/clang output into diagnostics, in line order (in_line_order).
std::vector<Diagnostic> parse_diagnostics(const std::string& output);

// Diagnostics as a person reads the file: by line, then column, within each
// file, the files in the order the compiler first named them. A note stays
// right after the diagnostic it explains; the order is otherwise kept
// (a compiler reports a template's errors at its instantiation, out of order).
std::vector<Diagnostic> in_line_order(std::vector<Diagnostic> diagnostics);

// The header a "fatal error: NAME: No such file or directory" names, the
// first such; "" when no diagnostic is one. Pure.
std::string missing_header(const std::vector<Diagnostic>& diagnostics);

}  // namespace attnlab
