#include "attnlab/core/check/diagnostics.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <tuple>

namespace attnlab {
namespace {

constexpr std::string_view kSeverities[] = {"fatal error", "error", "warning", "note"};
constexpr size_t kMaxNumberDigits = 9;  // a line or column that fits an int

// The digits at `i` as a number (at most kMaxNumberDigits of them); `end` is
// past them. -1 when there is no digit there or too many.
long number_at(std::string_view s, size_t i, size_t& end) {
    end = i;
    while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
    if (end == i || end - i > kMaxNumberDigits) return -1;
    long v = 0;
    for (size_t k = i; k < end; ++k) v = v * 10 + (s[k] - '0');
    return v;
}

// `s` cut to at most `max` bytes, at a UTF-8 character boundary, with "…" when cut.
std::string capped(std::string_view s, size_t max) {
    if (s.size() <= max) return std::string(s);
    size_t cut = max;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    return std::string(s.substr(0, cut)) + "…";
}

// "file:line:col: severity: message" at the first ':' where the rest fits;
// every ':' is tried once and the digit runs between them are disjoint, so a
// line is scanned in linear time whatever it holds.
bool parse_line(std::string_view line, Diagnostic& d) {
    for (size_t colon = line.find(':'); colon != std::string_view::npos && colon > 0; colon = line.find(':', colon + 1)) {
        size_t after_line = 0, after_column = 0;
        const long line_no = number_at(line, colon + 1, after_line);
        if (line_no < 0 || after_line >= line.size() || line[after_line] != ':') continue;
        const long column = number_at(line, after_line + 1, after_column);
        if (column < 0 || line.substr(after_column, 2) != ": ") continue;
        const std::string_view rest = line.substr(after_column + 2);
        for (std::string_view severity : kSeverities) {
            if (rest.substr(0, severity.size()) != severity || rest.substr(severity.size(), 2) != ": ") continue;
            d.file = capped(line.substr(0, colon), kMaxDiagnosticMessageBytes);
            d.line = static_cast<int>(line_no);
            d.column = static_cast<int>(column);
            d.severity = std::string(severity);
            d.message = capped(rest.substr(severity.size() + 2), kMaxDiagnosticMessageBytes);
            return true;
        }
    }
    return false;
}

// gcc's source excerpt and caret lines belong to the diagnostic above them.
void add_context(Diagnostic& d, std::string_view line) {
    if (d.context.size() >= kMaxDiagnosticContextBytes) return;
    d.context += capped(line, kMaxDiagnosticContextBytes - d.context.size());
    d.context += '\n';
}

}  // namespace

std::vector<Diagnostic> parse_diagnostics(const std::string& output) {
    std::vector<Diagnostic> out;
    const std::string_view all(output);
    for (size_t start = 0; start < all.size();) {
        size_t end = all.find('\n', start);
        if (end == std::string_view::npos) end = all.size();
        const std::string_view line = all.substr(start, end - start);
        start = end + 1;
        Diagnostic d;
        if (parse_line(line, d)) {
            if (out.size() < kMaxDiagnostics) out.push_back(std::move(d));
        } else if (!out.empty() && (line.substr(0, 1) == " " || line.find(" | ") != std::string_view::npos)) {
            add_context(out.back(), line);
        }
    }
    return in_line_order(std::move(out));
}

std::vector<Diagnostic> in_line_order(std::vector<Diagnostic> diagnostics) {
    struct Group {
        size_t file_rank, first;  // the group is diagnostics[first, end)
        size_t end;
    };
    std::vector<std::string> files;  // in the order the compiler first named them
    std::vector<Group> groups;
    for (size_t i = 0; i < diagnostics.size(); ++i) {
        const Diagnostic& d = diagnostics[i];
        if (d.severity == "note" && !groups.empty()) {
            groups.back().end = i + 1;
            continue;
        }
        const size_t rank = static_cast<size_t>(std::find(files.begin(), files.end(), d.file) - files.begin());
        if (rank == files.size()) files.push_back(d.file);
        groups.push_back({rank, i, i + 1});
    }
    std::stable_sort(groups.begin(), groups.end(), [&](const Group& a, const Group& b) {
        const Diagnostic &x = diagnostics[a.first], &y = diagnostics[b.first];
        return std::tie(a.file_rank, x.line, x.column) < std::tie(b.file_rank, y.line, y.column);
    });
    std::vector<Diagnostic> ordered;
    ordered.reserve(diagnostics.size());
    for (const Group& g : groups)
        for (size_t i = g.first; i < g.end; ++i) ordered.push_back(std::move(diagnostics[i]));
    return ordered;
}

std::string missing_header(const std::vector<Diagnostic>& diagnostics) {
    static const std::string kMissing = ": No such file or directory";
    for (const Diagnostic& d : diagnostics) {
        if (d.severity != "fatal error" || d.message.size() <= kMissing.size()) continue;
        if (d.message.compare(d.message.size() - kMissing.size(), kMissing.size(), kMissing) == 0)
            return d.message.substr(0, d.message.size() - kMissing.size());
    }
    return "";
}

}  // namespace attnlab
