#pragma once
// Shared state of the GUI's panels: the session they read and command, fonts,
// which overlays are open, and where named widgets were drawn (so headless
// tests can click them). Panels are free functions, one source file each;
// none holds exercise logic — that lives in the core's Session.
#include <map>
#include <string>

#include <imgui.h>
#include <imgui_internal.h>

#include "attnlab/core/messages.hpp"
#include "attnlab/core/session.hpp"

namespace attnlab::gui {

struct Fonts {
    ImFont* ui = nullptr;
    ImFont* bold = nullptr;
    ImFont* mono = nullptr;
    ImFont* heading = nullptr;
    bool unicode_ok = false;  // DejaVu found: √, ·, ×, ≤, → render
};

// The editor widget's own state between frames (Tab, jumps, cursor).
struct EditorState {
    int tab_width = 4;
    bool pending_tab = false;
    int pending_jump_offset = -1;  // byte offset to put the cursor at
    int cursor = 0;                // byte offset of the cursor, as of the last callback
    bool cursor_moved = false;
};

struct Ui {
    explicit Ui(Session& s) : session(s) {}
    Session& session;
    Fonts fonts;

    bool show_settings = false;
    bool show_help = false;
    bool confirm_reset = false;
    std::string topic_filter;        // "" = all topics
    int statement_tab = 0;           // 0 statement, 1 hints, 2 solution (what is shown)
    int select_tab = -1;             // >= 0: switch the statement panel to this tab next frame
    int jump_to_line = 0;            // > 0: the editor moves its cursor there next frame
    int editor_cursor_line = 1;      // where the editor's cursor is (1-based)
    EditorState editor;
    bool focus_editor = false;
    bool fonts_dirty = false;
    bool quit_requested = false;        // font size changed: rebuild the atlas before the next frame
    float course_width = 230.0f;
    float statement_width = 420.0f;
    float results_height = 260.0f;

    // Widget rectangles by name, refreshed every frame (for tests and for
    // scripted screenshots; cheap).
    std::map<std::string, ImRect> items;
    void note_item(const std::string& name) { items[name] = ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax()); }

    const std::string& t(const std::string& key) const { return tr(session.lang(), key); }
    std::string t(const std::string& key, const std::map<std::string, std::string>& args) const { return tr(session.lang(), key, args); }
};

// The whole frame: menu bar, panels, overlays, shortcuts.
void draw_frame(Ui& ui);

// Panels (one file each).
void draw_course_panel(Ui& ui);
void draw_statement_panel(Ui& ui);
void draw_editor_panel(Ui& ui);
void draw_results_panel(Ui& ui);
void draw_settings_window(Ui& ui);
void draw_help_overlay(Ui& ui);

// Colours shared by panels.
ImVec4 verdict_color(Verdict v);
ImVec4 status_color(ExerciseStatus s);

// Keyboard shortcuts handled by draw_frame; listed by the help overlay.
struct Shortcut {
    const char* keys;
    const char* action_key;  // message key
};
const std::vector<Shortcut>& shortcuts();

}  // namespace attnlab::gui
