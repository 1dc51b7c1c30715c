// Editor panel: the learner's workspace file in a monospace editor with line
// numbers. Dear ImGui's multiline input gives selection and the clipboard;
// around it we add a fixed line-number gutter, Tab → spaces, jump-to-line
// (from compiler errors), the file's state, and two things 1.86's widget
// gets wrong for a learner: Esc reverts the whole text to what it was when
// the widget was focused, and its undo holds 999 characters and dies with
// the widget. Esc is withheld from it, and undo is the session's
// (UndoHistory: every edit of the session).
#include <algorithm>

#include "ui.hpp"  // imgui.h first: imgui_stdlib.h relies on it

#include <imgui_stdlib.h>

#include <cfloat>

#include "syntax.hpp"

namespace attnlab::gui {

namespace {

int callback(ImGuiInputTextCallbackData* data) {
    auto* st = static_cast<EditorState*>(data->UserData);
    if (data->EventFlag == ImGuiInputTextFlags_CallbackCharFilter) {
        if (data->EventChar == '\t') {
            // Tab indents to the next tab stop with spaces. They are typed like
            // any other characters (one now, the rest queued and taken in the
            // same frame), so undo and redo treat them as ordinary typing.
            const int n = st->tab_width - st->column % st->tab_width;
            data->EventChar = ' ';
            for (int i = 1; i < n; ++i) ImGui::GetIO().AddInputCharacter(' ');
        }
        return 0;
    }
    if (data->EventFlag == ImGuiInputTextFlags_CallbackAlways) {
        if (st->replace_with) {
            // Undo or redo changed the buffer: the widget takes it, so it has
            // nothing different to write back.
            const std::string& text = *st->replace_with;
            data->DeleteChars(0, data->BufTextLen);
            data->InsertChars(0, text.data(), text.data() + text.size());
            st->replace_with = nullptr;
        }
        if (st->pending_jump_offset >= 0) {
            const int off = std::min(st->pending_jump_offset, data->BufTextLen);
            data->CursorPos = data->SelectionStart = data->SelectionEnd = off;
            st->pending_jump_offset = -1;
        }
        if (data->CursorPos != st->cursor) st->cursor_moved = true;
        st->cursor = data->CursorPos;
        int line_start = data->CursorPos;
        while (line_start > 0 && data->Buf[line_start - 1] != '\n') --line_start;
        st->column = data->CursorPos - line_start;
    }
    return 0;
}

// Keys the editor handles itself, hidden from Dear ImGui's input widget while
// it runs (1.86 reads them through io.KeyMap): Esc, which would revert the
// text, and Z and Y, whose Ctrl shortcuts would run the widget's own undo.
class WithheldKeys {
public:
    WithheldKeys() {
        ImGuiIO& io = ImGui::GetIO();
        for (size_t i = 0; i < std::size(kKeys); ++i) {
            saved_[i] = io.KeyMap[kKeys[i]];
            io.KeyMap[kKeys[i]] = -1;
        }
    }
    ~WithheldKeys() {
        ImGuiIO& io = ImGui::GetIO();
        for (size_t i = 0; i < std::size(kKeys); ++i) io.KeyMap[kKeys[i]] = saved_[i];
    }
    WithheldKeys(const WithheldKeys&) = delete;
    WithheldKeys& operator=(const WithheldKeys&) = delete;

private:
    static constexpr ImGuiKey_ kKeys[] = {ImGuiKey_Escape, ImGuiKey_Z, ImGuiKey_Y};
    int saved_[std::size(kKeys)] = {};
};

// Ctrl+Z undoes, Ctrl+Shift+Z and Ctrl+Y redo: in the editor, or with no
// other field taking the keys.
void handle_undo(Ui& ui) {
    Session& s = ui.session;
    EditorState& st = ui.editor;
    const ImGuiIO& io = ImGui::GetIO();
    if (!io.KeyCtrl || io.KeyAlt || (!st.active && ImGui::IsAnyItemActive())) return;
    const bool z = ImGui::IsKeyPressed(io.KeyMap[ImGuiKey_Z]);
    const bool y = ImGui::IsKeyPressed(io.KeyMap[ImGuiKey_Y]);
    std::optional<size_t> cursor;
    if (z && !io.KeyShift) cursor = s.undo();
    else if ((z && io.KeyShift) || y) cursor = s.redo();
    if (!cursor) return;
    st.replace_with = st.active ? &s.buffer() : nullptr;  // an inactive widget reads the buffer when it wakes
    st.pending_jump_offset = static_cast<int>(*cursor);
    if (!st.active) ui.focus_editor = true;
}

int line_offset(const std::string& text, int line) {
    int current = 1;
    for (size_t i = 0; i < text.size(); ++i) {
        if (current == line) return static_cast<int>(i);
        if (text[i] == '\n') ++current;
    }
    return static_cast<int>(text.size());
}

}  // namespace

namespace {

// Run/Cancel, Save, external editor, Reset, the file's state; and the
// choice to make when the file changed on disk under unsaved edits.
void draw_toolbar(Ui& ui, EditorState& st) {
    Session& s = ui.session;
    if (s.checking()) {
        if (ImGui::Button(ui.t(msg::gui_editor_cancel).c_str())) s.cancel_check();
        ui.note_item("cancel");
    } else {
        if (ImGui::Button(ui.t(msg::gui_editor_run).c_str())) s.run_check();
        ui.note_item("run");
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+Enter");
    ImGui::SameLine();
    if (ImGui::Button(ui.t(msg::gui_editor_save).c_str())) s.save();
    ui.note_item("save");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+S");
    ImGui::SameLine();
    if (ImGui::Button(ui.t(msg::gui_editor_external).c_str())) s.open_in_external_editor();
    ui.note_item("external");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Ctrl+E");
    ImGui::SameLine();
    if (ImGui::Button(ui.t(msg::gui_editor_history).c_str())) open_history(ui);
    ui.note_item("history");
    ImGui::SameLine();
    if (ImGui::Button(ui.t(msg::gui_editor_reset).c_str())) ui.confirm_reset = true;
    ui.note_item("reset");
    const std::string name = s.file().filename().string();
    const std::string status = name + " · " + ui.t(s.dirty() ? msg::gui_editor_unsaved : msg::gui_editor_saved) + " · " +
                               ui.t(msg::gui_editor_position, {{"line", std::to_string(ui.editor_cursor_line)},
                                                            {"col", std::to_string(1 + st.cursor - line_offset(s.buffer(), ui.editor_cursor_line))}});
    // Beside the buttons when it fits there, else on a line of its own, wrapped: never cut off.
    const float room = ImGui::GetWindowContentRegionMax().x - (ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x) - ImGui::GetStyle().ItemSpacing.x;
    if (ImGui::CalcTextSize(status.c_str()).x <= room) ImGui::SameLine();
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", status.c_str());
    ImGui::PopTextWrapPos();
    ui.note_item("editor_status");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", s.file().string().c_str());

    if (s.disk_conflict()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.3f, 1.0f));
        ImGui::TextWrapped("%s", ui.t(msg::gui_editor_conflict, {{"file", name}}).c_str());
        ImGui::PopStyleColor();
        if (ImGui::Button(ui.t(msg::gui_editor_take_disk).c_str())) s.take_disk();
        ui.note_item("take_disk");
        ImGui::SameLine();
        if (ImGui::Button(ui.t(msg::gui_editor_keep_mine).c_str())) s.keep_mine();
        ui.note_item("keep_mine");
    }

}

void draw_reset_confirmation(Ui& ui) {
    Session& s = ui.session;
    if (ui.confirm_reset) {
        ImGui::OpenPopup("confirm_reset");
        ui.confirm_reset = false;
    }
    if (ImGui::BeginPopupModal("confirm_reset", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoTitleBar)) {
        ImGui::PushFont(ui.fonts.bold);
        ImGui::TextUnformatted(ui.t(msg::gui_reset_title).c_str());
        ImGui::PopFont();
        ImGui::TextUnformatted(ui.t(msg::gui_reset_body).c_str());
        if (ImGui::Button(ui.t(msg::gui_reset_confirm).c_str())) {
            s.reset_to_starter();
            ImGui::CloseCurrentPopup();
        }
        ui.note_item("reset_confirm");
        ImGui::SameLine();
        if (ImGui::Button(ui.t(msg::gui_cancel).c_str()) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }

}

// Visible line range [first, last) of a text `lines` long, scrolled by
// scroll_y in a view view_h tall.
std::pair<int, int> visible_lines(int lines, float line_h, float scroll_y, float view_h) {
    const float pad_y = ImGui::GetStyle().FramePadding.y;
    const int first = std::max(0, static_cast<int>((scroll_y - pad_y) / line_h) - 1);
    const int last = std::min(lines, static_cast<int>((scroll_y + view_h) / line_h) + 2);
    return {first, last};
}

ImU32 mark_color(LineMarkKind k, bool dark, float alpha = 1.0f) {
    switch (k) {
        case LineMarkKind::Warning: return dark ? ImGui::GetColorU32(ImVec4(0.98f, 0.78f, 0.30f, alpha)) : ImGui::GetColorU32(ImVec4(0.60f, 0.40f, 0.0f, alpha));
        case LineMarkKind::Fault: return dark ? ImGui::GetColorU32(ImVec4(0.85f, 0.55f, 0.98f, alpha)) : ImGui::GetColorU32(ImVec4(0.50f, 0.15f, 0.65f, alpha));
        case LineMarkKind::Error: break;
    }
    return dark ? ImGui::GetColorU32(ImVec4(1.0f, 0.45f, 0.40f, alpha)) : ImGui::GetColorU32(ImVec4(0.70f, 0.05f, 0.05f, alpha));
}

// The marks of one line, most serious first (errors, then faults, then warnings).
std::vector<const LineMark*> marks_on(const std::vector<LineMark>& marks, int line) {
    std::vector<const LineMark*> out;
    for (const LineMark& m : marks)
        if (m.line == line) out.push_back(&m);
    auto rank = [](const LineMark* m) { return m->kind == LineMarkKind::Error ? 0 : m->kind == LineMarkKind::Fault ? 1 : 2; };
    std::stable_sort(out.begin(), out.end(), [&](const LineMark* a, const LineMark* b) { return rank(a) < rank(b); });
    return out;
}

// Where the code scrolls: its top-left corner on screen, its size, and how far it is scrolled.
struct CodeView {
    ImVec2 min, size;
    float scroll_x = 0, scroll_y = 0;
};

float gutter_width(int digits, float char_w) {
    return char_w * 1.5f + char_w * static_cast<float>(digits + 1) + ImGui::GetStyle().FramePadding.x;
}

// The line-number gutter, left of the scrolled code and never scrolled
// sideways with it, for the visible lines only, with a marker on every line
// the verdict names (hover: its message; click: go there); and a faint band
// across each marked line, so the mark is seen beside the code too.
void draw_gutter(Ui& ui, const CodeView& code, int lines, int digits, float line_h, float char_w) {
    const float pad_y = ImGui::GetStyle().FramePadding.y;
    const auto [first, last] = visible_lines(lines, line_h, code.scroll_y, code.size.y);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 number_color = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const ImU32 current_color = ImGui::GetColorU32(ImGuiCol_Text);
    const bool dark = ui.session.preferences().dark_theme;
    const std::vector<LineMark>& marks = ui.session.verdict_lines();
    const float marker_w = char_w * 1.5f;
    const float width = gutter_width(digits, char_w);
    const ImVec2 origin(code.min.x - width, code.min.y - code.scroll_y);
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    dl->PushClipRect(ImVec2(origin.x, code.min.y), ImVec2(code.min.x + code.size.x, code.min.y + code.size.y), true);
    char num[16];
    for (int l = first; l < last; ++l) {
        const float y = origin.y + pad_y + line_h * static_cast<float>(l);
        std::snprintf(num, sizeof num, "%*d", digits, l + 1);
        dl->AddText(ImVec2(origin.x + marker_w, y), l + 1 == ui.editor_cursor_line ? current_color : number_color, num);
        const std::vector<const LineMark*> here = marks_on(marks, l + 1);
        if (here.empty()) continue;
        const ImVec2 c(origin.x + marker_w * 0.5f, y + line_h * 0.5f);
        dl->AddCircleFilled(c, line_h * 0.3f, mark_color(here.front()->kind, dark));
        dl->AddRectFilled(ImVec2(code.min.x, y), ImVec2(code.min.x + code.size.x, y + line_h), mark_color(here.front()->kind, dark, 0.16f));
        const ImRect row(ImVec2(origin.x, y), ImVec2(origin.x + width, y + line_h));
        ui.items["gutter_mark:" + std::to_string(l + 1)] = row;
        if (!row.Contains(mouse) || !ImGui::IsWindowHovered()) continue;
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(tooltip_wrap_width());
        for (const LineMark* m : here) ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(mark_color(m->kind, dark)), "%s", m->message.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) ui.jump_to_line = l + 1;
    }
    dl->PopClipRect();
}

ImU32 token_color(TokenKind k, bool dark) {
    struct Pair { ImVec4 dark, light; };
    static const Pair colors[] = {
        {{0.92f, 0.92f, 0.92f, 1}, {0.08f, 0.08f, 0.08f, 1}},  // Plain (unused: the theme's text colour)
        {{0.80f, 0.62f, 1.00f, 1}, {0.45f, 0.10f, 0.62f, 1}},  // Keyword
        {{0.45f, 0.85f, 1.00f, 1}, {0.00f, 0.33f, 0.55f, 1}},  // Type
        {{1.00f, 0.72f, 0.35f, 1}, {0.62f, 0.28f, 0.00f, 1}},  // Cuda
        {{0.66f, 0.74f, 0.66f, 1}, {0.30f, 0.40f, 0.30f, 1}},  // Comment
        {{0.72f, 0.92f, 0.48f, 1}, {0.08f, 0.42f, 0.08f, 1}},  // String
        {{1.00f, 0.86f, 0.55f, 1}, {0.55f, 0.32f, 0.00f, 1}},  // Number
        {{1.00f, 0.62f, 0.82f, 1}, {0.58f, 0.12f, 0.42f, 1}},  // Preprocessor
    };
    const Pair& p = colors[static_cast<int>(k)];
    return ImGui::GetColorU32(dark ? p.dark : p.light);
}

// The code itself, coloured: the input widget draws its text transparent and
// this draws the visible lines over it (same font, same positions), and the
// cursor, which the widget would draw in the text colour.
void draw_highlighted(Ui& ui, const std::string& text, ImVec2 text_origin, float line_h, int lines, bool active, int cursor) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImFont* font = ImGui::GetFont();
    const float size = ImGui::GetFontSize();
    const bool dark = ui.session.preferences().dark_theme;
    const ImU32 plain = ImGui::GetColorU32(ImGuiCol_Text);
    const auto [first, last] = visible_lines(lines, line_h, ImGui::GetScrollY(), ImGui::GetWindowHeight());
    bool in_comment = false;
    size_t start = 0;
    for (int l = 0; l < last && start <= text.size(); ++l) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string_view line(text.data() + start, end - start);
        const std::vector<TokenSpan> spans = highlight_line(line, in_comment);
        if (l >= first) {
            const char* b = line.data();
            float x = text_origin.x;
            const float y = text_origin.y + line_h * static_cast<float>(l);
            int at = 0;
            auto draw = [&](int from, int to, ImU32 col) {
                if (to <= from) return;
                dl->AddText(font, size, ImVec2(x, y), col, b + from, b + to);
                x += font->CalcTextSizeA(size, FLT_MAX, 0, b + from, b + to).x;
            };
            for (const TokenSpan& sp : spans) {
                draw(at, sp.begin, plain);
                draw(sp.begin, sp.end, token_color(sp.kind, dark));
                at = sp.end;
            }
            draw(at, static_cast<int>(line.size()), plain);
            if (active && cursor >= static_cast<int>(start) && cursor <= static_cast<int>(end)) {
                const float cx = text_origin.x + font->CalcTextSizeA(size, FLT_MAX, 0, b, text.data() + cursor).x;
                dl->AddLine(ImVec2(cx, y), ImVec2(cx, y + line_h - 1), plain, 1.5f);
            }
        }
        start = end + 1;
    }
}

// Keep the cursor visible: the widget is as tall as the text, so the
// scrolling is ours to do.
void follow_cursor(Ui& ui, EditorState& st, const std::string& text, bool active, float line_h, float char_w) {
    ui.editor_cursor_line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + std::min<size_t>(static_cast<size_t>(std::max(st.cursor, 0)), text.size()), '\n'));
    if (!active || !st.cursor_moved) return;
    st.cursor_moved = false;
    const ImGuiStyle& style = ImGui::GetStyle();
    const float cy = style.FramePadding.y + line_h * static_cast<float>(ui.editor_cursor_line - 1);
    const float visible = ImGui::GetWindowHeight() - style.ScrollbarSize - line_h;
    if (cy < ImGui::GetScrollY()) ImGui::SetScrollY(cy);
    else if (cy + line_h > ImGui::GetScrollY() + visible) ImGui::SetScrollY(cy + line_h - visible);
    const int col = st.cursor - line_offset(text, ui.editor_cursor_line);
    const float cx = style.FramePadding.x + char_w * static_cast<float>(col);
    const float visible_w = ImGui::GetWindowWidth() - style.ScrollbarSize - 2 * char_w;
    if (cx < ImGui::GetScrollX()) ImGui::SetScrollX(std::max(0.0f, cx - 4 * char_w));
    else if (cx > ImGui::GetScrollX() + visible_w) ImGui::SetScrollX(cx - visible_w);
}

// Lines, the longest line's length, and the gutter's digits of a text.
struct TextShape {
    int lines = 1, longest = 0, digits = 2;
    explicit TextShape(const std::string& text) {
        for (size_t i = 0, start = 0; i <= text.size(); ++i)
            if (i == text.size() || text[i] == '\n') {
                longest = std::max(longest, static_cast<int>(i - start));
                start = i + 1;
                if (i < text.size()) ++lines;
            }
        digits = lines >= 1000 ? 4 : lines >= 100 ? 3 : 2;
    }
};

// The input widget, transparent, with the coloured text under it; in a child
// that scrolls both ways. Returns where that child was and how far it scrolled.
CodeView draw_code(Ui& ui, EditorState& st, const TextShape& shape, ImVec2 size, float line_h, float char_w) {
    Session& s = ui.session;
    ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0, 0, 0, 0));  // the frame behind it is drawn by draw_text
    ImGui::BeginChild("editor_scroll", size, false, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::PopStyleColor();
    const ImVec2 scrollbars = ImGui::GetCurrentWindow()->ScrollbarSizes;
    const ImVec2 outer = ImGui::GetWindowSize();
    CodeView view{ImGui::GetWindowPos(), ImVec2(outer.x - scrollbars.x, outer.y - scrollbars.y), ImGui::GetScrollX(), ImGui::GetScrollY()};
    ui.items["editor_view"] = ImRect(view.min, ImVec2(view.min.x + view.size.x, view.min.y + view.size.y));  // the part of the code on screen (scripts click it)
    const float pad_y = ImGui::GetStyle().FramePadding.y;
    const float width = std::max(ImGui::GetContentRegionAvail().x, char_w * static_cast<float>(shape.longest + 4));
    const float height = std::max(ImGui::GetContentRegionAvail().y, line_h * static_cast<float>(shape.lines + 2) + 2 * pad_y);
    if (ui.focus_editor) {
        ImGui::SetKeyboardFocusHere();
        ui.focus_editor = false;
    }
    ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(0, 0, 0, 0));
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0, 0, 0, 0));  // drawn coloured by draw_highlighted
    ImGui::PushID(s.buffer_generation());  // a reloaded buffer must not be overwritten by the widget's old copy
    const ImGuiInputTextFlags flags =
        ImGuiInputTextFlags_AllowTabInput | ImGuiInputTextFlags_CallbackAlways | ImGuiInputTextFlags_CallbackCharFilter;
    {
        const WithheldKeys withheld;
        if (ImGui::InputTextMultiline("##code", &s.buffer(), ImVec2(width, height), flags, callback, &st)) s.mark_edited();
    }
    ui.note_item("editor");
    st.active = ImGui::IsItemActive();
    const ImVec2 text_origin(ImGui::GetItemRectMin().x + ImGui::GetStyle().FramePadding.x, ImGui::GetItemRectMin().y + pad_y);
    ImGui::PopID();
    ImGui::PopStyleColor(2);
    draw_highlighted(ui, s.buffer(), text_origin, line_h, shape.lines, st.active, st.cursor);
    follow_cursor(ui, st, s.buffer(), st.active, line_h, char_w);
    ImGui::EndChild();
    return view;
}

void draw_text(Ui& ui, EditorState& st) {
    Session& s = ui.session;
    if (ui.jump_to_line > 0) {
        st.pending_jump_offset = line_offset(s.buffer(), ui.jump_to_line);
        ui.focus_editor = true;
        ui.jump_to_line = 0;
    }
    handle_undo(ui);
    ImGui::PushFont(ui.fonts.mono);
    const float line_h = ImGui::GetTextLineHeight();
    const float char_w = ImGui::CalcTextSize("M").x;
    const TextShape shape(s.buffer());
    // The frame: the gutter at its left, the code scrolling beside it.
    const ImVec2 min = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float gutter = gutter_width(shape.digits, char_w);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float rounding = ImGui::GetStyle().ChildRounding;
    dl->AddRectFilled(min, ImVec2(min.x + avail.x, min.y + avail.y), ImGui::GetColorU32(ImGuiCol_FrameBg), rounding);
    dl->AddRect(min, ImVec2(min.x + avail.x, min.y + avail.y), ImGui::GetColorU32(ImGuiCol_Border), rounding);
    ImGui::SetCursorScreenPos(ImVec2(min.x + gutter, min.y));
    const CodeView code = draw_code(ui, st, shape, ImVec2(std::max(avail.x - gutter, char_w * 4), avail.y), line_h, char_w);
    draw_gutter(ui, code, shape.lines, shape.digits, line_h, char_w);
    ImGui::PopFont();
}

}  // namespace

void draw_editor_panel(Ui& ui) {
    Session& s = ui.session;
    if (!s.current()) {
        ImGui::TextDisabled("%s", ui.t(msg::gui_no_exercise).c_str());
        return;
    }
    EditorState& st = ui.editor;
    st.tab_width = s.preferences().tab_width;
    draw_toolbar(ui, st);
    draw_reset_confirmation(ui);
    draw_text(ui, st);
}

}  // namespace attnlab::gui
