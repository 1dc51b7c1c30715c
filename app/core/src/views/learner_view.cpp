#include "attnlab/core/views/learner_view.hpp"

#include "attnlab/core/text/launch_words.hpp"
#include "attnlab/core/text/report.hpp"

namespace attnlab {

namespace {

LineMarkKind diagnostic_kind(const std::string& severity) {
    return severity == "warning" ? LineMarkKind::Warning : LineMarkKind::Error;
}

void add_mark(std::vector<LineMark>& marks, int line, int column, LineMarkKind kind, std::string message) {
    if (line <= 0) return;
    marks.push_back({line, column, kind, std::move(message)});
}

// The racecheck pair's other access, in words.
std::string other_access_text(const emu::Fault& f, Lang lang) {
    const std::string thread = "(" + std::to_string(f.other_thread.x) + ", " + std::to_string(f.other_thread.y) + ", " +
                               std::to_string(f.other_thread.z) + ")";
    return tr(lang, f.other_is_write ? msg::gui_lines_race_other_write : msg::gui_lines_race_other_read,
              {{"thread", thread}, {"index", std::to_string(f.index)}});
}

}  // namespace

std::vector<LineMark> verdict_lines(const CheckResult& r, const std::string& learner_file, Lang lang) {
    std::vector<LineMark> marks;
    for (const Diagnostic& d : r.diagnostics) {
        if (d.severity == "note" || d.file != learner_file) continue;
        add_mark(marks, d.line, d.column, diagnostic_kind(d.severity), d.severity + ": " + d.message);
    }
    for (const UnreadPart& p : r.unread_parts) add_mark(marks, p.line, 0, LineMarkKind::Error, unread_part_text(p, lang));
    if (r.failed_case >= 0 && r.failed_case < static_cast<int>(r.cases.size())) {
        const CaseOutcome& c = r.cases[static_cast<size_t>(r.failed_case)];
        for (const emu::LaunchReport& L : c.kernels.launches) {
            if (L.ok()) continue;
            add_mark(marks, L.fault.line, 0, LineMarkKind::Fault, describe_fault(L.fault, lang));
            if (L.fault.kind == emu::FaultKind::SharedRace && L.fault.other_line != L.fault.line)
                add_mark(marks, L.fault.other_line, 0, LineMarkKind::Fault, other_access_text(L.fault, lang));
            break;  // the first faulting launch stopped the case
        }
    }
    return marks;
}

}  // namespace attnlab
