#pragma once
// Drives attnlab's real window as a person would, for the suites that run
// under Xvfb (test_gui_window): the attnlab program started with its own
// ATTNLAB_HOME, keys and clicks sent through the X server's XTest extension
// (so they take the whole path: X, GLFW's callbacks, the window's input
// queue, Dear ImGui), and the window's widget rectangles and state read from
// the file it writes for scripted drivers (ATTNLAB_GUI_ITEMS).
//
// Nothing here sleeps to synchronise: a step waits for what the window says
// (a widget on screen, a save counted), with a generous limit that only
// guards against a hang. Typing may be paced (type(text, gap)): that is the
// input being tested, not a wait.
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/XKBlib.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#undef None  // X11's macros clash with attnlab's and doctest's names
#undef Status
#undef Bool

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <doctest/doctest.h>

#include "test_support.hpp"

extern char** environ;

namespace attnlab::testing {

inline std::optional<std::string> read_text(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct Rect {
    int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

struct WindowOptions {
    WindowOptions(std::string id) : exercise(std::move(id)) {}  // NOLINT: {"causal-mhsa"} reads best
    std::string exercise;
    std::string lang = "en";
    int width = 1280, height = 800;
    std::string settings_json = R"({"autosave": false})";  // saves come from the test's own keys
    std::vector<std::string> extra_args;
};

class AttnlabWindow {
public:
    // Starts attnlab on `options.exercise` and waits for its editor on screen.
    explicit AttnlabWindow(WindowOptions options) : options_(std::move(options)) {
        namespace fs = std::filesystem;
        fs::create_directories(home_.path() / "config");
        std::ofstream(home_.path() / "config" / "settings.json") << options_.settings_json;
        items_ = home_.path() / "items.txt";
        display_ = XOpenDisplay(nullptr);
        REQUIRE_MESSAGE(display_ != nullptr, "no X display (run under xvfb-run)");
        int event_base = 0, error_base = 0, major = 0, minor = 0;
        REQUIRE_MESSAGE(XTestQueryExtension(display_, &event_base, &error_base, &major, &minor), "the X server has no XTest");
        for (const std::string& a : options_.extra_args) quits_by_itself_ |= a == "--quit-after";
        start();
        REQUIRE_MESSAGE(wait_for([&] { return has("editor_view"); }), "the window never showed its editor");
        if (!quits_by_itself_) find_window();
    }
    ~AttnlabWindow() {
        if (pid_ > 0 && alive()) {
            ::kill(pid_, SIGTERM);
            int status = 0;
            ::waitpid(pid_, &status, 0);
        }
        if (display_) XCloseDisplay(display_);
    }
    AttnlabWindow(const AttnlabWindow&) = delete;
    AttnlabWindow& operator=(const AttnlabWindow&) = delete;

    std::filesystem::path home() const { return home_.path(); }
    std::filesystem::path learner_file(const std::string& extension = ".cpp") const {
        return home_.path() / "workspace" / (options_.exercise + extension);
    }

    // ---- what the window says ----------------------------------------------------
    // The widgets of its last frame, by name.
    std::map<std::string, Rect> items() const {
        std::map<std::string, Rect> out;
        std::istringstream in(read_text(items_).value_or(""));
        std::string name;
        Rect r;
        while (in >> name >> r.x0 >> r.y0 >> r.x1 >> r.y1) out[name] = r;
        return out;
    }
    bool has(const std::string& name) const { return items().count(name) > 0; }
    // The number after a "state:NAME:N" entry, -1 when there is none.
    int state(const std::string& name) const {
        const std::string prefix = "state:" + name + ":";
        for (const auto& [item, r] : items())
            if (item.rfind(prefix, 0) == 0) return std::atoi(item.c_str() + prefix.size());
        return -1;
    }
    int saves() const { return state("saves"); }
    // Whether attnlab is still running (a --quit-after run ends by itself).
    bool running() const { return alive(); }
    // Polls until `pred` holds; false after the limit (a hang, not a speed requirement).
    bool wait_for(const std::function<bool()>& pred, double limit_s = 180.0) const {
        const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
        while (std::chrono::steady_clock::now() < until) {
            if (pred()) return true;
            REQUIRE_MESSAGE((alive() || quits_by_itself_), "attnlab exited");
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return false;
    }
    // Ctrl+S, then the file once the window has counted that save.
    std::string save_and_read(const std::string& extension = ".cpp") {
        const int before = saves();
        key(XK_s, ControlMask);
        REQUIRE_MESSAGE(wait_for([&] { return saves() > before; }), "Ctrl+S was never handled");
        return read_text(learner_file(extension)).value_or("<unreadable>");
    }

    // ---- input ----------------------------------------------------------------------
    // A left click at a point of a widget given as fractions of its size,
    // once the widget has settled (a new window or table lays itself out
    // over its first frames).
    void click(const std::string& name, double fx = 0.5, double fy = 0.5) {
        const Rect r = settled(name);
        move_to(r.x0 + static_cast<int>((r.x1 - r.x0) * fx), r.y0 + static_cast<int>((r.y1 - r.y0) * fy));
        XTestFakeButtonEvent(display_, 1, True, CurrentTime);
        XTestFakeButtonEvent(display_, 1, False, CurrentTime);
        XFlush(display_);
    }
    // One key with modifiers held (ControlMask, ShiftMask), pressed and released.
    void key(KeySym sym, unsigned modifiers = 0) {
        std::vector<KeyCode> held;
        if (modifiers & ControlMask) held.push_back(XKeysymToKeycode(display_, XK_Control_L));
        if (modifiers & ShiftMask) held.push_back(XKeysymToKeycode(display_, XK_Shift_L));
        for (KeyCode k : held) press(k);
        const KeyCode code = XKeysymToKeycode(display_, sym);
        REQUIRE(code != 0);
        press(code);
        release(code);
        for (auto it = held.rbegin(); it != held.rend(); ++it) release(*it);
        XFlush(display_);
    }
    // Types ASCII text ('\n' as Return) as a keyboard would, `gap` between characters.
    void type(const std::string& text, std::chrono::microseconds gap = std::chrono::microseconds(0)) {
        const KeyCode shift_key = XKeysymToKeycode(display_, XK_Shift_L);
        for (char c : text) {
            const KeySym sym = c == '\n' ? XK_Return : static_cast<KeySym>(static_cast<unsigned char>(c));
            const KeyCode code = XKeysymToKeycode(display_, sym);
            REQUIRE_MESSAGE(code != 0, "no key types '" << c << "'");
            const bool shift = XkbKeycodeToKeysym(display_, code, 0, 0) != sym;
            if (shift) press(shift_key);
            press(code);
            release(code);
            if (shift) release(shift_key);
            XFlush(display_);
            if (gap.count() > 0) std::this_thread::sleep_for(gap);
        }
    }

private:
    // Where a widget is once two frames agree: the pointer moves over it
    // (which wakes the window to draw), and its place is read again after
    // the window has drawn two more frames, until it stays put.
    Rect settled(const std::string& name) {
        REQUIRE_MESSAGE(wait_for([&] { return has(name); }), "no widget " << name << " on screen");
        Rect last = items().at(name);
        for (int attempt = 0; attempt < 50; ++attempt) {
            const int frame = state("frame");
            move_to((last.x0 + last.x1) / 2 + attempt % 2, (last.y0 + last.y1) / 2);
            REQUIRE_MESSAGE(wait_for([&] { return state("frame") >= frame + 2 && has(name); }), "the window stopped drawing");
            const Rect now = items().at(name);
            if (now.x0 == last.x0 && now.y0 == last.y0 && now.x1 == last.x1 && now.y1 == last.y1) return now;
            last = now;
        }
        FAIL("widget " << name << " never settled");
        return last;
    }

    // GLFW drops a press of a key whose last press has the same X timestamp
    // (it filters the input method's duplicates by time, in milliseconds): no
    // hand presses one key twice within a millisecond, so neither does this.
    // XTest's delay holds each press back a millisecond in the server itself,
    // where the timestamp is taken, whatever the load.
    void press(KeyCode code) { XTestFakeKeyEvent(display_, code, True, 1); }
    void release(KeyCode code) { XTestFakeKeyEvent(display_, code, False, CurrentTime); }

    void start() {
        std::vector<std::string> args = {ATTNLAB_CLI_PATH, "--lang", options_.lang, "--exercise", options_.exercise,
                                         "--size", std::to_string(options_.width) + "x" + std::to_string(options_.height)};
        args.insert(args.end(), options_.extra_args.begin(), options_.extra_args.end());
        std::vector<char*> argv;
        for (std::string& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        std::vector<std::string> env_strings = {"ATTNLAB_HOME=" + home_.path().string(), "ATTNLAB_GUI_ITEMS=" + items_.string()};
        for (char** e = environ; *e; ++e) {
            const std::string var = *e;
            if (var.rfind("ATTNLAB_", 0) != 0) env_strings.push_back(var);  // the test's own ATTNLAB_* stay out
        }
        std::vector<char*> envp;
        for (std::string& e : env_strings) envp.push_back(e.data());
        envp.push_back(nullptr);
        REQUIRE(posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), envp.data()) == 0);
    }
    bool alive() const {
        if (pid_ <= 0) return false;
        if (exited_) return false;
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) exited_ = true;
        return !exited_;
    }

    // attnlab's top-level window (the one whose _NET_WM_PID is ours) and where it is on the screen.
    void find_window() {
        const Atom pid_atom = XInternAtom(display_, "_NET_WM_PID", True);
        REQUIRE(pid_atom != 0);
        Window root_return = 0, parent = 0, *children = nullptr;
        unsigned count = 0;
        REQUIRE(wait_for([&] {
            XQueryTree(display_, DefaultRootWindow(display_), &root_return, &parent, &children, &count);
            for (unsigned i = 0; i < count && !window_; ++i) {
                Atom type = 0;
                int format = 0;
                unsigned long items = 0, after = 0;
                unsigned char* data = nullptr;
                if (XGetWindowProperty(display_, children[i], pid_atom, 0, 1, False, XA_CARDINAL, &type, &format, &items, &after, &data) == Success &&
                    data && items == 1 && static_cast<pid_t>(*reinterpret_cast<unsigned long*>(data)) == pid_)
                    window_ = children[i];
                if (data) XFree(data);
            }
            if (children) XFree(children);
            return window_ != 0;
        }));
        Window child = 0;
        XTranslateCoordinates(display_, window_, DefaultRootWindow(display_), 0, 0, &origin_x_, &origin_y_, &child);
    }
    void move_to(int x, int y) {
        XTestFakeMotionEvent(display_, -1, origin_x_ + x, origin_y_ + y, CurrentTime);
        XSetInputFocus(display_, window_, RevertToParent, CurrentTime);  // no window manager under Xvfb: keys go where focus is
        XFlush(display_);
    }

    WindowOptions options_;
    TempDir home_{"window"};
    std::filesystem::path items_;
    Display* display_ = nullptr;
    pid_t pid_ = -1;
    mutable bool exited_ = false;
    bool quits_by_itself_ = false;
    Window window_ = 0;
    int origin_x_ = 0, origin_y_ = 0;
};

}  // namespace attnlab::testing
