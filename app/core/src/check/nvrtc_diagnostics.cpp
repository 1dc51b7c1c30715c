// NVRTC's errors and warnings ("learner.cu(12): error: ...", an excerpt, a
// caret) as Diagnostics on the learner's file and lines.
#include "attnlab/core/check/gpu_resources.hpp"

#include <cstdlib>
#include <regex>
#include <sstream>

namespace attnlab {
namespace {

// "learner.cu(12): error: message" -> a Diagnostic; nullopt for other lines.
std::optional<Diagnostic> diagnostic_header(const std::string& line, const std::string& file_name) {
    static const std::regex any_file_re(R"(^([^()\s][^()]*)(\(\d+\): .*)$)");
    static const std::regex rest_re(R"(^\((\d+)\): (catastrophic error|error|warning|remark|note)(?: #[\w-]+)?: (.*)$)");
    Diagnostic d;
    std::string rest;
    std::smatch m;
    if (!file_name.empty() && line.rfind(file_name + "(", 0) == 0) {
        d.file = file_name;
        rest = line.substr(file_name.size());
    } else if (std::regex_match(line, m, any_file_re)) {
        d.file = m[1];
        rest = m[2];
    } else {
        return std::nullopt;
    }
    if (!std::regex_match(rest, m, rest_re)) return std::nullopt;
    d.line = static_cast<int>(std::strtoll(m[1].str().c_str(), nullptr, 10));
    const std::string severity = m[2];
    d.severity = severity == "catastrophic error" ? "fatal error" : severity == "remark" ? "note" : severity;
    d.message = m[3];
    return d;
}

// NVRTC prints the source line indented by two spaces and a caret under the
// column, tabs kept: the caret's offset is the 1-based byte column.
int column_from_context(const std::string& context) {
    std::istringstream lines(context);
    for (std::string line; std::getline(lines, line);) {
        const size_t caret = line.find('^');
        if (caret == std::string::npos || caret < 2 || line.compare(0, 2, "  ") != 0) continue;
        if (line.find_first_not_of(" \t") != caret) continue;
        return static_cast<int>(caret - 2 + 1);
    }
    return 0;
}

}  // namespace

std::vector<Diagnostic> parse_nvrtc_diagnostics(const std::string& log, const std::string& file_name) {
    std::vector<Diagnostic> out;
    bool in_context = false;
    std::istringstream lines(log);
    for (std::string line; std::getline(lines, line);) {
        if (std::optional<Diagnostic> d = diagnostic_header(line, file_name)) {
            out.push_back(std::move(*d));
            in_context = true;
        } else if (in_context && !line.empty() && (line[0] == ' ' || line[0] == '\t')) {
            // The excerpt, the caret and "detected during instantiation" lines.
            if (out.back().context.size() < 2000) out.back().context += line + "\n";
        } else {
            in_context = false;  // a blank line or NVRTC's closing summary
        }
    }
    for (Diagnostic& d : out) d.column = column_from_context(d.context);
    return out;
}

}  // namespace attnlab
