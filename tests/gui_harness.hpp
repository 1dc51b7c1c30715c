#pragma once
// A headless GUI for the GUI suites: the real panels drawn by Dear ImGui with
// no platform or renderer backend, input simulated the 1.86 way
// (io.MousePos/MouseDown, io.KeysDown with GLFW key codes, io.KeyCtrl),
// assertions on the Session's state and the Ui's recorded widget rects —
// never on pixels. Every harness has its own ATTNLAB_HOME.
#include <stdlib.h>

#include <cfloat>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <utility>

#include <doctest/doctest.h>

#include "fonts.hpp"
#include "test_support.hpp"
#include "ui.hpp"

namespace attnlab::testing {

// GLFW key codes: what the app's backend uses as ImGui key indices.
constexpr int kKeyTab = 258, kKeyLeft = 263, kKeyRight = 262, kKeyUp = 265, kKeyDown = 264, kKeyPageUp = 266,
              kKeyPageDown = 267, kKeyHome = 268, kKeyEnd = 269, kKeyInsert = 260, kKeyDelete = 261, kKeyBackspace = 259,
              kKeySpace = 32, kKeyEnter = 257, kKeyEscape = 256, kKeyPadEnter = 335, kKeyA = 65, kKeyC = 67, kKeyV = 86,
              kKeyX = 88, kKeyY = 89, kKeyZ = 90, kKeyS = 83, kKeyH = 72, kKeyL = 76, kKeyF1 = 290;

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    REQUIRE_MESSAGE(in.good(), "cannot read " << p);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A private ATTNLAB_HOME; language and course variables cleared so English and
// the course given explicitly are what the session sees.
struct TempHome {
    TempDir tmp{"gui"};
    std::filesystem::path dir = tmp.path();
    TempHome() {
        setenv("ATTNLAB_HOME", dir.c_str(), 1);
        for (const char* var : {"ATTNLAB_LANG", "LC_ALL", "LC_MESSAGES", "ATTNLAB_COURSE"}) unsetenv(var);
        setenv("LANG", "C.UTF-8", 1);
    }
    TempHome(const TempHome&) = delete;
    TempHome& operator=(const TempHome&) = delete;
};

// Session options for a course; the paths come from the environment, so
// ATTNLAB_HOME must already be set.
inline Session::Options course_options(const std::filesystem::path& course_dir) {
    Session::Options o;
    o.course_dir = course_dir;
    return o;
}

struct HarnessConfig {
    std::filesystem::path course_dir;
    std::string exercise;                      // opened before the first frame
    ImVec2 display_size = ImVec2(1400, 860);
    std::function<void(gui::Ui&)> setup = {};  // runs on the Ui before the exercise opens
};

// One headless GUI: session + Ui + an ImGui context of its own.
struct Harness {
    TempHome home;  // first: the session reads ATTNLAB_HOME when constructed
    Session session;
    gui::Ui ui;
    ImGuiContext* ctx = nullptr;

    explicit Harness(const HarnessConfig& config) : session(course_options(config.course_dir)), ui(session) {
        IMGUI_CHECKVERSION();
        ctx = ImGui::CreateContext();
        ImGui::SetCurrentContext(ctx);
        ImGuiIO& io = ImGui::GetIO();
        io.IniFilename = nullptr;
        io.LogFilename = nullptr;
        io.DisplaySize = config.display_size;
        io.DeltaTime = 1.0f / 60.0f;
        const std::pair<ImGuiKey_, int> keymap[] = {
            {ImGuiKey_Tab, kKeyTab},         {ImGuiKey_LeftArrow, kKeyLeft},   {ImGuiKey_RightArrow, kKeyRight},
            {ImGuiKey_UpArrow, kKeyUp},      {ImGuiKey_DownArrow, kKeyDown},   {ImGuiKey_PageUp, kKeyPageUp},
            {ImGuiKey_PageDown, kKeyPageDown}, {ImGuiKey_Home, kKeyHome},      {ImGuiKey_End, kKeyEnd},
            {ImGuiKey_Insert, kKeyInsert},   {ImGuiKey_Delete, kKeyDelete},    {ImGuiKey_Backspace, kKeyBackspace},
            {ImGuiKey_Space, kKeySpace},     {ImGuiKey_Enter, kKeyEnter},      {ImGuiKey_Escape, kKeyEscape},
            {ImGuiKey_KeyPadEnter, kKeyPadEnter}, {ImGuiKey_A, kKeyA},         {ImGuiKey_C, kKeyC},
            {ImGuiKey_V, kKeyV},             {ImGuiKey_X, kKeyX},              {ImGuiKey_Y, kKeyY},
            {ImGuiKey_Z, kKeyZ},
        };
        for (const auto& [k, code] : keymap) io.KeyMap[k] = code;
        io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
        ui.fonts = gui::build_fonts(16);
        unsigned char* pixels = nullptr;
        int w = 0, h = 0;
        io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
        REQUIRE(pixels != nullptr);
        if (config.setup) config.setup(ui);
        REQUIRE_MESSAGE(session.course_loaded(), session.course_error());
        REQUIRE(session.open(config.exercise));
        frames(2);
    }
    ~Harness() { ImGui::DestroyContext(ctx); }
    Harness(const Harness&) = delete;
    Harness& operator=(const Harness&) = delete;

    ImGuiIO& io() { return ImGui::GetIO(); }

    void frame() {
        ImGui::NewFrame();
        ImGui::PushFont(ui.fonts.ui);
        gui::draw_frame(ui);
        ImGui::PopFont();
        ImGui::Render();
    }
    void frames(int n) {
        for (int i = 0; i < n; ++i) frame();
    }

    bool has(const std::string& name) const { return ui.items.count(name) > 0; }

    // Hover, press, release over the centre of a named widget, then move away.
    void click(const std::string& name) { click_at(name, 0.5f, 0.5f); }
    // The same at a point of the widget given as fractions of its width and height.
    void click_at(const std::string& name, float fx, float fy) {
        REQUIRE_MESSAGE(has(name), "no widget named " << name << " in the last frame");
        const ImRect r = ui.items.at(name);
        REQUIRE(r.GetWidth() > 0);
        REQUIRE(r.GetHeight() > 0);
        io().MousePos = ImVec2(r.Min.x + fx * r.GetWidth(), r.Min.y + fy * r.GetHeight());
        frame();
        io().MouseDown[0] = true;
        frame();
        io().MouseDown[0] = false;
        frame();
        io().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
        frame();
    }

    // One press and release of a key, with or without Ctrl.
    void key(int code, bool ctrl = false) {
        io().KeyCtrl = ctrl;
        io().KeysDown[code] = true;
        frame();
        io().KeysDown[code] = false;
        frame();
        io().KeyCtrl = false;
        frame();
    }

    // Frames (10 ms apart) until pred holds; false after the timeout.
    bool wait_until(const std::function<bool()>& pred, double timeout_s = 60.0) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
        while (std::chrono::steady_clock::now() < until) {
            frame();
            if (pred()) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return false;
    }
    // Frames until the session has looked at the file on disk `n` more times:
    // what a test waits for after changing the file behind the session's back.
    // (The timeout only guards against a hang; it is not a speed requirement.)
    bool wait_disk_checks(int n = 1, double timeout_s = 120.0) {
        const int target = session.disk_checks() + n;
        return wait_until([&] { return session.disk_checks() >= target; }, timeout_s);
    }
    // Frames until an autosave would have been due: the delay has passed since
    // the last edit and the session has looked at the disk once more since.
    bool wait_past_autosave() {
        run_for(std::chrono::duration<double>(Session::kAutosaveDelay).count() + 0.1);
        return wait_disk_checks(1);
    }
    // Frames for at least `s` seconds.
    void run_for(double s) {
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(s);
        while (std::chrono::steady_clock::now() < until) {
            frame();
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }
    // Frames until a check has finished with a result; false after the timeout.
    bool wait_result(double timeout_s = 60.0) {
        return wait_until([&] { return !session.checking() && session.last_result() != nullptr; }, timeout_s);
    }

    // The editor's text replaced, as if typed.
    void set_buffer(const std::string& text) {
        session.buffer() = text;
        session.mark_edited();
    }
};

}  // namespace attnlab::testing
