// NVRTC's errors and warnings ("learner.cu(12): error: ...", an excerpt, a
// caret) as Diagnostics on the learner's file and lines.
#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/core/check/diagnostics.hpp"

#include <cstdlib>
#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>
#include <sstream>

namespace attnlab {
namespace {

// "(12): error #20-D: message" after the file name: the line, the severity in
// gcc's words and the message into `d`. A plain scan: the line may be as long
// as the learner made it.
bool read_rest(std::string_view rest, Diagnostic& d) {
    if (rest.substr(0, 1) != "(") return false;
    size_t i = 1;
    while (i < rest.size() && i <= 10 && std::isdigit(static_cast<unsigned char>(rest[i]))) ++i;
    if (i == 1 || i > 10 || rest.substr(i, 3) != "): ") return false;
    d.line = static_cast<int>(std::strtol(std::string(rest.substr(1, i - 1)).c_str(), nullptr, 10));
    rest = rest.substr(i + 3);
    static const std::pair<std::string_view, const char*> kSeverities[] = {
        {"catastrophic error", "fatal error"}, {"error", "error"}, {"warning", "warning"}, {"remark", "note"}, {"note", "note"}};
    for (const auto& [word, severity] : kSeverities) {
        if (rest.substr(0, word.size()) != word) continue;
        std::string_view after = rest.substr(word.size());
        if (after.substr(0, 2) == " #") {  // a diagnostic number: " #20-D"
            size_t end = 2;
            while (end < after.size() && (std::isalnum(static_cast<unsigned char>(after[end])) || after[end] == '_' || after[end] == '-')) ++end;
            after = after.substr(end);
        }
        if (after.substr(0, 2) != ": ") return false;
        d.severity = severity;
        d.message = std::string(after.substr(2, 2000));
        return true;
    }
    return false;
}

// "learner.cu(12): error: message" -> a Diagnostic; nullopt for other lines.
std::optional<Diagnostic> diagnostic_header(const std::string& line, const std::string& file_name) {
    Diagnostic d;
    std::string_view rest;
    if (!file_name.empty() && line.rfind(file_name + "(", 0) == 0) {
        d.file = file_name;
        rest = std::string_view(line).substr(file_name.size());
    } else {
        const size_t open = line.find('(');  // another file's name: no brackets in it, no leading space
        if (open == std::string::npos || open == 0 || std::isspace(static_cast<unsigned char>(line[0])) ||
            line.find(')') < open)
            return std::nullopt;
        d.file = line.substr(0, std::min<size_t>(open, 2000));
        rest = std::string_view(line).substr(open);
    }
    if (!read_rest(rest, d)) return std::nullopt;
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
    return in_line_order(std::move(out));
}

}  // namespace attnlab
