// The desktop window: GLFW + OpenGL 3 glue around Dear ImGui's frame loop
// (after imgui's example_glfw_opengl3). Everything the learner sees is drawn
// by draw_frame(); this file only owns the window, fonts, theme, the
// scripted screenshot mode and the first-frame timing.
#include "gui.hpp"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <stb_image_write.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <vector>

#include "fonts.hpp"
#include "ui.hpp"

namespace attnlab::gui {

namespace {

std::string g_glfw_error;
void on_glfw_error(int, const char* description) { g_glfw_error = description ? description : "unknown error"; }

void apply_theme(const Preferences& p) {
    ImGuiStyle fresh;
    ImGui::GetStyle() = fresh;
    if (p.dark_theme) ImGui::StyleColorsDark();
    else ImGui::StyleColorsLight();
    ImGuiStyle& st = ImGui::GetStyle();
    st.WindowRounding = 4;
    st.FrameRounding = 3;
    st.ChildRounding = 4;
    st.ScaleAllSizes(p.ui_scale);
}

// Heatmap textures: nearest filtering keeps every (query, key) cell crisp.
struct GlTextures : TextureUploader {
    ImTextureID upload(int width, int height, const uint8_t* rgba) override {
        GLuint id = 0;
        glGenTextures(1, &id);
        glBindTexture(GL_TEXTURE_2D, id);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
        return reinterpret_cast<ImTextureID>(static_cast<intptr_t>(id));
    }
    void release(ImTextureID id) override {
        GLuint t = static_cast<GLuint>(reinterpret_cast<intptr_t>(id));
        glDeleteTextures(1, &t);
    }
};

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

int run_gui(const GuiOptions& opt) {
    const auto launched = std::chrono::steady_clock::now();
    Session::Options so;
    so.course_dir = opt.course_dir;
    so.lang_flag = opt.lang;
    Session session(so);

    std::string reason;
    glfwSetErrorCallback(on_glfw_error);
    if (!display_available(reason) || !glfwInit()) {
        if (reason.empty()) reason = g_glfw_error;
        std::cerr << tr(session.lang(), "gui.no_display", {{"reason", reason}}) << "\n";
        return 2;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    GLFWwindow* window = glfwCreateWindow(opt.width, opt.height, "attnlab", nullptr, nullptr);
    if (!window) {
        std::cerr << tr(session.lang(), "gui.no_display", {{"reason", g_glfw_error}}) << "\n";
        glfwTerminate();
        return 2;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(opt.screenshot.empty() ? 1 : 0);

    IMGUI_CHECKVERSION();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // the layout lives in settings.json with the other preferences
    ImGui::LoadIniSettingsFromMemory(session.preferences().layout_ini.c_str());
    ImGui_ImplGlfw_InitForOpenGL(window, true);
    ImGui_ImplOpenGL3_Init("#version 130");

    Ui ui(session);
    GlTextures textures;
    ui.textures = &textures;
    Preferences applied = session.preferences();
    apply_theme(applied);
    ui.fonts = build_fonts(applied.font_size * applied.ui_scale);
    if (!ui.fonts.unicode_ok) session.add_notice("DejaVu fonts not found (Debian: fonts-dejavu-core): symbols such as √ and → may show as '?'");
    ui.course_width = applied.course_width;
    ui.statement_width = applied.statement_width;
    ui.results_height = applied.results_height;
    if (!session.course_loaded()) std::cerr << "attnlab: " << session.course_error() << "\n";

    const std::string first = opt.exercise.empty() ? session.continue_id() : opt.exercise;
    if (!first.empty() && !session.open(first)) {
        std::cerr << "attnlab: " << tr(session.lang(), "cli.unknown_exercise", {{"id", first}}) << "\n";
        session.open(session.continue_id());
    }
    if (opt.run) session.run_check();
    if (opt.tab == "hints") ui.select_tab = 1;
    else if (opt.tab == "solution") ui.select_tab = 2;
    ui.show_settings = opt.show == "settings";
    ui.show_help = opt.show == "help";
    if (opt.view == "heatmaps") ui.select_bottom_tab = static_cast<int>(BottomTab::Heatmaps);
    else if (opt.view == "stages") ui.select_bottom_tab = static_cast<int>(BottomTab::Stages);
    else if (opt.view == "memory") ui.select_bottom_tab = static_cast<int>(BottomTab::Memory);
    else if (opt.view == "experiments") ui.select_bottom_tab = static_cast<int>(BottomTab::Experiments);
    else if (opt.view == "kernel") ui.select_bottom_tab = static_cast<int>(BottomTab::Kernel);

    int frame = 0;
    int frames_after_ready = 0;
    int exit_code = 0;
    while (!glfwWindowShouldClose(window) && !ui.quit_requested) {
        // Idle politely: wake at least 10×/s for progress and file changes.
        if (opt.screenshot.empty()) glfwWaitEventsTimeout(session.checking() ? 0.05 : 0.25);
        else glfwPollEvents();

        const Preferences& p = session.preferences();
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

        if (!opt.screenshot.empty() || opt.quit_after >= 0) {
            const bool ready = !opt.run || (!session.checking() && session.last_result());
            if (ready && ++frames_after_ready > std::max(opt.quit_after, 1)) {
                if (!opt.screenshot.empty() && !write_screenshot(window, opt.screenshot)) {
                    std::cerr << "attnlab: cannot write " << opt.screenshot << "\n";
                    exit_code = 2;
                }
                ui.quit_requested = true;
            }
        }
        glfwSwapBuffers(window);
        if (frame++ == 0 && opt.timing)
            std::fprintf(stderr, "first frame after %.0f ms\n",
                         std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - launched).count());
    }

    // Remember the layout with the other preferences.
    size_t ini_size = 0;
    const char* ini = ImGui::SaveIniSettingsToMemory(&ini_size);
    Preferences p = session.preferences();
    p.layout_ini.assign(ini, ini_size);
    p.course_width = ui.course_width;
    p.statement_width = ui.statement_width;
    p.results_height = ui.results_height;
    session.set_preferences(p);

    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplGlfw_Shutdown();
    ImGui::DestroyContext();
    glfwDestroyWindow(window);
    glfwTerminate();
    return exit_code;
}

}  // namespace attnlab::gui
