// Stages: the learner's probe() tensors beside the reference's named
// intermediates, with shape and max error; the first stage that differs is
// highlighted, and clicking a drawable stage opens its heatmaps. When the
// reference op has a CUDA kernel, its stages stand in two more columns.
#include "attnlab/core/text/report.hpp"
#include "attnlab/core/base/util.hpp"
#include "attnlab/core/text/number_format.hpp"
#include "ui.hpp"

namespace attnlab::gui {

namespace {

const char* status_key(StageStatus s) {
    switch (s) {
        case StageStatus::Match: return "gui.stages.match";
        case StageStatus::Mismatch: return "gui.stages.mismatch";
        case StageStatus::ShapeMismatch: return "gui.stages.shape_mismatch";
        case StageStatus::NotProbed: return "gui.stages.not_probed";
    }
    return "";
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
        if (k) ImGui::TextDisabled("%s", ui.t("gui.stages.kernel_missing").c_str());
        return;
    }
    const ImVec4 color = k->status == StageStatus::Match ? verdict_color(Verdict::Pass) : verdict_color(Verdict::InternalError);
    ImGui::TextColored(color, "%s", format_number(k->max_abs_error, ui.session.lang()).c_str());
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
    ImGui::TextDisabled("%s %d: %s", ui.t("gui.views.case").c_str(), c->index + 1, c->name.get(ui.session.lang()).c_str());
    const std::vector<StageComparison> stages = compare_stages(*c, e->tolerance);
    const int first = first_divergence(stages);
    if (stages.empty()) {
        ImGui::TextWrapped("%s", ui.t("gui.stages.hint").c_str());
        return;
    }
    auto wrapped = [](ImVec4 color, const std::string& text) {
        ImGui::PushStyleColor(ImGuiCol_Text, color);
        ImGui::TextWrapped("%s", text.c_str());
        ImGui::PopStyleColor();
    };
    bool any_probe = false;  // a probe() of the learner's, not only the return value
    std::string output_stage;
    for (const auto& s : stages) {
        any_probe |= s.learner_shape.has_value() && !s.from_output;
        if (s.from_output) output_stage = s.name;
    }
    if (first >= 0) wrapped(verdict_color(Verdict::WrongAnswer), ui.t("gui.stages.first_divergence", {{"stage", stages[static_cast<size_t>(first)].name}}));
    else if (any_probe) wrapped(verdict_color(Verdict::Pass), ui.t("gui.stages.all_match"));
    else if (!output_stage.empty()) wrapped(verdict_color(Verdict::Pass), ui.t("gui.stages.output_matches", {{"stage", output_stage}}));
    else ImGui::TextWrapped("%s", ui.t("gui.stages.hint").c_str());
    if (!any_probe && !output_stage.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", ui.t("gui.stages.output_hint", {{"stage", output_stage}}).c_str());
        ImGui::PopStyleColor();
    }
    // Where the verdict names a stage the learner has no tensor for: offer the probe.
    if (const CheckResult* res = ui.session.last_result(); res && res->mistake && !res->mistake->stage.empty())
        draw_probe_offer(ui, *c, res->mistake->stage);

    const std::vector<std::string> drawable = heatmap_stages(*c);
    const std::vector<StageComparison> kernel = compare_kernel_stages(*c, e->tolerance);
    const bool with_kernel = !kernel.empty();
    if (with_kernel) {
        ImGui::TextDisabled("%s", ui.t("gui.stages.kernel_title", {{"backend", cuda_backend_text(*c->reference_kernel, ui.session.lang())}}).c_str());
        ui.note_item("stages_kernel_title");
    }
    // Columns as wide as their contents (no clipped shapes or headers); scroll sideways when narrow.
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_ScrollX;
    const float rows_h = ImGui::GetFrameHeightWithSpacing() * static_cast<float>(stages.size() + 2);
    if (!ImGui::BeginTable("stages", with_kernel ? 7 : 5, flags, ImVec2(0, std::min(rows_h, std::max(ImGui::GetContentRegionAvail().y, ImGui::GetFrameHeight() * 4))))) return;
    ImGui::TableSetupColumn(ui.t("gui.stages.stage").c_str());
    ImGui::TableSetupColumn(ui.t("gui.stages.reference_shape").c_str());
    ImGui::TableSetupColumn(ui.t("gui.stages.your_shape").c_str());
    ImGui::TableSetupColumn(ui.t("gui.stages.max_error").c_str());
    ImGui::TableSetupColumn(ui.t("gui.stages.status").c_str());
    if (with_kernel) {
        ImGui::TableSetupColumn(ui.t("gui.stages.kernel_shape").c_str());
        ImGui::TableSetupColumn(ui.t("gui.stages.kernel_error").c_str());
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
            ImGui::TextDisabled("· %s", ui.t("gui.stages.return_value").c_str());
            ui.note_item("stage_return_value:" + s.name);
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
