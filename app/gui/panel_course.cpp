// Course panel: every exercise in manifest order with its topics and progress;
// a topic filter; clicking an exercise opens it.
#include <algorithm>
#include <set>

#include "ui.hpp"

namespace attnlab::gui {

void draw_course_panel(Ui& ui) {
    Session& s = ui.session;
    const Course& course = s.course();
    const Lang lang = s.lang();

    int passed = 0;
    for (const auto& e : course.exercises) passed += s.status(e.id) == ExerciseStatus::Passed;
    ImGui::PushFont(ui.fonts.bold);
    ImGui::TextUnformatted(ui.t(msg::gui_course_title).c_str());
    ImGui::PopFont();
    ImGui::TextDisabled("%s", ui.t(msg::gui_course_progress, {{"passed", std::to_string(passed)}, {"total", std::to_string(course.exercises.size())}}).c_str());
    ImGui::ProgressBar(course.exercises.empty() ? 0.f : float(passed) / float(course.exercises.size()), ImVec2(-1, 4), "");

    // Topic filter.
    std::set<std::string> used;
    for (const auto& e : course.exercises) used.insert(e.topics.begin(), e.topics.end());
    const std::string current_label = ui.topic_filter.empty() ? ui.t(msg::gui_course_all_topics) : course.topic_label(ui.topic_filter, lang);
    ImGui::SetNextItemWidth(-1);
    if (ImGui::BeginCombo("##topic", current_label.c_str())) {
        if (ImGui::Selectable(ui.t(msg::gui_course_all_topics).c_str(), ui.topic_filter.empty())) ui.topic_filter.clear();
        for (const auto& t : used)
            if (ImGui::Selectable(course.topic_label(t, lang).c_str(), ui.topic_filter == t)) ui.topic_filter = t;
        ImGui::EndCombo();
    }
    ui.note_item("topic_filter");
    ImGui::Separator();

    for (size_t i = 0; i < course.exercises.size(); ++i) {
        const Exercise& e = course.exercises[i];
        if (!ui.topic_filter.empty() && std::find(e.topics.begin(), e.topics.end(), ui.topic_filter) == e.topics.end()) continue;
        const ExerciseStatus st = s.status(e.id);
        const bool selected = s.current() && s.current()->id == e.id;
        ImGui::PushID(e.id.c_str());
        const char* mark = st == ExerciseStatus::Passed ? "\xE2\x9C\x93" : st == ExerciseStatus::Attempted ? "\xE2\x80\xA2" : " ";
        ImGui::PushStyleColor(ImGuiCol_Text, status_color(st));
        ImGui::TextUnformatted(mark);
        ImGui::PopStyleColor();
        ImGui::SameLine();
        // The title wrapped to the column's width, never cut off: a selectable
        // as tall as the wrapped text, the text drawn over it.
        const std::string label = std::to_string(i + 1) + ". " + e.title.get(lang);
        const float wrap = std::max(ImGui::GetContentRegionAvail().x, ImGui::GetFontSize() * 4);
        const ImVec2 text_size = ImGui::CalcTextSize(label.c_str(), nullptr, false, wrap);
        const ImVec2 at = ImGui::GetCursorScreenPos();
        if (ImGui::Selectable("##open", selected, ImGuiSelectableFlags_None, ImVec2(0, text_size.y))) s.open(e.id);
        ImGui::GetWindowDrawList()->AddText(ImGui::GetFont(), ImGui::GetFontSize(), at, ImGui::GetColorU32(ImGuiCol_Text), label.c_str(), nullptr, wrap);
        ui.note_item("exercise:" + e.id);
        if (ImGui::IsItemHovered()) {
            std::string topics;
            for (const auto& t : e.topics) topics += (topics.empty() ? "" : ", ") + course.topic_label(t, lang);
            wrapped_tooltip(e.title.get(lang) + "\n" + ui.t(built_key(std::string("cli.status.") + status_code(st))) + "\n" + topics);
        }
        std::string topics;
        for (const auto& t : e.topics) topics += (topics.empty() ? "" : " · ") + course.topic_label(t, lang);
        ImGui::Indent(ImGui::GetFontSize() * 1.2f);
        ImGui::PushTextWrapPos(0);
        ImGui::TextDisabled("%s", topics.c_str());
        ImGui::PopTextWrapPos();
        ImGui::Unindent(ImGui::GetFontSize() * 1.2f);
        ImGui::PopID();
    }
    if (!s.course_loaded()) ImGui::TextWrapped("%s", s.course_error().c_str());
}

}  // namespace attnlab::gui
