// Statement panel: the exercise's Markdown, hints revealed one at a time, and
// after a pass the explanation with the reference solution.
#include "attnlab/core/base/util.hpp"
#include "markdown.hpp"
#include "ui.hpp"

namespace attnlab::gui {

void draw_statement_panel(Ui& ui) {
    Session& s = ui.session;
    const Exercise* e = s.current();
    if (!e) {
        ImGui::TextDisabled("%s", ui.t(msg::gui_no_exercise).c_str());
        return;
    }
    const Lang lang = s.lang();
    ImGui::PushFont(ui.fonts.heading);
    ImGui::TextWrapped("%s", e->title.get(lang).c_str());
    ImGui::PopFont();
    ImGui::PushFont(ui.fonts.mono);
    ImGui::TextWrapped("%s", e->signature().c_str());
    ImGui::PopFont();

    const bool passed = s.status(e->id) == ExerciseStatus::Passed;
    if (ImGui::BeginTabBar("statement_tabs")) {
        auto flags_for = [&](int tab) { return ui.select_tab == tab ? ImGuiTabItemFlags_SetSelected : ImGuiTabItemFlags_None; };
        if (ImGui::BeginTabItem((ui.t(msg::gui_tab_statement) + "###statement").c_str(), nullptr, flags_for(0))) {
            ui.statement_tab = 0;
            ImGui::BeginChild("statement_text", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
            draw_markdown(ui, e->statement.get(lang));
            ImGui::EndChild();
            ImGui::EndTabItem();
        }
        const std::string hints_label = ui.t(msg::gui_tab_hints, {{"shown", std::to_string(s.hints_revealed())}, {"count", std::to_string(e->hints.size())}}) + "###hints";
        if (ImGui::BeginTabItem(hints_label.c_str(), nullptr, flags_for(1))) {
            ui.statement_tab = 1;
            ImGui::BeginChild("hints_text", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
            const int shown = s.hints_revealed();
            for (int i = 0; i < shown && i < static_cast<int>(e->hints.size()); ++i) {
                ImGui::PushFont(ui.fonts.bold);
                ImGui::TextUnformatted(ui.t(msg::cli_hint_title, {{"n", std::to_string(i + 1)}, {"count", std::to_string(e->hints.size())}}).c_str());
                ImGui::PopFont();
                draw_markdown(ui, e->hints[static_cast<size_t>(i)].get(lang));
                ImGui::Separator();
            }
            if (shown < static_cast<int>(e->hints.size())) {
                if (ImGui::Button(ui.t(shown == 0 ? msg::gui_hint_first : msg::gui_hint_next).c_str())) s.reveal_next_hint();
                ui.note_item("hint_next");
            } else {
                ImGui::TextDisabled("%s", ui.t(msg::gui_hint_all).c_str());
            }
            ImGui::EndChild();
            ImGui::EndTabItem();
        }
        if (ImGui::BeginTabItem((ui.t(msg::gui_tab_solution) + "###solution").c_str(), nullptr, flags_for(2))) {
            ui.statement_tab = 2;
            ImGui::BeginChild("solution_text", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
            if (!passed) {
                ImGui::TextWrapped("%s", ui.t(msg::gui_solution_locked).c_str());
            } else {
                draw_markdown(ui, e->explanation.get(lang));
                ImGui::Separator();
                ImGui::PushFont(ui.fonts.bold);
                ImGui::TextUnformatted(ui.t(msg::gui_solution_reference).c_str());
                ImGui::PopFont();
                static std::string cached_path, cached_text;
                if (cached_path != e->solution_path().string()) {
                    cached_path = e->solution_path().string();
                    cached_text = read_file(e->solution_path()).value_or("");
                }
                ImGui::PushFont(ui.fonts.mono);
                ImGui::TextUnformatted(cached_text.c_str());
                ImGui::PopFont();
            }
            ImGui::EndChild();
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
        ui.select_tab = -1;
    }
}

}  // namespace attnlab::gui
