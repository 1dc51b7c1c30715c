// The Kernel view's "Beat your v1" section: the learner's kernel from an
// earlier exercise of the same operation, run on the case the roofline is
// of, its counters beside this kernel's (core/check/kernel_versions.hpp; the
// table's words are core/text/version_words.hpp, which the CLI prints too).
// Its launches are also points on the roofline above (panel_roofline.cpp).
// Reads core state only; the run itself is the session's.
#include <imgui.h>

#include <string>
#include <vector>

#include "attnlab/core/check/performance.hpp"
#include "attnlab/core/text/version_words.hpp"
#include "panel_learner_kernels.hpp"  // wrapped(), disabled_wrapped()
#include "ui.hpp"

namespace attnlab::gui {

namespace {

using learner_kernels::disabled_wrapped;
using learner_kernels::wrapped;

// The earlier exercise the section runs: the learner's pick, else the first
// that holds their own work, else the first.
const Exercise* chosen_version(Ui& ui, const std::vector<const Exercise*>& versions) {
    for (const Exercise* v : versions)
        if (v->id == ui.version_choice) return v;
    for (const Exercise* v : versions)
        if (ui.session.own_work(*v)) return v;
    return versions.front();
}

void draw_version_selector(Ui& ui, const std::vector<const Exercise*>& versions, const Exercise& chosen) {
    const Lang lang = ui.session.lang();
    ImGui::TextUnformatted(ui.t(msg::versions_choose).c_str());
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 18);
    const std::string shown = chosen.title.get(lang) + " (" + chosen.id + ")";
    if (ImGui::BeginCombo("##versions_choice", shown.c_str())) {
        for (const Exercise* v : versions)
            if (ImGui::Selectable((v->title.get(lang) + " (" + v->id + ")").c_str(), v == &chosen)) ui.version_choice = v->id;
        ImGui::EndCombo();
    }
    ui.note_item("versions_choice");
}

// The side-by-side table: counter, earlier, this one, change, and whether
// the change is better or worse (green or red, and said in words).
void draw_version_table(Ui& ui, const VersionComparison& c, size_t gpu) {
    const Lang lang = ui.session.lang();
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("versions_table", 4, flags)) return;
    ImGui::TableSetupColumn(ui.t(msg::versions_column_counter).c_str());
    ImGui::TableSetupColumn((c.earlier_id + " (" + ui.t(msg::versions_column_before) + ")").c_str());
    ImGui::TableSetupColumn(ui.t(msg::versions_column_after).c_str());
    ImGui::TableSetupColumn(ui.t(msg::versions_column_change).c_str());
    ImGui::TableHeadersRow();
    const ImVec4 better(0.30f, 0.75f, 0.40f, 1.0f), worse(0.90f, 0.35f, 0.30f, 1.0f);
    for (const VersionRow& row : version_rows(*c.before, *c.after, gpu)) {
        const VersionCells cells = version_cells(row, gpu_models()[gpu].name, lang);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(cells.label.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(cells.before.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(cells.after.c_str());
        ImGui::TableNextColumn();
        const std::string change = cells.change + (cells.judgement.empty() ? "" : "  " + cells.judgement);
        if (cells.direction == 0) ImGui::TextUnformatted(change.c_str());
        else ImGui::TextColored(cells.direction > 0 ? better : worse, "%s", change.c_str());
    }
    ImGui::EndTable();
    ui.note_item("versions_table");
}

// The run button, or why there is nothing to run.
void draw_version_run(Ui& ui, const Exercise& chosen, int case_index) {
    const std::map<std::string, std::string> args = {{"title", chosen.title.get(ui.session.lang())},
                                                     {"earlier", chosen.id},
                                                     {"case", std::to_string(case_index + 1)}};
    if (ui.session.comparing()) {
        disabled_wrapped(ui.t(msg::versions_running, {{"earlier", ui.session.comparing_with()}, {"case", args.at("case")}}));
        ui.note_item("versions_running");
    } else if (!ui.session.own_work(chosen)) {
        disabled_wrapped(ui.t(msg::versions_no_own_work, args));
        ui.note_item("versions_no_own_work");
    } else {
        if (ImGui::Button(ui.t(msg::versions_run, args).c_str())) ui.session.compare_with(chosen.id);
        ui.note_item("versions_run");
    }
}

}  // namespace

void draw_versions(Ui& ui, const CheckResult* r) {
    const Exercise* e = ui.session.current();
    const std::vector<const Exercise*> versions = ui.session.earlier_versions();
    if (!e || versions.empty()) return;  // no earlier kernel of this operation: no section
    ImGui::Spacing();
    if (!ImGui::CollapsingHeader((ui.t(msg::versions_title) + "###versions").c_str(), ImGuiTreeNodeFlags_DefaultOpen)) return;
    ui.note_item("kview_section:versions");
    if (ui.scroll_to_versions > 0) {  // --view versions: for a few frames, and while its run goes on
        ImGui::SetScrollHereY(0.0f);
        if (!ui.session.comparing()) --ui.scroll_to_versions;
    }
    const std::optional<Performance> perf = r ? check_performance(*r, *e) : std::nullopt;
    if (!perf) {
        disabled_wrapped(ui.t(msg::versions_no_case));
        ui.note_item("versions_no_case");
        return;
    }
    wrapped(ui.t(msg::versions_intro, {{"case", std::to_string(perf->case_index + 1)}}));
    const Exercise& chosen = *chosen_version(ui, versions);
    draw_version_selector(ui, versions, chosen);
    draw_version_run(ui, chosen, perf->case_index);
    const VersionComparison* c = ui.session.comparison();
    if (!c) return;
    const Exercise* earlier = ui.session.course().find(c->earlier_id);
    const std::string title = earlier ? earlier->title.get(ui.session.lang()) : c->earlier_id;
    wrapped(ui.t(msg::versions_header, {{"title", title}, {"earlier", c->earlier_id}, {"case", std::to_string(c->case_index + 1)}}));
    if (const std::string outcome = describe_earlier_outcome(*c, title, ui.session.lang()); !outcome.empty()) {
        wrapped(outcome);
        ui.note_item("versions_outcome");
    }
    if (!c->before || !c->after) return;
    const size_t gpu = shown_gpu_index(ui);
    draw_version_table(ui, *c, gpu);
    if (const std::string speedup = describe_speedup(*c, gpu, ui.session.lang()); !speedup.empty()) {
        wrapped(speedup);
        ui.note_item("versions_speedup");
    }
}

}  // namespace attnlab::gui
