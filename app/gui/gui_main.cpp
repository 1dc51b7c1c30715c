// The desktop window: GLFW + OpenGL 3 glue around Dear ImGui's frame loop
// (after imgui's example_glfw_opengl3). Everything the learner sees is drawn
// by draw_frame(); this file only owns the window, fonts, theme, the
// scripted screenshot mode and the first-frame timing.
#include "gui.hpp"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <stb_image_write.h>

#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>

#include "fonts.hpp"
#include "gl_colormap.hpp"
#include "input_queue.hpp"
#include "ui.hpp"

namespace attnlab::gui {

namespace {

std::string g_glfw_error;
void on_glfw_error(int, const char* description) { g_glfw_error = description ? description : "unknown error"; }

// Input goes through a queue (input_queue.hpp) so no key is lost between
// frames; every other window event only wakes the loop for a redraw.
InputQueue g_input;
int g_wakeups = 0;

void on_key(GLFWwindow*, int key, int scancode, int action, int mods) {
    g_input.push({InputEvent::Key, key, scancode, action, mods});
}
void on_char(GLFWwindow*, unsigned int c) { g_input.push({InputEvent::Char, static_cast<int>(c)}); }
void on_mouse_button(GLFWwindow*, int button, int action, int mods) { g_input.push({InputEvent::MouseButton, button, 0, action, mods}); }
void on_scroll(GLFWwindow*, double dx, double dy) { g_input.push({InputEvent::Scroll, 0, 0, 0, 0, dx, dy}); }
void on_cursor(GLFWwindow*, double, double) { ++g_wakeups; }
void on_focus(GLFWwindow* w, int focused) {
    ImGui_ImplGlfw_WindowFocusCallback(w, focused);
    ++g_wakeups;
}
void on_enter(GLFWwindow* w, int entered) {
    ImGui_ImplGlfw_CursorEnterCallback(w, entered);
    ++g_wakeups;
}
void on_refresh(GLFWwindow*) { ++g_wakeups; }
void on_resize(GLFWwindow*, int, int) { ++g_wakeups; }

void install_input(GLFWwindow* w) {
    glfwSetKeyCallback(w, on_key);
    glfwSetCharCallback(w, on_char);
    glfwSetMouseButtonCallback(w, on_mouse_button);
    glfwSetScrollCallback(w, on_scroll);
    glfwSetCursorPosCallback(w, on_cursor);
    glfwSetWindowFocusCallback(w, on_focus);
    glfwSetCursorEnterCallback(w, on_enter);
    glfwSetWindowRefreshCallback(w, on_refresh);
    glfwSetFramebufferSizeCallback(w, on_resize);
}

// This frame's share of the queued input, to the ImGui backend's handlers.
// `editing_text`: the editor had the keyboard last frame (Enter and Tab are text).
void feed_input(GLFWwindow* w, bool editing_text) {
    g_input.feed_frame([w](const InputEvent& e) {
        switch (e.kind) {
            case InputEvent::Key: ImGui_ImplGlfw_KeyCallback(w, e.code, e.scancode, e.action, e.mods); break;
            case InputEvent::Char: ImGui_ImplGlfw_CharCallback(w, static_cast<unsigned int>(e.code)); break;
            case InputEvent::MouseButton: ImGui_ImplGlfw_MouseButtonCallback(w, e.code, e.action, e.mods); break;
            case InputEvent::Scroll: ImGui_ImplGlfw_ScrollCallback(w, e.dx, e.dy); break;
        }
    }, editing_text);
}

void apply_theme(const Preferences& p) {
    ImGuiStyle fresh;
    ImGui::GetStyle() = fresh;
    if (p.dark_theme) ImGui::StyleColorsDark();
    else ImGui::StyleColorsLight();
    ImGuiStyle& st = ImGui::GetStyle();
    // Secondary text at least 4.5:1 against the window and the editor (WCAG AA):
    // Dear ImGui's own greys are about 2.5:1 in the light theme.
    st.Colors[ImGuiCol_TextDisabled] = p.dark_theme ? ImVec4(0.62f, 0.62f, 0.64f, 1.0f) : ImVec4(0.33f, 0.33f, 0.35f, 1.0f);
    if (!p.dark_theme) st.Colors[ImGuiCol_Text] = ImVec4(0.05f, 0.05f, 0.05f, 1.0f);
    st.WindowRounding = 4;
    st.FrameRounding = 3;
    st.ChildRounding = 4;
    st.ScaleAllSizes(p.ui_scale);
}

bool write_screenshot(GLFWwindow* window, const std::string& path) {
    int w = 0, h = 0;
    glfwGetFramebufferSize(window, &w, &h);
    std::vector<unsigned char> pixels(static_cast<size_t>(w) * static_cast<size_t>(h) * 4);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, pixels.data());
    // OpenGL's rows go bottom-up; PNG's top-down.
    stbi_flip_vertically_on_write(1);
    return stbi_write_png(path.c_str(), w, h, 4, pixels.data(), w * 4) != 0;
}

}  // namespace

bool display_available(std::string& reason) {
    if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY")) {
        reason = "DISPLAY is not set";
        return false;
    }
    return true;
}

namespace {

// The window and its OpenGL context; nullptr (after saying why) when there is no display.
GLFWwindow* open_window(const GuiOptions& opt, Lang lang) {
    std::string reason;
    glfwSetErrorCallback(on_glfw_error);
    if (!display_available(reason) || !glfwInit()) {
        if (reason.empty()) reason = g_glfw_error;
        std::cerr << tr(lang, msg::gui_no_display, {{"reason", reason}}) << "\n";
        return nullptr;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    GLFWwindow* window = glfwCreateWindow(opt.width, opt.height, "attnlab", nullptr, nullptr);
    if (!window) {
        std::cerr << tr(lang, msg::gui_no_display, {{"reason", g_glfw_error}}) << "\n";
        glfwTerminate();
        return nullptr;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(opt.screenshot.empty() ? 1 : 0);
    return window;
}

void init_imgui(GLFWwindow* window, const Session& session) {
    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout lives in settings.json with the other preferences
    ImGui::LoadIniSettingsFromMemory(session.preferences().layout_ini.c_str());
    ImGui_ImplGlfw_InitForOpenGL(window, false);  // our callbacks queue the input (install_input)
    install_input(window);
    ImGui_ImplOpenGL3_Init("#version 130");
}

// The exercise to open, and what the command line asked to show first.
void apply_options(Ui& ui, Session& session, const GuiOptions& opt) {
    if (!session.course_loaded()) std::cerr << "attnlab: " << session.course_error() << "\n";
    const std::string first = opt.exercise.empty() ? session.continue_id() : opt.exercise;
    if (!first.empty() && !session.open(first)) {
        std::cerr << "attnlab: " << tr(session.lang(), msg::cli_unknown_exercise, {{"id", first}}) << "\n";
        session.open(session.continue_id());
    }
    if (opt.run) session.run_check();
    if (opt.tab == "hints") ui.select_tab = 1;
    else if (opt.tab == "solution") ui.select_tab = 2;
    ui.show_settings = opt.show == "settings";
    ui.show_help = opt.show == "help";
    if (opt.show == "history") open_history(ui);
    static const std::pair<const char*, BottomTab> views[] = {{"heatmaps", BottomTab::Heatmaps}, {"stages", BottomTab::Stages},
                                                              {"memory", BottomTab::Memory},     {"experiments", BottomTab::Experiments},
                                                              {"kernel", BottomTab::Kernel}};
    for (const auto& [name, tab] : views)
        if (opt.view == name) ui.select_bottom_tab = static_cast<int>(tab);
    if (opt.view == "roofline") {  // the Kernel tab, scrolled to its roofline
        ui.select_bottom_tab = static_cast<int>(BottomTab::Kernel);
        ui.scroll_to_roofline = 8;
    }
    if (opt.view == "versions") {  // the Kernel tab, scrolled to beat your v1
        ui.select_bottom_tab = static_cast<int>(BottomTab::Kernel);
        ui.scroll_to_versions = 8;
    }
}

// Theme and fonts follow the preferences (the settings window changes them).
void follow_preferences(Ui& ui, Preferences& applied, const Preferences& p) {
    if (p.dark_theme != applied.dark_theme || p.ui_scale != applied.ui_scale) {
        apply_theme(p);
        ui.fonts_dirty = true;
    }
    if (ui.fonts_dirty || p.font_size != applied.font_size) {
        ui.fonts = build_fonts(p.font_size * p.ui_scale);
        ImGui_ImplOpenGL3_DestroyFontsTexture();
        ImGui_ImplOpenGL3_CreateFontsTexture();
        ui.fonts_dirty = false;
    }
    applied = p;
}

void render_frame(Ui& ui, GLFWwindow* window) {
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    ImGui::NewFrame();
    ImGui::PushFont(ui.fonts.ui);
    draw_frame(ui);
    ImGui::PopFont();
    ImGui::Render();
    int w, h;
    glfwGetFramebufferSize(window, &w, &h);
    glViewport(0, 0, w, h);
    const ImVec4 bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    glClearColor(bg.x, bg.y, bg.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}

// The scripted mode (--screenshot, --quit-after): N frames after the check is
// done, write the picture and quit. Returns false when the picture could not be written.
bool scripted_step(Ui& ui, GLFWwindow* window, const GuiOptions& opt, int& frames_after_ready) {
    if (opt.screenshot.empty() && opt.quit_after < 0) return true;
    const bool checked = !opt.run || (!ui.session.checking() && ui.session.last_result());
    // --compare: once the check is in, the earlier kernel runs beside it, as its button would.
    static bool compare_started = false;
    if (checked && !opt.compare.empty() && !compare_started) {
        ui.version_choice = opt.compare;
        compare_started = true;
        if (!ui.session.compare_with(opt.compare))
            std::cerr << "attnlab: " << tr(ui.session.lang(), msg::gui_compare_failed, {{"earlier", opt.compare}}) << "\n";
    }
    const bool ready = checked && !ui.session.comparing();
    if (!ready || ++frames_after_ready <= std::max(opt.quit_after, 1)) return true;
    ui.quit_requested = true;
    if (opt.screenshot.empty() || write_screenshot(window, opt.screenshot)) return true;
    std::cerr << "attnlab: " << tr(ui.session.lang(), msg::gui_screenshot_failed, {{"file", opt.screenshot}}) << "\n";
    return false;
}

// For scripted drivers (scripts/screenshots.sh with xdotool): with
// ATTNLAB_GUI_ITEMS=FILE the named widgets' rectangles of the last frame go
// to FILE ("name x0 y0 x1 y1" per line, window pixels), rewritten atomically
// when they change, so a script can click "probe_show" or "diag:0".
void dump_items(const Ui& ui, std::string& last) {
    static const char* path = std::getenv("ATTNLAB_GUI_ITEMS");
    if (!path || !*path) return;
    std::string text;
    char line[64];
    for (const auto& [name, r] : ui.items) {
        std::snprintf(line, sizeof line, " %.0f %.0f %.0f %.0f\n", r.Min.x, r.Min.y, r.Max.x, r.Max.y);
        text += name + line;
    }
    if (text == last) return;
    last = text;
    const std::string tmp = std::string(path) + ".tmp";
    if (FILE* f = std::fopen(tmp.c_str(), "w")) {
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
        std::rename(tmp.c_str(), path);
    }
}

// Remember the layout with the other preferences.
void save_layout(const Ui& ui, Session& session) {
    size_t ini_size = 0;
    const char* ini = ImGui::SaveIniSettingsToMemory(&ini_size);
    Preferences p = session.preferences();
    p.layout_ini.assign(ini, ini_size);
    p.course_width = ui.course_width;
    p.statement_width = ui.statement_width;
    p.editor_fraction = ui.editor_fraction;
    p.kernel_editor_fraction = ui.kernel_editor_fraction;
    session.set_preferences(p);
}

void close_window(GLFWwindow* window) {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
}

}  // namespace

// What the window shows that can change without input: a check's progress
// and result, the file on disk, notices, background jobs. Compared between
// wake-ups, so an idle window draws nothing.
struct IdleWatch {
    std::string last;
    int frames_to_draw = 6;  // ImGui settles layout, focus and hover over a few frames
    static std::string state(const Session& s) {
        const CheckProgress p = s.check_progress();
        return std::to_string(s.result_generation()) + "/" + std::to_string(s.checking()) + "/" + std::to_string(static_cast<int>(p.phase)) +
               "/" + std::to_string(p.case_index) + "/" + std::to_string(s.buffer_generation()) + "/" + std::to_string(s.notices().size()) +
               "/" + std::to_string(s.disk_conflict()) + "/" + std::to_string(s.measuring_projections()) + "/" +
               std::to_string(s.projection_timing().has_value()) + "/" + std::to_string(s.computing_resources()) + "/" + std::to_string(s.dirty()) + "/" + std::to_string(s.saves()) +
               "/" + std::to_string(s.recordings_generation()) + "/" + std::to_string(s.recording_block() != nullptr);
    }
};

// Waits until there is something to draw: input, a window event, or a change
// in what the session shows (it is polled a few times a second meanwhile, for
// autosave and the file on disk). False: nothing to draw this time round.
// After a new result has replaced the last one (and the views have swapped
// their data for it), hands the freed pages back to the system: a check frees
// tens of MB of tensors, stage copies and access logs, spread over the heaps
// of the threads that made them, which glibc would otherwise keep (the
// window's resident set crept up by a few MB per check; bench/rss_over_checks.sh).
void return_freed_memory(const Session& session, int& trimmed_generation) {
    if (session.result_generation() == trimmed_generation || session.checking()) return;
    trimmed_generation = session.result_generation();
    malloc_trim(0);
}

bool wait_for_work(Session& session, const GuiOptions& opt, IdleWatch& idle) {
    const int wakeups = g_wakeups;
    if (!opt.screenshot.empty() || idle.frames_to_draw > 0 || !g_input.empty()) glfwPollEvents();
    else glfwWaitEventsTimeout(session.checking() || session.measuring_projections() ? 0.05 : 0.25);
    session.poll();
    const std::string now = IdleWatch::state(session);
    if (wakeups != g_wakeups || !g_input.empty() || now != idle.last) idle.frames_to_draw = std::max(idle.frames_to_draw, 6);
    idle.last = now;
    if (idle.frames_to_draw <= 0 && opt.screenshot.empty() && opt.quit_after < 0) return false;
    --idle.frames_to_draw;
    return true;
}

// Thin glue around the frame loop: every decision is in the Session (core) or a panel.
int run_gui(const GuiOptions& opt) {
    const auto launched = std::chrono::steady_clock::now();
    Session session(Session::Options{opt.course_dir, opt.lang});
    GLFWwindow* window = open_window(opt, session.lang());
    if (!window) return 2;
    init_imgui(window, session);

    Ui ui(session);
    const std::unique_ptr<TextureUploader> textures = make_gl_textures();  // gl_colormap.cpp: the shader, else the CPU
    ui.textures = textures.get();
    Preferences applied = session.preferences();
    apply_theme(applied);
    ui.fonts = build_fonts(applied.font_size * applied.ui_scale);
    if (!ui.fonts.unicode_ok) session.add_notice(tr(session.lang(), msg::gui_notice_no_fonts));
    ui.course_width = applied.course_width;
    ui.statement_width = applied.statement_width;
    ui.editor_fraction = applied.editor_fraction;
    ui.kernel_editor_fraction = applied.kernel_editor_fraction;
    apply_options(ui, session, opt);

    int frame = 0, frames_after_ready = 0, exit_code = 0, trimmed_generation = session.result_generation();
    std::string dumped_items;
    IdleWatch idle;
    while (!glfwWindowShouldClose(window) && !ui.quit_requested) {
        if (!wait_for_work(session, opt, idle)) continue;
        feed_input(window, ui.editor.active);
        follow_preferences(ui, applied, session.preferences());
        render_frame(ui, window);
        dump_items(ui, dumped_items);
        if (!scripted_step(ui, window, opt, frames_after_ready)) exit_code = 2;
        glfwSwapBuffers(window);
        return_freed_memory(session, trimmed_generation);
        if (frame++ == 0 && opt.timing)
            std::fprintf(stderr, "first frame after %.0f ms\n",
                         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - launched).count());
    }
    save_layout(ui, session);
    close_window(window);
    return exit_code;
}

}  // namespace attnlab::gui
