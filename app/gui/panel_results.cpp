// Results panel: live progress of the background check with Cancel, then the
// verdict: per-case pass/fail, the first mismatches by (head, row, col),
// reference vs learner values, compiler errors that jump to their line, and
// what the program printed.
#include <algorithm>
#include <cmath>

#include "attnlab/core/text/report.hpp"
#include "attnlab/core/base/util.hpp"
#include "attnlab/core/text/number_format.hpp"
#include "ui.hpp"

namespace attnlab::gui {

namespace {

// Text colours that keep 4.5:1 against the theme's background: bright on
// the dark theme, deep on the light one.
bool light_theme() { return ImGui::GetStyle().Colors[ImGuiCol_WindowBg].x > 0.5f; }

}  // namespace

ImVec4 verdict_color(Verdict v) {
    const bool light = light_theme();
    switch (v) {
        case Verdict::Pass: return light ? ImVec4(0.0f, 0.42f, 0.16f, 1.0f) : ImVec4(0.40f, 0.85f, 0.50f, 1.0f);
        case Verdict::Cancelled:
        case Verdict::NotRun: return ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
        case Verdict::InternalError: return light ? ImVec4(0.50f, 0.15f, 0.65f, 1.0f) : ImVec4(0.85f, 0.60f, 0.98f, 1.0f);
        default: return light ? ImVec4(0.72f, 0.10f, 0.05f, 1.0f) : ImVec4(1.0f, 0.50f, 0.45f, 1.0f);
    }
}

ImVec4 status_color(ExerciseStatus s) {
    const bool light = light_theme();
    switch (s) {
        case ExerciseStatus::Passed: return light ? ImVec4(0.0f, 0.42f, 0.16f, 1.0f) : ImVec4(0.40f, 0.85f, 0.50f, 1.0f);
        case ExerciseStatus::Attempted: return light ? ImVec4(0.55f, 0.35f, 0.0f, 1.0f) : ImVec4(0.95f, 0.75f, 0.30f, 1.0f);
        case ExerciseStatus::NotStarted: break;
    }
    return ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
}

namespace {

// The last two axes of a tensor at a fixed leading index, as a small grid.
// Cells that differ from `other` are marked with the exercise's own tolerance:
// the comparison's rule (within()), never a second opinion of the panel's.
void draw_matrix(const char* id, const TensorData& t, const std::vector<int64_t>& lead, const std::vector<Mismatch>& bad,
                 const TensorData* other, const Tolerance& tolerance, Lang lang) {
    if (t.shape.empty()) return;
    const int64_t rows = t.shape.size() >= 2 ? t.shape[t.shape.size() - 2] : 1;
    const int64_t cols = t.shape.back();
    const int64_t show_r = std::min<int64_t>(rows, 8), show_c = std::min<int64_t>(cols, 8);
    if (!ImGui::BeginTable(id, static_cast<int>(show_c) + 1, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) return;
    ImGui::TableSetupColumn("");
    for (int64_t c = 0; c < show_c; ++c) ImGui::TableSetupColumn(std::to_string(c).c_str());
    ImGui::TableHeadersRow();
    for (int64_t r = 0; r < show_r; ++r) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%lld", static_cast<long long>(r));
        for (int64_t c = 0; c < show_c; ++c) {
            ImGui::TableNextColumn();
            std::vector<int64_t> index = lead;
            if (t.shape.size() >= 2) index.push_back(r);
            index.push_back(c);
            const int64_t off = t.offset(index);
            const float v = t.data[static_cast<size_t>(off)];
            bool wrong = false;
            if (other && other->shape == t.shape) {
                const float o = other->data[static_cast<size_t>(off)];
                wrong = !(v == o || within(v, o, tolerance));
            }
            for (const auto& m : bad) wrong |= m.index == index;
            if (wrong) ImGui::TextColored(verdict_color(Verdict::WrongAnswer), "%s", format_number(v, lang).c_str());
            else ImGui::TextUnformatted(format_number(v, lang).c_str());
        }
    }
    ImGui::EndTable();
}

// The lines a kernel fault names (the core's verdict_lines), each a link to its line.
void draw_fault_lines(Ui& ui) {
    int i = 0;
    for (const LineMark& m : ui.session.verdict_lines()) {
        if (m.kind != LineMarkKind::Fault) continue;
        ImGui::PushID(i);
        if (ImGui::SmallButton(ui.t(msg::gui_lines_go_to, {{"line", std::to_string(m.line)}}).c_str())) ui.jump_to_line = m.line;
        ui.note_item("fault_line:" + std::to_string(i++));
        if (ImGui::IsItemHovered()) {
            ImGui::BeginTooltip();
            ImGui::PushTextWrapPos(tooltip_wrap_width());
            ImGui::TextUnformatted(m.message.c_str());
            ImGui::PopTextWrapPos();
            ImGui::EndTooltip();
        }
        ImGui::PopID();
        ImGui::SameLine();
    }
    if (i > 0) ImGui::NewLine();
}

void draw_progress(Ui& ui) {
    const CheckProgress p = ui.session.check_progress();
    std::string label;
    float fraction = 0.05f;
    switch (p.phase) {
        case Phase::Queued: label = ui.t(msg::gui_results_queued); break;
        case Phase::Compiling:
            label = ui.t(msg::gui_results_compiling);
            fraction = 0.2f;
            break;
        case Phase::Running:
            label = ui.t(msg::gui_results_running, {{"n", std::to_string(p.case_index + 1)}, {"count", std::to_string(p.case_count)}});
            fraction = 0.4f + 0.5f * (p.case_count ? float(p.case_index) / float(p.case_count) : 0.f);
            break;
        case Phase::Comparing:
        case Phase::Done:
            label = ui.t(msg::gui_results_comparing);
            fraction = 0.95f;
            break;
    }
    ImGui::ProgressBar(fraction, ImVec2(-ImGui::CalcTextSize("MMMMMMMM").x, 0), label.c_str());
    ImGui::SameLine();
    if (ImGui::Button(ui.t(msg::gui_editor_cancel).c_str())) ui.session.cancel_check();
    ui.note_item("results_cancel");
}

}  // namespace

namespace {

void draw_verdict_heading(Ui& ui, const CheckResult& r, Lang lang) {
    ImGui::PushFont(ui.fonts.heading);
    ImGui::TextColored(verdict_color(r.verdict), "%s", verdict_title(r.verdict, r.cause, lang).c_str());
    ImGui::PopFont();
    ImGui::SameLine();
    ImGui::TextDisabled("%s", tr(lang, msg::cli_check_timing, {{"compile", format_count(static_cast<int64_t>(r.compile_ms), lang)},
                                                            {"cached", r.compile_cached ? tr(lang, msg::cli_check_cached) : ""},
                                                            {"run", format_count(static_cast<int64_t>(r.run_ms), lang)},
                                                            {"total", format_count(static_cast<int64_t>(r.total_ms), lang)}})
                                  .c_str());
}

// What went wrong, in words; the named mistake, the most useful sentence of a
// failing check, gets its own colour instead of being the paragraph's last line.
void draw_explanation(Ui& ui, const CheckResult& r, const Exercise& e, Lang lang) {
    std::string text = explain_detail(r, e, lang);
    const std::string mistake = explain_mistake(r, lang);
    if (!mistake.empty() && text.size() >= mistake.size() && text.compare(text.size() - mistake.size(), mistake.size(), mistake) == 0)
        text.erase(text.size() - mistake.size());
    while (!text.empty() && text.back() == '\n') text.pop_back();
    if (r.verdict == Verdict::CompileError) {
        // The diagnostics below say the rest; a file attnlab could not read has
        // none (nothing was compiled): its lines are the whole message.
        if (r.problem == Problem::SourceUnread) {
            ImGui::TextWrapped("%s", text.c_str());
            ui.note_item("results_source_unread");
        } else if (r.problem == Problem::SourceTooLarge || r.problem == Problem::DefinesMain) {
            ImGui::TextWrapped("%s", text.substr(0, text.find('\n')).c_str());
        }
        return;
    }
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(text.c_str());
    // The other backends in a line each (the core decides which apply): the
    // reference's CUDA kernel, or the learner's CUDA file on a GPU.
    if (const std::string cuda = explain_backends(r, e, lang); !cuda.empty()) {
        ImGui::TextDisabled("%s", cuda.c_str());
        ui.note_item("results_cuda");
    }
    if (!mistake.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, light_theme() ? ImVec4(0.55f, 0.33f, 0.0f, 1.0f) : ImVec4(0.98f, 0.78f, 0.35f, 1.0f));
        ImGui::TextUnformatted(mistake.c_str());
        ImGui::PopStyleColor();
        ui.note_item("mistake");
    }
    ImGui::PopTextWrapPos();
}

// Compiler messages: click one to jump to its line.
void draw_diagnostics(Ui& ui, const CheckResult& r) {
    if (!r.diagnostics.empty() && (r.verdict == Verdict::CompileError || r.verdict == Verdict::MissingEntry)) {
        ImGui::TextDisabled("%s", ui.t(msg::gui_results_errors).c_str());
        int i = 0;
        for (const Diagnostic& d : r.diagnostics) {
            if (d.severity == "note") continue;
            const bool ours = d.file == ui.session.file().string();
            const std::string label = std::to_string(d.line) + ":" + std::to_string(d.column) + "  " + d.severity + ": " + d.message;
            ImGui::PushID(i);
            ImGui::PushStyleColor(ImGuiCol_Text, d.severity == "warning" ? ImVec4(0.95f, 0.75f, 0.3f, 1) : verdict_color(Verdict::CompileError));
            if (ImGui::Selectable(label.c_str(), false) && ours) ui.jump_to_line = d.line;
            ImGui::PopStyleColor();
            ui.note_item("diag:" + std::to_string(i));
            if (ImGui::IsItemHovered() && !d.context.empty()) {
                ImGui::BeginTooltip();
                ImGui::PushFont(ui.fonts.mono);
                ImGui::TextUnformatted(d.context.c_str());
                ImGui::PopFont();
                ImGui::EndTooltip();
            }
            ImGui::PopID();
            if (++i == 30) break;
        }
    } else if (r.verdict == Verdict::CompileError && r.diagnostics.empty() && !r.compiler_output.empty()) {
        ImGui::PushFont(ui.fonts.mono);
        ImGui::TextUnformatted(r.compiler_output.substr(0, 4000).c_str());
        ImGui::PopFont();
    }
}

void draw_case_table(Ui& ui, const CheckResult& r, Lang lang) {
    if (!ImGui::BeginTable("cases", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) return;
    ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn(ui.t(msg::gui_results_case).c_str(), ImGuiTableColumnFlags_WidthStretch, 3.0f);
    ImGui::TableSetupColumn(ui.t(msg::gui_results_verdict).c_str(), ImGuiTableColumnFlags_WidthStretch, 1.6f);
    ImGui::TableSetupColumn(ui.t(msg::gui_results_max_error).c_str(), ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableHeadersRow();
    for (const CaseOutcome& c : r.cases) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%d", c.index + 1);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(c.name.get(lang).c_str());
        ImGui::TableNextColumn();
        ImGui::TextColored(verdict_color(c.verdict), "%s %s", c.verdict == Verdict::Pass ? "\xE2\x9C\x93" : "\xE2\x9C\x97",
                           verdict_title(c.verdict, c.kernels.cause, lang).c_str());
        ImGui::TableNextColumn();
        if (c.verdict == Verdict::Pass || c.verdict == Verdict::WrongAnswer) {
            // Positions where only one side is ±inf or NaN have no finite
            // error: say how many, as the heatmap legend does.
            std::string cell = format_number(c.max_abs_error, ui.session.lang());
            if (c.one_sided_count > 0) cell += "  " + ui.t(msg::gui_results_one_sided, {{"count", std::to_string(c.one_sided_count)}});
            ImGui::TextUnformatted(cell.c_str());
        }
    }
    ImGui::EndTable();
}

void draw_mismatch_table(Ui& ui, const CaseOutcome& c, const Exercise& e, Lang lang) {
    if (c.mismatches.empty() || c.expected.kind != ValueKind::Tensor) return;
    ImGui::TextDisabled("%s", ui.t(msg::gui_results_mismatches).c_str());
    if (!ImGui::BeginTable("mismatches", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) return;
    ImGui::TableSetupColumn(ui.t(msg::gui_results_position).c_str());
    ImGui::TableSetupColumn(ui.t(msg::gui_results_yours).c_str());
    ImGui::TableSetupColumn(ui.t(msg::gui_results_reference).c_str());
    ImGui::TableHeadersRow();
    for (const Mismatch& m : c.mismatches) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(format_index(m.index, e.returns.dims, lang).c_str());
        ImGui::TableNextColumn();
        ImGui::TextColored(verdict_color(Verdict::WrongAnswer), "%s", format_number(m.actual, ui.session.lang()).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(format_number(m.expected, ui.session.lang()).c_str());
    }
    ImGui::EndTable();
}

// The slice of the failing case that holds its first problem, reference beside yours.
void draw_failing_slice(Ui& ui, const CaseOutcome& c, const Exercise& e, Lang lang) {
    if (c.expected.kind != ValueKind::Tensor || c.actual.kind != ValueKind::Tensor || c.expected.tensor.shape.empty() ||
        (c.verdict != Verdict::WrongAnswer && c.verdict != Verdict::NonFinite))
        return;
    std::vector<int64_t> lead;
    const std::vector<int64_t>& where = !c.mismatches.empty() ? c.mismatches[0].index : c.nonfinite_index;
    const size_t rank = c.expected.tensor.shape.size();
    for (size_t i = 0; i + 2 < rank && i < where.size(); ++i) lead.push_back(where[i]);
    ImGui::TextDisabled("%s", ui.t(msg::gui_results_expected_actual, {{"n", std::to_string(c.index + 1)}}).c_str());
    if (!lead.empty()) {
        std::vector<std::string> dims(e.returns.dims.begin(), e.returns.dims.begin() + std::min(lead.size(), e.returns.dims.size()));
        ImGui::SameLine();
        ImGui::TextDisabled("(%s)", ui.t(msg::gui_results_slice, {{"what", format_index(lead, dims.size() == lead.size() ? dims : std::vector<std::string>{}, lang)}}).c_str());
    }
    ImGui::BeginGroup();
    ImGui::TextUnformatted(ui.t(msg::gui_results_reference).c_str());
    draw_matrix("expected", c.expected.tensor, lead, {}, nullptr, e.tolerance, ui.session.lang());
    ImGui::EndGroup();
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::TextUnformatted(ui.t(msg::gui_results_yours).c_str());
    draw_matrix("actual", c.actual.tensor, lead, c.mismatches, &c.expected.tensor, e.tolerance, ui.session.lang());
    ImGui::EndGroup();
}

void draw_program_output(Ui& ui, const CheckResult& r, Lang lang) {
    if (r.stdout_text.empty() && r.stderr_text.empty()) return;
    if (!ImGui::CollapsingHeader(ui.t(msg::gui_results_output).c_str())) return;
    ImGui::PushFont(ui.fonts.mono);
    ImGui::TextUnformatted((r.stdout_text + r.stderr_text).c_str());
    if (r.output_truncated) ImGui::TextDisabled("%s", tr(lang, msg::explain_truncated).c_str());
    ImGui::PopFont();
}

}  // namespace

void draw_stage_link(Ui& ui, const CaseOutcome& c, const std::string& stage) {
    for (const LearnerStage& l : learner_stages(c)) {
        if (l.name != stage) continue;
        if (l.from_record) {
            ImGui::TextDisabled("%s", ui.t(msg::explain_stage_line, {{"stage", stage}, {"line", std::to_string(l.line)}}).c_str());
            ui.note_item("stage_line");
            if (ImGui::IsItemClicked()) ui.jump_to_line = l.line;
            if (ui.bottom_tab != BottomTab::Stages) ImGui::SameLine();
        }
        if (ui.bottom_tab != BottomTab::Stages && ImGui::SmallButton(ui.t(msg::gui_probe_show, {{"stage", stage}}).c_str()))
            ui.select_bottom_tab = static_cast<int>(BottomTab::Stages);
        ui.note_item("probe_show");
        return;
    }
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", ui.t(msg::gui_probe_add_yourself, {{"stage", stage}}).c_str());
    ImGui::PopStyleColor();
}

void draw_results_panel(Ui& ui) {
    Session& s = ui.session;
    const Exercise* e = s.current();
    if (!e) return;
    const Lang lang = s.lang();
    ImGui::PushFont(ui.fonts.bold);
    ImGui::TextUnformatted(ui.t(msg::gui_results_title).c_str());
    ImGui::PopFont();
    if (s.checking()) draw_progress(ui);

    const CheckResult* r = s.last_result();
    if (!r) {
        if (!s.checking()) ImGui::TextDisabled("%s", ui.t(msg::gui_results_none).c_str());
        return;
    }
    ImGui::BeginChild("results_scroll", ImVec2(0, 0), false);
    draw_verdict_heading(ui, *r, lang);
    if (r->passed()) {
        ImGui::SameLine();
        if (ImGui::SmallButton(ui.t(msg::gui_next_exercise).c_str())) open_next_exercise(ui);
        ui.note_item("next_exercise");
    }
    draw_explanation(ui, *r, *e, lang);
    if (r->mistake && !r->mistake->stage.empty() && r->failed_case >= 0)
        draw_stage_link(ui, r->cases[static_cast<size_t>(r->failed_case)], r->mistake->stage);
    draw_fault_lines(ui);
    draw_diagnostics(ui, *r);
    if (!r->cases.empty() && r->ran()) {
        draw_case_table(ui, *r, lang);
        if (r->failed_case >= 0) {
            const CaseOutcome& c = r->cases[static_cast<size_t>(r->failed_case)];
            draw_mismatch_table(ui, c, *e, lang);
            draw_failing_slice(ui, c, *e, lang);
        }
    }
    draw_program_output(ui, *r, lang);
    ImGui::EndChild();
}

}  // namespace attnlab::gui
