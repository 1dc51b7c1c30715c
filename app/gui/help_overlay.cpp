// F1: every keyboard shortcut, in the learner's language.
#include "ui.hpp"

namespace attnlab::gui {

const std::vector<Shortcut>& shortcuts() {
    static const std::vector<Shortcut> list = {
        {"Ctrl+Enter", msg::gui_action_run},        {"Esc", msg::gui_action_cancel},
        {"Ctrl+S", msg::gui_action_save},           {"Ctrl+E", msg::gui_action_external},
        {"Ctrl+H", msg::gui_action_hint},           {"Alt+Down", msg::gui_action_next},
        {"Alt+Up", msg::gui_action_prev},           {"Ctrl+L", msg::gui_action_language},
        {"Ctrl+,", msg::gui_action_settings},       {"F1", msg::gui_action_help},
        {"Ctrl+Z / Ctrl+Shift+Z, Ctrl+Y", msg::gui_action_undo},  {"Ctrl+C / Ctrl+X / Ctrl+V", msg::gui_action_clipboard},
        {"Ctrl+Q", msg::gui_action_quit},
    };
    return list;
}

void draw_help_overlay(Ui& ui) {
    if (ui.show_help) ImGui::OpenPopup("help_overlay");
    ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    if (!ImGui::BeginPopupModal("help_overlay", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoTitleBar)) return;
    ImGui::PushFont(ui.fonts.heading);
    ImGui::TextUnformatted(ui.t(msg::gui_help_title).c_str());
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
    const bool close = ImGui::Button(ui.t(msg::gui_help_close).c_str()) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape));
    if (close || !ui.show_help) {  // !show_help: F1 pressed again while open
        ui.show_help = false;
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

}  // namespace attnlab::gui
