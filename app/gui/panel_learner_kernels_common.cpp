// The learner's Kernel tab: the helpers every view draws with (collapsing
// sections, folded legends, wrapped text that keeps numbers whole, the
// fault's cross).
#include <algorithm>
#include <cctype>

#include "panel_learner_kernels.hpp"

namespace attnlab::gui::learner_kernels {

namespace {

// Greyed text that wraps (TextDisabled does not).
// Dear ImGui's word wrap may break after a '.' or ',': "3." / "00". Inside a
// number the separator becomes U+2024 (one dot leader) or U+201A (single
// low-9 quote), which look the same and are no break points.
std::string keep_numbers_whole(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const bool between_digits = i > 0 && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                                    std::isdigit(static_cast<unsigned char>(text[i + 1]));
        if (between_digits && c == '.') out += "\xE2\x80\xA4";
        else if (between_digits && c == ',') out += "\xE2\x80\x9A";
        else out += c;
    }
    return out;
}

}  // namespace

bool section(Ui& ui, const std::string& title, const char* id, bool open_by_default) {
    ImGui::Spacing();
    const size_t colon = title.find(": ");
    const std::string head = colon == std::string::npos ? title : title.substr(0, colon);
    const std::string rest = colon == std::string::npos ? "" : title.substr(colon + 2);
    const bool open = ImGui::CollapsingHeader((head + "###" + id).c_str(), open_by_default ? ImGuiTreeNodeFlags_DefaultOpen : 0);
    ui.note_item(std::string("kview_section:") + id);
    if (ImGui::IsItemHovered() && pointer_moved() && ImGui::CalcTextSize(head.c_str()).x + ImGui::GetFontSize() * 2 > ImGui::GetItemRectSize().x)
        wrapped_tooltip(title);
    if (open && !rest.empty()) {
        std::string sentence = rest;
        sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
        wrapped(sentence + (sentence.back() == '.' ? "" : "."));
    }
    return open;
}

// An explanation a learner reads once: folded under "How to read this", so
// the figures keep the room.
void legend(Ui& ui, const std::string& text, const char* id) {
    if (ImGui::TreeNodeEx((ui.t(msg::gui_kview_how_to_read) + "##" + id).c_str(), ImGuiTreeNodeFlags_SpanAvailWidth)) {
        disabled_wrapped(text);
        ImGui::TreePop();
    }
    ui.note_item(std::string("kview_legend:") + id);
}

void wrapped(const std::string& text) { ImGui::TextWrapped("%s", keep_numbers_whole(text).c_str()); }

void disabled_wrapped(const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    wrapped(text);
    ImGui::PopStyleColor();
}

std::string coords_text(const std::vector<int64_t>& c) {
    std::string s;
    for (int64_t v : c) s += (s.empty() ? "" : ", ") + std::to_string(v);
    return s;
}

unsigned linear_thread(const emu::Dim3& t, const emu::Dim3& block) { return t.x + block.x * (t.y + block.y * t.z); }

void mark_cross(ImDrawList* dl, ImVec2 lo, ImVec2 hi) {
    const float w = std::max(1.5f, (hi.x - lo.x) * 0.18f);
    dl->AddLine(lo, hi, IM_COL32(255, 255, 255, 255), w);
    dl->AddLine(ImVec2(lo.x, hi.y), ImVec2(hi.x, lo.y), IM_COL32(255, 255, 255, 255), w);
}

}  // namespace attnlab::gui::learner_kernels
