// F1: every keyboard shortcut, in the learner's language.
#include "ui.hpp"

namespace attnlab::gui {

const std::vector<Shortcut>& shortcuts() {
    static const std::vector<Shortcut> list = {
        {"Ctrl+Enter", "gui.action.run"},        {"Esc", "gui.action.cancel"},
        {"Ctrl+S", "gui.action.save"},           {"Ctrl+E", "gui.action.external"},
        {"Ctrl+H", "gui.action.hint"},           {"Alt+Down", "gui.action.next"},
        {"Alt+Up", "gui.action.prev"},           {"Ctrl+L", "gui.action.language"},
        {"Ctrl+,", "gui.action.settings"},       {"F1", "gui.action.help"},
        {"Ctrl+Z / Ctrl+Shift+Z, Ctrl+Y", "gui.action.undo"},  {"Ctrl+C / Ctrl+X / Ctrl+V", "gui.action.clipboard"},
        {"Ctrl+Q", "gui.action.quit"},
    };
    return list;
}

void draw_help_overlay(Ui& ui) {
    if (ui.show_help) ImGui::OpenPopup("help_overlay");
    ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    if (!ImGui::BeginPopupModal("help_overlay", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoTitleBar)) return;
    ImGui::PushFont(ui.fonts.heading);
    ImGui::TextUnformatted(ui.t("gui.help.title").c_str());
    ImGui::PopFont();
    if (ImGui::BeginTable("shortcuts", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_PadOuterX)) {
        for (const Shortcut& s : shortcuts()) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::PushFont(ui.fonts.mono);
            ImGui::TextUnformatted(s.keys);
            ImGui::PopFont();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(ui.t(s.action_key).c_str());
        }
        ImGui::EndTable();
    }
    const bool close = ImGui::Button(ui.t("gui.help.close").c_str()) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape));
    if (close || !ui.show_help) {  // !show_help: F1 pressed again while open
        ui.show_help = false;
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

}  // namespace attnlab::gui
