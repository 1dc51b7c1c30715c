#pragma once
// What a check says about the learner's own file, as data for an editor:
// the lines a verdict names (compiler diagnostics, a kernel fault and the
// racing access). The GUI draws these; it never parses diagnostics itself.
#include <string>
#include <vector>

#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/text/messages.hpp"

namespace attnlab {

enum class LineMarkKind { Error, Warning, Fault };

// One line of the learner's file that the verdict names.
struct LineMark {
    int line = 0;        // 1-based
    int column = 0;      // 1-based, 0 when unknown
    LineMarkKind kind = LineMarkKind::Error;
    std::string message;  // in the learner's language (the compiler's own words for diagnostics)
};

// Every line of `learner_file` the check names, in the order the verdict
// gives them (the first is where a click on the verdict should jump).
// Compiler notes are left out; diagnostics in other files too.
std::vector<LineMark> verdict_lines(const CheckResult& r, const std::string& learner_file, Lang lang);

}  // namespace attnlab
