// Stages: the learner's tensors — recorded automatically with their lines,
// probe()d, or returned — beside the reference's named intermediates, with
// shape and max error; the stage the check names is highlighted, and clicking
// a drawable stage opens its heatmaps. The sentence above the table is the
// core's (views/stages_view): it agrees with the Results tab and says nothing
// of stages nobody recorded. When the reference op has a CUDA kernel, its
// stages stand in two more columns.
#include "attnlab/core/text/report.hpp"
#include "attnlab/core/views/stages_view.hpp"
#include "attnlab/core/base/util.hpp"
#include "attnlab/core/text/number_format.hpp"
#include "ui.hpp"

namespace attnlab::gui {

namespace {

MessageKey status_key(StageStatus s) {
    switch (s) {
        case StageStatus::Match: return msg::gui_stages_match;
        case StageStatus::Mismatch: return msg::gui_stages_mismatch;
        case StageStatus::ShapeMismatch: return msg::gui_stages_shape_mismatch;
        case StageStatus::NotProbed: return msg::gui_stages_not_recorded;
    }
    return {};
}

// The kernel's stage of this name: its shape and its distance to the reference.
void draw_kernel_cells(Ui& ui, const std::vector<StageComparison>& kernel, const std::string& name) {
    const StageComparison* k = nullptr;
    for (const auto& s : kernel)
        if (s.name == name) k = &s;
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(k && k->learner_shape ? shape_to_string(*k->learner_shape).c_str() : "—");
    ui.note_item("kernel_stage:" + name);
    ImGui::TableNextColumn();
    if (!k || !k->learner_shape) {
        if (k) ImGui::TextDisabled("%s", ui.t(msg::gui_stages_kernel_missing).c_str());
        return;
    }
    const ImVec4 color = k->status == StageStatus::Match ? verdict_color(Verdict::Pass) : verdict_color(Verdict::InternalError);
    ImGui::TextColored(color, "%s", format_number(k->max_abs_error, ui.session.lang()).c_str());
}

void wrapped(ImVec4 color, const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, color);
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

// "Your tensor from line 56 is the scores: it differs from the reference's."
std::string yours_sentence(const Ui& ui, const StageComparison& s) {
    const std::string who = s.from_record ? ui.t(msg::gui_stages_who_record, {{"line", std::to_string(s.line)}})
                            : s.from_output ? ui.t(msg::gui_stages_who_output)
                                            : ui.t(msg::gui_stages_who_probe, {{"stage", s.name}});
    MessageKey how = s.status == StageStatus::Match ? msg::gui_stages_how_matches
                      : s.status == StageStatus::ShapeMismatch ? msg::gui_stages_how_shape
                                                               : msg::gui_stages_how_differs;
    return ui.t(msg::gui_stages_yours, {{"who", who}, {"stage", s.name}, {"how", ui.t(how)}});
}

// "Q (line 52), K (line 53)" / "masked, weights"
std::string stage_list(const Ui& ui, const std::vector<StageComparison>& stages, const std::vector<int>& which) {
    std::string out;
    for (int i : which) {
        const StageComparison& s = stages[static_cast<size_t>(i)];
        if (!out.empty()) out += ", ";
        out += s.name;
        if (s.from_record) out += " (" + ui.t(msg::gui_stages_line, {{"line", std::to_string(s.line)}}) + ")";
    }
    return out;
}

// What the check names and what the learner's recorded tensors say, above the table.
StagesHeadline draw_headline(Ui& ui, const Exercise& e, const CheckResult& r, const CaseOutcome& c, const std::vector<StageComparison>& stages) {
    StagesHeadline h = stages_headline(e, r, c, stages);
    const ImVec4 muted = ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled);
    if (!h.named_stage.empty() || h.yours >= 0) {
        std::string text;
        if (!h.named_stage.empty()) text = ui.t(h.named_by_mistake ? msg::gui_stages_named_mistake : msg::gui_stages_named, {{"stage", h.named_stage}}) + " ";
        if (h.yours >= 0) text += yours_sentence(ui, stages[static_cast<size_t>(h.yours)]);
        else text += ui.t(msg::gui_stages_named_unrecorded, {{"stage", h.named_stage}});
        wrapped(verdict_color(Verdict::WrongAnswer), text);
        ui.note_item("stages_headline");
        if (!h.matching_before.empty())
            wrapped(muted, ui.t(msg::gui_stages_before_match, {{"stages", stage_list(ui, stages, h.matching_before)}}));
        if (!h.unrecorded_before.empty())
            wrapped(muted, ui.t(msg::gui_stages_before_unrecorded, {{"stages", stage_list(ui, stages, h.unrecorded_before)}}));
    } else if (h.recorded > 0) {
        wrapped(verdict_color(Verdict::Pass), ui.t(msg::gui_stages_recorded_match, {{"count", std::to_string(h.recorded)}, {"total", std::to_string(h.total)}}));
        ui.note_item("stages_headline");
    } else {
        ImGui::TextWrapped("%s", ui.t(msg::gui_stages_hint).c_str());
    }
    if (h.named_by_mistake && !h.named_stage.empty() && h.yours < 0) draw_stage_link(ui, c, h.named_stage);
    return h;
}

}  // namespace

void draw_stages_panel(Ui& ui) {
    const CheckResult* r = ui.session.last_result();
    const Exercise* e = ui.session.current();
    const CaseOutcome* c = view_case(ui);
    if (!r || !e || !c || r->verdict == Verdict::CompileError || r->verdict == Verdict::MissingEntry) {
        draw_no_result(ui);
        return;
    }
    ImGui::TextDisabled("%s %d: %s", ui.t(msg::gui_views_case).c_str(), c->index + 1, c->name.get(ui.session.lang()).c_str());
    const std::vector<StageComparison> stages = compare_stages(*c, e->tolerance);
    if (stages.empty()) {
        ImGui::TextWrapped("%s", ui.t(msg::gui_stages_hint).c_str());
        return;
    }
    const StagesHeadline headline = draw_headline(ui, *e, *r, *c, stages);
    const int first = headline.named >= 0 ? headline.named : headline.yours;  // the row highlighted

    const std::vector<std::string> drawable = heatmap_stages(*c);
    const std::vector<StageComparison> kernel = compare_kernel_stages(*c, e->tolerance);
    const bool with_kernel = !kernel.empty();
    if (with_kernel) {
        ImGui::TextDisabled("%s", ui.t(msg::gui_stages_kernel_title, {{"backend", cuda_backend_text(*c->reference_kernel, ui.session.lang())}}).c_str());
        ui.note_item("stages_kernel_title");
    }
    // Columns as wide as their contents (no clipped shapes or headers); scroll sideways when narrow.
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
    const float rows_h = ImGui::GetFrameHeightWithSpacing() * static_cast<float>(stages.size() + 2);
    if (!ImGui::BeginTable("stages", with_kernel ? 7 : 5, flags, ImVec2(0, std::min(rows_h, std::max(ImGui::GetContentRegionAvail().y, ImGui::GetFrameHeight() * 4))))) return;
    ImGui::TableSetupColumn(ui.t(msg::gui_stages_stage).c_str());
    ImGui::TableSetupColumn(ui.t(msg::gui_stages_reference_shape).c_str());
    ImGui::TableSetupColumn(ui.t(msg::gui_stages_your_shape).c_str());
    ImGui::TableSetupColumn(ui.t(msg::gui_stages_max_error).c_str());
    ImGui::TableSetupColumn(ui.t(msg::gui_stages_status).c_str());
    if (with_kernel) {
        ImGui::TableSetupColumn(ui.t(msg::gui_stages_kernel_shape).c_str());
        ImGui::TableSetupColumn(ui.t(msg::gui_stages_kernel_error).c_str());
    }
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < stages.size(); ++i) {
        const StageComparison& s = stages[i];
        ImGui::TableNextRow();
        if (static_cast<int>(i) == first) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(150, 40, 40, 110));
        ImGui::TableNextColumn();
        const bool can_draw = std::find(drawable.begin(), drawable.end(), s.name) != drawable.end();
        if (can_draw) {
            if (ImGui::Selectable(s.name.c_str(), false, ImGuiSelectableFlags_SpanAllColumns)) {
                ui.heatmaps.stage = s.name;
                ui.heatmaps.case_index = c->index;
                ui.select_bottom_tab = static_cast<int>(BottomTab::Heatmaps);
            }
        } else {
            ImGui::TextUnformatted(s.name.c_str());
        }
        ui.note_item("stage:" + s.name);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(s.reference_shape.empty() ? "—" : shape_to_string(s.reference_shape).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(s.learner_shape ? shape_to_string(*s.learner_shape).c_str() : "—");
        if (s.from_output) {
            ImGui::SameLine();
            ImGui::TextDisabled("· %s", ui.t(msg::gui_stages_return_value).c_str());
            ui.note_item("stage_return_value:" + s.name);
        } else if (s.from_record) {
            ImGui::SameLine();
            ImGui::TextDisabled("· %s", ui.t(msg::gui_stages_line, {{"line", std::to_string(s.line)}}).c_str());
            ui.note_item("stage_line:" + s.name);
        }
        ImGui::TableNextColumn();
        if (s.status == StageStatus::Match || s.status == StageStatus::Mismatch) ImGui::TextUnformatted(format_number(s.max_abs_error, ui.session.lang()).c_str());
        ImGui::TableNextColumn();
        const ImVec4 color = s.status == StageStatus::Match ? verdict_color(Verdict::Pass)
                             : s.status == StageStatus::NotProbed ? ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled)
                                                                  : verdict_color(Verdict::WrongAnswer);
        std::string status = ui.t(status_key(s.status));
        if (s.status == StageStatus::Mismatch && !s.first_bad_index.empty()) status += " " + format_index(s.first_bad_index, {}, ui.session.lang());
        ImGui::TextColored(color, "%s", status.c_str());
        if (with_kernel) draw_kernel_cells(ui, kernel, s.name);
    }
    ImGui::EndTable();
}

}  // namespace attnlab::gui
