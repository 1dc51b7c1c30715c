// One frame of the GUI: a full-window host with a menu bar, the three columns
// (course | editor over results | statement) with draggable splitters,
// notices, overlays and keyboard shortcuts.
#include "attnlab/core/text/report.hpp"
#include "ui.hpp"

namespace attnlab::gui {

namespace {

// GLFW key codes (what Dear ImGui's GLFW backend uses as key indices).
enum Key : int {
    kKeyComma = 44,
    kKeyE = 69,
    kKeyH = 72,
    kKeyL = 76,
    kKeyQ = 81,
    kKeyS = 83,
    kKeyEscape = 256,
    kKeyEnter = 257,
    kKeyDown = 264,
    kKeyUp = 265,
    kKeyF1 = 290,
    kKeyPadEnter = 335,
};

bool pressed(int key) { return key >= 0 && key < IM_ARRAYSIZE(ImGuiIO().KeysDown) && ImGui::IsKeyPressed(key, false); }

void open_relative(Session& s, int delta);

}  // namespace

void open_next_exercise(Ui& ui) { open_relative(ui.session, +1); }

void open_history(Ui& ui) {
    ui.show_history = true;
    ui.session.refresh_versions();  // the CLI may have kept or restored one meanwhile
}

bool pointer_moved() {
    static bool moved = false;
    const ImVec2 d = ImGui::GetIO().MouseDelta;
    moved = moved || d.x != 0.0f || d.y != 0.0f;
    return moved;
}

float tooltip_wrap_width() {
    return std::min(ImGui::GetFontSize() * 32.0f, ImGui::GetMainViewport()->Size.x * 0.45f);
}

void wrapped_tooltip(const std::string& text) {
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(tooltip_wrap_width());
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

void draw_no_result(Ui& ui) {
    ImGui::TextDisabled("%s", ui.t(ui.session.checking() ? msg::gui_views_checking : msg::gui_views_no_result).c_str());
}

namespace {

void open_relative(Session& s, int delta) {
    const auto& list = s.course().exercises;
    if (list.empty()) return;
    int index = 0;
    for (size_t i = 0; i < list.size(); ++i)
        if (s.current() && list[i].id == s.current()->id) index = static_cast<int>(i);
    index = std::clamp(index + delta, 0, static_cast<int>(list.size()) - 1);
    s.open(list[static_cast<size_t>(index)].id);
}

void handle_shortcuts(Ui& ui, bool& quit) {
    Session& s = ui.session;
    const ImGuiIO& io = ImGui::GetIO();
    if (io.KeyCtrl && (pressed(kKeyEnter) || pressed(kKeyPadEnter))) s.run_check();
    if (io.KeyCtrl && pressed(kKeyS)) {
        s.save();
        if (s.preferences().auto_run_on_save) s.run_check();
    }
    if (io.KeyCtrl && pressed(kKeyE)) s.open_in_external_editor();
    if (io.KeyCtrl && pressed(kKeyH)) {
        s.reveal_next_hint();
        ui.select_tab = 1;
    }
    if (io.KeyCtrl && pressed(kKeyL)) s.set_lang(s.lang() == Lang::En ? Lang::Id : Lang::En);
    if (io.KeyCtrl && pressed(kKeyComma)) ui.show_settings = !ui.show_settings;
    if (io.KeyCtrl && pressed(kKeyQ)) quit = true;
    if (io.KeyAlt && pressed(kKeyDown)) open_relative(s, +1);
    if (io.KeyAlt && pressed(kKeyUp)) open_relative(s, -1);
    if (pressed(kKeyF1)) ui.show_help = !ui.show_help;
    if (pressed(kKeyEscape)) {
        // Esc closes what is on top first: the settings window, the history, then a running check.
        if (ui.show_settings) ui.show_settings = false;
        else if (ui.show_history) ui.show_history = false;
        else if (s.checking()) s.cancel_check();
    }
}

// Entering another exercise: its task first, its own case in the views, and
// no selection carried over from the last one's kernel views.
void follow_exercise(Ui& ui) {
    const Exercise* e = ui.session.current();
    const std::string id = e ? e->id : "";
    if (id == ui.shown_exercise) return;
    if (!ui.shown_exercise.empty()) {
        ui.case_by_exercise[ui.shown_exercise] = ui.heatmaps.case_index;
        if (ui.select_tab < 0) ui.select_tab = 0;  // not on start-up, where --tab may have asked for one
    }
    ui.shown_exercise = id;
    const auto it = ui.case_by_exercise.find(id);
    ui.heatmaps.case_index = it != ui.case_by_exercise.end() ? it->second : -1;
    ui.heatmaps.stage.clear();
    ui.heatmaps.enlarged = -1;
    ui.kernel = KernelView{};
    ui.cuda_kernel = CudaKernelView{};
}

void draw_menu(Ui& ui, bool& quit) {
    Session& s = ui.session;
    if (!ImGui::BeginMenuBar()) return;
    if (ImGui::BeginMenu((ui.t(msg::gui_menu_file) + "###file").c_str())) {
        if (ImGui::MenuItem(ui.t(msg::gui_action_save).c_str(), "Ctrl+S")) s.save();
        if (ImGui::MenuItem(ui.t(msg::gui_action_external).c_str(), "Ctrl+E")) s.open_in_external_editor();
        if (ImGui::MenuItem(ui.t(msg::gui_editor_history).c_str())) open_history(ui);
        if (ImGui::MenuItem(ui.t(msg::gui_editor_reset).c_str())) ui.confirm_reset = true;
        ImGui::Separator();
        if (ImGui::MenuItem(ui.t(msg::gui_action_quit).c_str(), "Ctrl+Q")) quit = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu((ui.t(msg::gui_menu_run) + "###run").c_str())) {
        if (ImGui::MenuItem(ui.t(msg::gui_action_run).c_str(), "Ctrl+Enter", false, !s.checking())) s.run_check();
        if (ImGui::MenuItem(ui.t(msg::gui_action_cancel).c_str(), "Esc", false, s.checking())) s.cancel_check();
        ImGui::Separator();
        if (ImGui::MenuItem(ui.t(msg::gui_action_next).c_str(), "Alt+Down")) open_relative(s, +1);
        if (ImGui::MenuItem(ui.t(msg::gui_action_prev).c_str(), "Alt+Up")) open_relative(s, -1);
        if (ImGui::MenuItem(ui.t(msg::gui_action_hint).c_str(), "Ctrl+H")) s.reveal_next_hint();
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu((ui.t(msg::gui_menu_view) + "###view").c_str())) {
        if (ImGui::MenuItem(ui.t(msg::gui_action_settings).c_str(), "Ctrl+,")) ui.show_settings = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu((ui.t(msg::gui_menu_language) + "###language").c_str())) {
        if (ImGui::MenuItem("English", "Ctrl+L", s.lang() == Lang::En)) s.set_lang(Lang::En);
        if (ImGui::MenuItem("Bahasa Indonesia", "Ctrl+L", s.lang() == Lang::Id)) s.set_lang(Lang::Id);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu((ui.t(msg::gui_menu_help) + "###help").c_str())) {
        if (ImGui::MenuItem(ui.t(msg::gui_help_title).c_str(), "F1")) ui.show_help = true;
        ImGui::EndMenu();
    }
    // Language switch always in view, at the right of the menu bar.
    const float w = ImGui::CalcTextSize("EN | ID").x + ImGui::GetStyle().ItemSpacing.x * 4;
    ImGui::SetCursorPosX(ImGui::GetWindowWidth() - w);
    if (ImGui::SmallButton("EN")) s.set_lang(Lang::En);
    ui.note_item("menu_lang:en");
    ImGui::SameLine();
    if (ImGui::SmallButton("ID")) s.set_lang(Lang::Id);
    ui.note_item("menu_lang:id");
    ImGui::EndMenuBar();
}

// A draggable bar between two panes; returns the drag delta.
float splitter(const char* id, bool vertical, float thickness, float length) {
    ImGui::InvisibleButton(id, vertical ? ImVec2(thickness, length) : ImVec2(length, thickness));
    const bool active = ImGui::IsItemActive();
    if (ImGui::IsItemHovered() || active) {
        ImGui::SetMouseCursor(vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
        ImGui::GetWindowDrawList()->AddRectFilled(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), ImGui::GetColorU32(ImGuiCol_SeparatorHovered));
    }
    if (!active) return 0;
    return vertical ? ImGui::GetIO().MouseDelta.x : ImGui::GetIO().MouseDelta.y;
}

}  // namespace

namespace {

// Warnings for the learner (a corrupt progress file, a protection that is off…).
void draw_notices(Ui& ui) {
    Session& s = ui.session;
    if (!s.notices().empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.78f, 0.35f, 1.0f));
        for (const auto& n : s.notices()) ImGui::TextWrapped("%s", n.c_str());
        ImGui::PopStyleColor();
        if (ImGui::SmallButton(ui.t(msg::gui_notice_dismiss).c_str())) s.dismiss_notices();
        ui.note_item("dismiss_notices");
    }

}

// The latest verdict (or "Checking…") at the right of the tab bar, on every
// tab, or above the bar where the pane is too narrow for both; a click shows
// the Results.
void draw_verdict_badge(Ui& ui, bool in_tab_bar) {
    Session& s = ui.session;
    if (!s.current()) return;
    const CheckResult* r = s.last_result();
    std::string label;
    // The theme's text colour unless a verdict has its own: the disabled grey
    // on the tab's blue ("Not checked yet") was 2.98:1, under WCAG's 4.5:1.
    ImVec4 color = ImGui::GetStyleColorVec4(ImGuiCol_Text);
    if (s.checking()) {
        label = ui.t(msg::gui_badge_checking);
    } else if (r) {
        label = std::string(r->passed() ? "\xE2\x9C\x93 " : "\xE2\x9C\x97 ") + verdict_title(r->verdict, s.lang());
        color = verdict_color(r->verdict);
    } else {
        label = ui.t(msg::gui_badge_none);
    }
    ImGui::PushStyleColor(ImGuiCol_Text, color);
    const bool clicked = in_tab_bar ? ImGui::TabItemButton((label + "###verdict_badge").c_str(), ImGuiTabItemFlags_Trailing | ImGuiTabItemFlags_NoTooltip)
                                    : ImGui::SmallButton((label + "###verdict_badge").c_str());
    if (clicked) ui.select_bottom_tab = static_cast<int>(BottomTab::Results);
    ImGui::PopStyleColor();
    ui.note_item("verdict_badge");
}

// Results and the views below the editor, one tab per panel.
void draw_bottom_tabs(Ui& ui) {
    struct Tab {
        BottomTab id;
        MessageKey key;
        void (*draw)(Ui&);
    };
    static const Tab tabs[] = {
        {BottomTab::Results, msg::gui_tab_results, draw_results_panel},
        {BottomTab::Heatmaps, msg::gui_tab_heatmaps, draw_heatmaps_panel},
        {BottomTab::Stages, msg::gui_tab_stages, draw_stages_panel},
        {BottomTab::Memory, msg::gui_tab_memory, draw_layout_panel},
        {BottomTab::Experiments, msg::gui_tab_experiments, draw_experiments_panel},
        {BottomTab::Kernel, msg::gui_tab_kernel, draw_kernel_tab},
    };
    // Tabs keep their whole names: where they do not all fit beside the
    // verdict badge, the bar scrolls (arrows at its end) instead of cutting
    // "Experiments" to "Experi…".
    const ImGuiStyle& style = ImGui::GetStyle();
    float needed = ImGui::CalcTextSize(ui.t(msg::gui_badge_none).c_str()).x + ImGui::GetFontSize() * 8;  // the badge, roughly
    for (const Tab& t : tabs) needed += ImGui::CalcTextSize(ui.t(t.key).c_str()).x + style.FramePadding.x * 2 + style.ItemInnerSpacing.x;
    // Narrow: the badge goes above the bar (a trailing tab would cover the
    // tab the bar scrolls to).
    const bool narrow = needed > ImGui::GetContentRegionAvail().x;
    if (narrow) draw_verdict_badge(ui, false);
    if (ImGui::BeginTabBar("bottom_tabs", narrow ? ImGuiTabBarFlags_FittingPolicyScroll : ImGuiTabBarFlags_FittingPolicyResizeDown)) {
        // A panel drawn below may ask for another tab (Stages → Heatmaps): that
        // request is kept for the next frame, not cleared with this one.
        const int requested = ui.select_bottom_tab;
        for (const Tab& t : tabs) {
            const ImGuiTabItemFlags flags = requested == static_cast<int>(t.id) ? ImGuiTabItemFlags_SetSelected : 0;
            const std::string label = ui.t(t.key) + "###" + t.key.c_str();
            const bool open = ImGui::BeginTabItem(label.c_str(), nullptr, flags);
            ui.note_item(std::string("tab:") + t.key.c_str());
            if (open) {
                ui.bottom_tab = t.id;
                t.draw(ui);
                ImGui::EndTabItem();
            }
        }
        if (ui.select_bottom_tab == requested) ui.select_bottom_tab = -1;
        if (!narrow) draw_verdict_badge(ui, true);
        ImGui::EndTabBar();
    }
}

}  // namespace

void draw_frame(Ui& ui) {
    ui.items.clear();
    bool quit = false;
    ui.session.poll();
    follow_exercise(ui);
    handle_shortcuts(ui, quit);

    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowRounding, 0);
    ImGui::Begin("attnlab", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_MenuBar | ImGuiWindowFlags_NoBringToFrontOnFocus |
                     ImGuiWindowFlags_NoSavedSettings);
    ImGui::PopStyleVar();
    draw_menu(ui, quit);

    draw_notices(ui);

    const float split = 6.0f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float min_w = ImGui::GetFontSize() * 8;
    ui.course_width = std::clamp(ui.course_width, min_w, avail.x * 0.4f);
    ui.statement_width = std::clamp(ui.statement_width, min_w, avail.x * 0.6f);
    const float middle_w = std::max(min_w, avail.x - ui.course_width - ui.statement_width - 2 * split - 2 * ImGui::GetStyle().ItemSpacing.x);

    ImGui::BeginChild("course", ImVec2(ui.course_width, avail.y), true);
    draw_course_panel(ui);
    ImGui::EndChild();
    ImGui::SameLine(0, 0);
    ui.course_width += splitter("split_course", true, split, avail.y);
    ImGui::SameLine(0, 0);

    ImGui::BeginChild("middle", ImVec2(middle_w, avail.y), false);
    // The editor gets editor_fraction of the column (at least half by default),
    // never less than a few lines; a CUDA exercise's Kernel tab has a split of
    // its own that gives the tab most of the column (blocks, tensors, roofline).
    const float min_h = ImGui::GetFontSize() * 4;
    const Exercise* open = ui.session.current();
    float& fraction = open && open->profile().learner_writes_kernels && ui.bottom_tab == BottomTab::Kernel ? ui.kernel_editor_fraction : ui.editor_fraction;
    const float wanted = ui.results_height >= 0 ? avail.y - ui.results_height - split : fraction * avail.y;
    const float editor_h = std::clamp(wanted, min_h, std::max(min_h, avail.y - min_h - split));
    ImGui::BeginChild("editor", ImVec2(0, editor_h), true);
    draw_editor_panel(ui);
    ImGui::EndChild();
    if (const float drag = splitter("split_results", false, split, middle_w); drag != 0 && avail.y > 0) {
        fraction = std::clamp((editor_h + drag) / avail.y, 0.15f, 0.9f);
        ui.results_height = -1;
    }
    ImGui::BeginChild("results", ImVec2(0, 0), true);
    draw_bottom_tabs(ui);
    ImGui::EndChild();
    ImGui::EndChild();
    ImGui::SameLine(0, 0);
    ui.statement_width -= splitter("split_statement", true, split, avail.y);
    ImGui::SameLine(0, 0);

    ImGui::BeginChild("statement", ImVec2(0, avail.y), true);
    draw_statement_panel(ui);
    ImGui::EndChild();
    ImGui::End();

    draw_settings_window(ui);
    draw_history_window(ui);
    draw_help_overlay(ui);
    if (quit) ui.quit_requested = true;
    // For scripted drivers (ATTNLAB_GUI_ITEMS): a finished result, and which one.
    if (!ui.session.checking() && ui.session.last_result())
        ui.items["state:result:" + std::to_string(ui.session.result_generation())] = ImRect(0, 0, 0, 0);
    // ...how many saves have been made (a driver that pressed Ctrl+S waits for the next), and
    // which frame this is (a driver clicks a widget once two frames agree on where it is).
    ui.items["state:saves:" + std::to_string(ui.session.saves())] = ImRect(0, 0, 0, 0);
    ui.items["state:frame:" + std::to_string(++ui.frames_drawn)] = ImRect(0, 0, 0, 0);
}

}  // namespace attnlab::gui
