#pragma once
// A control's label before it, as a form is read left to right (Dear ImGui
// draws a combo's own label after the box): the label, then the control on
// the same line, its text aligned with the label's. The control itself is
// then drawn with a hidden "##id" label.
#include <string>

#include <imgui.h>

namespace attnlab::gui {

inline void label_before(const std::string& label) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(label.c_str());
    ImGui::SameLine();
}

}  // namespace attnlab::gui
