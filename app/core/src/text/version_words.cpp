#include "attnlab/core/text/version_words.hpp"

#include <cmath>

#include "attnlab/core/check/roofline.hpp"
#include "attnlab/core/text/messages.hpp"
#include "attnlab/core/text/launch_words.hpp"
#include "attnlab/core/text/number_format.hpp"
#include "attnlab/core/text/performance_words.hpp"
#include "attnlab/core/text/report.hpp"

namespace attnlab {

namespace {

// A value in its row's unit.
std::string format_value(const std::string& counter, double v, Lang lang) {
    if (counter == "estimated_time") return format_seconds(v, lang);
    if (counter == "dram_bytes" || counter == "requested_bytes" || counter == "global_reloaded_bytes") return format_bytes(v, lang);
    if (counter == "traffic_ratio") return format_fixed(v, 1, lang) + "×";
    if (counter == "intensity") return format_fixed(v, 2, lang);
    if (counter == "waves" || counter == "sectors_per_load_request") return format_fixed(v, 2, lang);
    return format_count(static_cast<int64_t>(std::llround(v)), lang);
}

// A ratio for people: two decimals under 1, one under 10, none above.
std::string format_ratio(double v, Lang lang) { return format_fixed(v, v >= 10 ? 0 : v >= 1 ? 1 : 2, lang); }

// Why the earlier run gave no (right) figures: the verdict, and for a fault
// what the emulator saw, as a sentence.
std::string earlier_reason(const CheckResult& r, Lang lang) {
    std::string reason = verdict_title(r.verdict, r.cause, lang);
    for (const CaseOutcome& c : r.cases)
        for (const emu::LaunchReport& L : c.kernels.launches)
            if (!L.ok() && reason.find(':') == std::string::npos) reason += ": " + describe_fault(L.fault, lang);
    return reason.empty() || reason.back() == '.' ? reason : reason + ".";
}

// +1 when the current kernel's value is the better one, -1 when worse.
int direction(const VersionRow& row) {
    if (row.better == Better::Neither || row.after == row.before) return 0;
    const bool lower = row.after < row.before;
    return (row.better == Better::Lower) == lower ? 1 : -1;
}

// Columns a terminal gives UTF-8 text: one per code point ("×", "µs").
size_t utf8_width(const std::string& s) {
    size_t n = 0;
    for (unsigned char ch : s) n += (ch & 0xC0) != 0x80;
    return n;
}

const GpuModel* gpu_at(size_t gpu) { return gpu < gpu_models().size() ? &gpu_models()[gpu] : nullptr; }

std::string gpu_name(size_t gpu) { return gpu_at(gpu) ? gpu_at(gpu)->name : std::string(); }

}  // namespace

VersionCells version_cells(const VersionRow& row, const std::string& gpu, Lang lang) {
    VersionCells c;
    c.label = tr(lang, built_key("versions.row." + row.counter), {{"gpu", gpu}});
    c.before = format_value(row.counter, row.before, lang);
    c.after = format_value(row.counter, row.after, lang);
    if (row.before > 0 && row.after >= 0) c.change = "×" + format_ratio(row.after / row.before, lang);
    c.direction = direction(row);
    if (c.direction != 0) c.judgement = tr(lang, c.direction > 0 ? msg::versions_better : msg::versions_worse);
    return c;
}

std::string describe_speedup(const VersionComparison& c, size_t gpu, Lang lang) {
    if (!c.before || !c.after || gpu >= c.before->performance.estimates.size() || gpu >= c.after->performance.estimates.size()) return "";
    const double before = c.before->performance.estimates[gpu].seconds, after = c.after->performance.estimates[gpu].seconds;
    if (!(before > 0) || !(after > 0)) return "";
    const bool faster = after <= before;
    return tr(lang, faster ? msg::versions_faster : msg::versions_slower,
              {{"times", format_ratio(faster ? before / after : after / before, lang)}, {"gpu", gpu_name(gpu)}});
}

std::string describe_earlier_outcome(const VersionComparison& c, const std::string& earlier_title, Lang lang) {
    const CheckResult& r = c.earlier_result;
    if (r.verdict == Verdict::Pass && c.before) return "";
    const std::map<std::string, std::string> args = {{"title", earlier_title}, {"earlier", c.earlier_id}, {"verdict", earlier_reason(r, lang)}};
    if (c.before) return tr(lang, msg::versions_earlier_wrong, args);  // it ran whole, but its values are wrong here
    return tr(lang, msg::versions_earlier_no_figures, args);
}

std::string describe_version_comparison(const VersionComparison& c, const std::string& earlier_title, size_t gpu, Lang lang) {
    std::string out = tr(lang, msg::versions_header, {{"title", earlier_title}, {"earlier", c.earlier_id}, {"case", std::to_string(c.case_index + 1)}});
    if (const std::string outcome = describe_earlier_outcome(c, earlier_title, lang); !outcome.empty()) out += "\n" + outcome;
    if (!c.before || !c.after) return out;
    const std::vector<VersionRow> rows = version_rows(*c.before, *c.after, gpu);
    std::vector<VersionCells> cells;
    size_t label_width = 0, before_width = tr(lang, msg::versions_column_before).size(), after_width = tr(lang, msg::versions_column_after).size();
    for (const VersionRow& row : rows) {
        cells.push_back(version_cells(row, gpu_name(gpu), lang));
        label_width = std::max(label_width, utf8_width(cells.back().label));
        before_width = std::max(before_width, utf8_width(cells.back().before));
        after_width = std::max(after_width, utf8_width(cells.back().after));
    }
    auto pad = [](const std::string& s, size_t width) { return s + std::string(width - std::min(width, utf8_width(s)), ' '); };
    out += "\n\n  " + pad("", label_width) + "  " + pad(tr(lang, msg::versions_column_before), before_width) + "  " +
           pad(tr(lang, msg::versions_column_after), after_width) + "\n";
    for (const VersionCells& cell : cells)
        out += "  " + pad(cell.label, label_width) + "  " + pad(cell.before, before_width) + "  " + pad(cell.after, after_width) + "  " +
               cell.change + (cell.judgement.empty() ? "" : " " + cell.judgement) + "\n";
    if (const std::string speedup = describe_speedup(c, gpu, lang); !speedup.empty()) out += "\n" + speedup;
    return out;
}

nlohmann::json version_comparison_to_json(const VersionComparison& c, size_t gpu, Lang lang) {
    nlohmann::json j = {{"earlier", c.earlier_id},
                        {"current", c.current_id},
                        {"case", c.case_index + 1},
                        {"earlier_verdict", verdict_code(c.earlier_result.verdict)},
                        {"earlier_cause", c.earlier_result.cause.code()},
                        {"gpu", gpu_name(gpu)},
                        {"rows", nlohmann::json::array()}};
    if (c.before && c.after) {
        for (const VersionRow& row : version_rows(*c.before, *c.after, gpu)) {
            const int d = direction(row);
            j["rows"].push_back({{"counter", row.counter}, {"before", row.before}, {"after", row.after},
                                 {"better", d > 0 ? "current" : d < 0 ? "earlier" : "neither"}});
        }
        if (gpu < c.before->performance.estimates.size() && gpu < c.after->performance.estimates.size() &&
            c.after->performance.estimates[gpu].seconds > 0)
            j["speedup"] = c.before->performance.estimates[gpu].seconds / c.after->performance.estimates[gpu].seconds;
    }
    (void)lang;
    return j;
}

}  // namespace attnlab
