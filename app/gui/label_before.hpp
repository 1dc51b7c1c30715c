#pragma once
// A control's label before it, as a form is read left to right (Dear ImGui
// draws a combo's own label after the box): the label, then the control on
// the same line, its text aligned with the label's. The control itself is
// then drawn with a hidden "##id" label.
#include <string>

#include <imgui.h>

namespace attnlab::gui {

// On the same line as the last item when `width` more pixels fit beside it,
// else on a line of its own: a row of controls wraps instead of being cut at
// a narrow window's edge.
inline void same_line_if_room(float width) {
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (ImGui::GetItemRectMax().x + spacing + width <= right) ImGui::SameLine();
}

inline void label_before(const std::string& label) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(label.c_str());
    ImGui::SameLine();
}

}  // namespace attnlab::gui
