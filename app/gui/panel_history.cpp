// The History window: the versions of the open exercise's file (one at every
// save and check, desk/version_history.hpp), newest first, each with a
// Restore button. Restoring keeps the text on screen as a version first, and
// is one undo step in the editor.
#include <algorithm>

#include "attnlab/core/text/number_format.hpp"
#include "ui.hpp"

namespace attnlab::gui {

namespace {

void draw_version_row(Ui& ui, const Version& v, bool in_editor) {
    Session& s = ui.session;
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::Text("%d", v.number);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(version_time_words(v.time).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(version_reason_words(v, s.lang()).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(ui.t(msg::gui_history_lines, {{"lines", format_count(v.lines, s.lang())}}).c_str());
    ImGui::TableNextColumn();
    const std::string id = std::to_string(v.number);
    if (in_editor) {
        ImGui::TextDisabled("%s", ui.t(msg::gui_history_current).c_str());
    } else if (!v.available) {
        ImGui::TextDisabled("%s", ui.t(msg::gui_history_missing).c_str());
    } else {
        if (ImGui::SmallButton((ui.t(msg::gui_history_restore) + "##" + id).c_str())) s.restore_version(v.number);
        ui.note_item("history_restore:" + id);
    }
}

}  // namespace

void draw_history_window(Ui& ui) {
    Session& s = ui.session;
    if (!ui.show_history || !s.current()) return;
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowSize(ImVec2(std::min(ImGui::GetFontSize() * 40, vp->Size.x * 0.9f), std::min(ImGui::GetFontSize() * 24, vp->Size.y * 0.8f)),
                             ImGuiCond_Appearing);
    ImGui::SetNextWindowPos(vp->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(1.0f);  // over the code: the code must not show through the list
    const std::string title = ui.t(msg::gui_history_title, {{"file", s.file().filename().string()}}) + "###history";
    if (!ImGui::Begin(title.c_str(), &ui.show_history, ImGuiWindowFlags_NoCollapse)) {
        ImGui::End();
        return;
    }
    ui.note_item("history_window");
    ImGui::PushTextWrapPos(0);
    ImGui::TextDisabled("%s", ui.t(msg::gui_history_note).c_str());
    ImGui::PopTextWrapPos();
    const std::vector<Version>& versions = s.versions();
    if (versions.empty()) ImGui::TextUnformatted(ui.t(msg::gui_history_empty).c_str());
    const std::string in_editor = version_hash_of(s.buffer());
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchProp | ImGuiTableFlags_BordersInnerV;
    const float footer = ImGui::GetFrameHeightWithSpacing();
    if (!versions.empty() && ImGui::BeginTable("versions", 5, flags, ImVec2(0, -footer))) {
        // Widths known from the first frame (a fixed column would otherwise fit its
        // contents a frame later, and a click aimed at the first frame's button miss it).
        const float pad = ImGui::GetStyle().FramePadding.x * 2;
        const auto width = [&](const std::string& a, const std::string& b) {
            return std::max(ImGui::CalcTextSize(a.c_str()).x, ImGui::CalcTextSize(b.c_str()).x) + pad;
        };
        ImGui::TableSetupScrollFreeze(0, 1);
        ImGui::TableSetupColumn(ui.t(msg::gui_history_number).c_str(), ImGuiTableColumnFlags_WidthFixed, width(ui.t(msg::gui_history_number), "0000"));
        ImGui::TableSetupColumn(ui.t(msg::gui_history_when).c_str(), ImGuiTableColumnFlags_WidthFixed, width(ui.t(msg::gui_history_when), "0000-00-00 00:00"));
        ImGui::TableSetupColumn(ui.t(msg::gui_history_why).c_str(), ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableSetupColumn(ui.t(msg::gui_history_size).c_str(), ImGuiTableColumnFlags_WidthFixed,
                                width(ui.t(msg::gui_history_size), ui.t(msg::gui_history_lines, {{"lines", "0,000"}})));
        ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed,
                                std::max(width(ui.t(msg::gui_history_restore), ui.t(msg::gui_history_current)), width(ui.t(msg::gui_history_missing), "")));
        ImGui::TableHeadersRow();
        bool marked = false;  // the newest version with the editor's text is the one marked
        for (auto it = versions.rbegin(); it != versions.rend(); ++it) {
            const bool here = !marked && it->hash == in_editor;
            marked |= here;
            draw_version_row(ui, *it, here);
        }
        ImGui::EndTable();
    }
    if (ImGui::Button(ui.t(msg::gui_history_close).c_str())) ui.show_history = false;
    ui.note_item("history_close");
    ImGui::End();
}

}  // namespace attnlab::gui
