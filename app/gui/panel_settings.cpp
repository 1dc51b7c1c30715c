// Settings window: font size, interface scale, tab width, theme, auto-run,
// autosave, language; and a line on the sandbox's protections here. Every change is saved at once (settings.json in the
// XDG config dir, together with the window layout).
#include "attnlab/core/desk/doctor.hpp"
#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/core/text/protection_words.hpp"
#include "label_before.hpp"
#include "ui.hpp"

namespace attnlab::gui {
void draw_settings_window(Ui& ui) {
    if (!ui.show_settings) return;
    Session& s = ui.session;
    ImGui::SetNextWindowSize(ImVec2(ImGui::GetFontSize() * 28, 0), ImGuiCond_Appearing);
    ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    const std::string title = ui.t(msg::gui_settings_title) + "###settings";
    if (!ImGui::Begin(title.c_str(), &ui.show_settings, ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_AlwaysAutoResize)) {
        ImGui::End();
        return;
    }
    Preferences p = s.preferences();
    bool changed = false;

    int lang = s.lang() == Lang::Id ? 1 : 0;
    ImGui::TextUnformatted(ui.t(msg::gui_settings_language).c_str());
    ImGui::SameLine();
    if (ImGui::RadioButton("English", &lang, 0)) s.set_lang(Lang::En);
    ui.note_item("lang:en");
    ImGui::SameLine();
    if (ImGui::RadioButton("Bahasa Indonesia", &lang, 1)) s.set_lang(Lang::Id);
    ui.note_item("lang:id");
    ImGui::Separator();

    if (ImGui::SliderFloat(ui.t(msg::gui_settings_font_size).c_str(), &p.font_size, 10.0f, 32.0f, "%.0f px")) {
        changed = true;
    }
    if (ImGui::IsItemDeactivatedAfterEdit()) ui.fonts_dirty = true;  // rebuild once, not on every drag step
    changed |= ImGui::SliderFloat(ui.t(msg::gui_settings_ui_scale).c_str(), &p.ui_scale, 0.75f, 3.0f, "%.2f×");
    if (ImGui::IsItemDeactivatedAfterEdit()) ui.fonts_dirty = true;
    changed |= ImGui::SliderInt(ui.t(msg::gui_settings_tab_width).c_str(), &p.tab_width, 1, 8);
    int theme = p.dark_theme ? 0 : 1;
    ImGui::TextUnformatted(ui.t(msg::gui_settings_theme).c_str());
    ImGui::SameLine();
    bool theme_changed = ImGui::RadioButton(ui.t(msg::gui_settings_dark).c_str(), &theme, 0);
    ImGui::SameLine();
    theme_changed |= ImGui::RadioButton(ui.t(msg::gui_settings_light).c_str(), &theme, 1);
    if (theme_changed) {
        p.dark_theme = theme == 0;
        changed = true;
    }
    changed |= ImGui::Checkbox(ui.t(msg::gui_settings_auto_run).c_str(), &p.auto_run_on_save);
    ui.note_item("auto_run");
    changed |= ImGui::Checkbox(ui.t(msg::gui_settings_autosave).c_str(), &p.autosave);
    if (changed) s.set_preferences(p);
    // The GPU the Kernel view's resource panel plans for (same setting as its own selector).
    const std::string arch = s.gpu_arch();
    label_before(ui.t(msg::gui_kview_arch));
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
    if (ImGui::BeginCombo("##settings_arch", gpu_arch_label(arch).c_str())) {
        for (const std::string& a : known_gpu_archs())
            if (ImGui::Selectable(gpu_arch_label(a).c_str(), a == arch)) s.set_gpu_arch(a);
        ImGui::EndCombo();
    }
    ui.note_item("settings_arch");
    ImGui::Separator();
    if (const sandbox_status::Protections* protections = s.sandbox_protections()) {
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 26);
        ImGui::TextWrapped("%s: %s", ui.t(msg::gui_settings_protections).c_str(), protections_summary(*protections, s.lang()).c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::TextDisabled("%s", ui.t(msg::gui_settings_where, {{"file", (s.preferences_file()).string()}}).c_str());
    ImGui::End();
}

}  // namespace attnlab::gui
