// attnlab's real window under Xvfb, driven as a person would (window_driver.hpp):
// keys and clicks through the X server, the file on disk read back after the
// window says it saved. The learner's text is never lost: Esc keeps it, undo
// reaches a select-all deletion, and typing faster than the window draws
// still puts every character in the file.
#include <doctest/doctest.h>

#define STB_IMAGE_IMPLEMENTATION
#include <stb_image.h>

#include <cmath>

#include "window_driver.hpp"

using namespace attnlab::testing;

namespace {

// Text a learner could type: words, punctuation, capitals (Shift), digits and
// line breaks, `n` characters, the same every run.
std::string typed_text(size_t n) {
    static const std::string words[] = {"float", "acc", "=", "0.0f;", "for", "(int", "j", "<=", "t;", "++j)", "scores(h,", "i,",
                                        "j)", "*=", "Scale;", "// Causal", "mask", "{", "}", "return", "out;", "T", "hd", "-1e9f"};
    std::string text;
    uint32_t state = 12345;
    size_t line = 0;
    while (text.size() < n) {
        state = state * 1664525u + 1013904223u;
        const std::string& w = words[(state >> 16) % std::size(words)];
        text += w;
        line += w.size();
        if (line > 48) {
            text += '\n';
            line = 0;
        } else {
            text += ' ';
            ++line;
        }
    }
    text.resize(n);
    return text;
}

}  // namespace

TEST_CASE("window: Esc after typing keeps the text, in the editor and in the file, and the editor keeps the keyboard") {
    AttnlabWindow w({"causal-mhsa"});
    const std::string before = read_text(w.learner_file()).value();
    w.click("editor_view", 0.5, 0.3);
    w.key(XK_End, ControlMask);
    w.type("\n// typed before Esc");
    w.key(XK_Escape);
    w.type("\n// and after it\n");
    CHECK(w.save_and_read() == before + "\n// typed before Esc\n// and after it\n");
    w.key(XK_Escape);
    w.key(XK_Escape);
    CHECK(w.save_and_read() == before + "\n// typed before Esc\n// and after it\n");
}

TEST_CASE("window: a select-all deletion of a file larger than Dear ImGui's undo is undone and redone") {
    AttnlabWindow w({"causal-mhsa"});
    const std::string before = read_text(w.learner_file()).value();
    REQUIRE(before.size() > 999);  // stb_textedit's undo holds 999 characters
    w.click("editor_view", 0.5, 0.3);
    w.key(XK_End, ControlMask);
    w.type("\n// mine");
    CHECK(w.save_and_read() == before + "\n// mine");
    w.key(XK_a, ControlMask);
    w.key(XK_BackSpace);
    CHECK(w.save_and_read() == "");
    w.key(XK_z, ControlMask);
    CHECK(w.save_and_read() == before + "\n// mine");
    // Further back: the typing (however many steps it made), then nothing more
    // to undo: the file as it was opened.
    for (int i = 0; i < 10; ++i) w.key(XK_z, ControlMask);
    CHECK(w.save_and_read() == before);
    // Forward again, by both redo keys, up to the deletion and no further.
    w.key(XK_z, ControlMask | ShiftMask);
    for (int i = 0; i < 10; ++i) w.key(XK_y, ControlMask);
    CHECK(w.save_and_read() == "");
    w.key(XK_z, ControlMask);
    CHECK(w.save_and_read() == before + "\n// mine");
    w.key(XK_End, ControlMask);
    w.type("x");
    CHECK(w.save_and_read() == before + "\n// minex");  // and typing goes on in the editor
}

TEST_CASE("window: 1,000 characters typed 5 ms apart are all in the file after Ctrl+S, in order") {
    AttnlabWindow w({"causal-mhsa"});
    const std::string before = read_text(w.learner_file()).value();
    const std::string text = typed_text(1000);
    w.click("editor_view", 0.5, 0.3);
    w.key(XK_End, ControlMask);
    w.type(text, std::chrono::milliseconds(5));
    // Ctrl+S at once, while the window may still be taking the keys in.
    const std::string saved = w.save_and_read();
    CHECK(saved.size() == before.size() + text.size());
    CHECK(saved == before + text);
}

TEST_CASE("window: a version is restored from the History window, and Ctrl+Z takes the restore back") {
    AttnlabWindow w({"causal-mhsa"});
    const std::string before = read_text(w.learner_file()).value();
    w.click("editor_view", 0.5, 0.3);
    w.key(XK_End, ControlMask);
    w.type("\n// first try");
    CHECK(w.save_and_read() == before + "\n// first try");  // version 1
    w.type("\n// second try");
    CHECK(w.save_and_read() == before + "\n// first try\n// second try");  // version 2
    w.click("history");
    w.click("history_restore:1");
    CHECK(w.wait_for([&] { return read_text(w.learner_file()) == before + "\n// first try"; }));
    w.key(XK_z, ControlMask);
    CHECK(w.save_and_read() == before + "\n// first try\n// second try");
}

namespace {

// WCAG 2's relative luminance and contrast ratio of two sRGB colours.
double luminance(const unsigned char* p) {
    double l[3];
    for (int i = 0; i < 3; ++i) {
        const double c = p[i] / 255.0;
        l[i] = c <= 0.03928 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
    }
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
}
double contrast(double a, double b) { return (std::max(a, b) + 0.05) / (std::min(a, b) + 0.05); }

// The contrast of the text inside `r` of a screenshot: the commonest colour
// is the background, the pixel farthest from it in luminance is the text's
// own colour (anti-aliased edges lie between the two).
double text_contrast(const unsigned char* rgba, int width, const Rect& r) {
    std::map<uint32_t, int> counts;
    for (int y = r.y0; y < r.y1; ++y)
        for (int x = r.x0; x < r.x1; ++x) {
            const unsigned char* p = rgba + (static_cast<size_t>(y) * width + x) * 4;
            ++counts[p[0] << 16 | p[1] << 8 | p[2]];
        }
    uint32_t bg = 0;
    int most = 0;
    for (const auto& [c, n] : counts)
        if (n > most) most = n, bg = c;
    const unsigned char bg_rgb[3] = {static_cast<unsigned char>(bg >> 16), static_cast<unsigned char>(bg >> 8), static_cast<unsigned char>(bg)};
    double best = 1.0;
    for (const auto& [c, n] : counts) {
        const unsigned char rgb[3] = {static_cast<unsigned char>(c >> 16), static_cast<unsigned char>(c >> 8), static_cast<unsigned char>(c)};
        best = std::max(best, contrast(luminance(rgb), luminance(bg_rgb)));
    }
    return best;
}

}  // namespace

TEST_CASE("window: the \"Not checked yet\" badge is readable (WCAG contrast of at least 4.5:1, sampled from a screenshot)") {
    for (const std::string lang : {"en", "id"}) {
        CAPTURE(lang);
        attnlab::testing::TempDir out{"shot"};
        const std::filesystem::path png = out.path() / "badge.png";
        WindowOptions options("causal-mhsa");
        options.lang = lang;
        options.extra_args = {"--screenshot", png.string(), "--quit-after", "3"};
        AttnlabWindow w(options);
        REQUIRE(w.wait_for([&] { return std::filesystem::exists(png) && w.has("verdict_badge"); }));
        const Rect badge = w.items().at("verdict_badge");
        REQUIRE(w.wait_for([&] { return !w.running(); }));  // the picture is complete once the window has quit
        int width = 0, height = 0, channels = 0;
        unsigned char* rgba = stbi_load(png.c_str(), &width, &height, &channels, 4);
        REQUIRE(rgba != nullptr);
        REQUIRE(badge.x1 <= width);
        REQUIRE(badge.y1 <= height);
        const double ratio = text_contrast(rgba, width, badge);
        stbi_image_free(rgba);
        CAPTURE(ratio);
        CHECK(ratio >= 4.5);
    }
}

TEST_CASE("window: the Kernel tab's block labels are readable on every block's colour (WCAG contrast of at least 4.5:1, sampled from a screenshot)") {
    attnlab::testing::TempDir out{"shot"};
    const std::filesystem::path png = out.path() / "kernel.png";
    WindowOptions options("causal-mhsa");  // the starter: a wrong answer, and the reference kernel's launch for case 1
    options.width = 1920;
    options.height = 1080;
    options.settings_json = R"({"autosave": false, "editor_fraction": 0.2})";
    options.extra_args = {"--run", "--view", "kernel", "--screenshot", png.string(), "--quit-after", "3"};
    AttnlabWindow w(options);
    REQUIRE(w.wait_for([&] { return std::filesystem::exists(png) && w.has("kernel_block:1"); }));
    std::vector<Rect> blocks;
    for (const auto& [name, r] : w.items())
        if (name.rfind("kernel_block:", 0) == 0) blocks.push_back({r.x0 + 3, r.y0 + 3, r.x1 - 3, r.y1 - 3});  // inside the selection's outline
    REQUIRE(w.wait_for([&] { return !w.running(); }));
    int width = 0, height = 0, channels = 0;
    unsigned char* rgba = stbi_load(png.c_str(), &width, &height, &channels, 4);
    REQUIRE(rgba != nullptr);
    REQUIRE(blocks.size() >= 2);  // the selected block and one in its head's plain colour
    for (const Rect& b : blocks) {
        REQUIRE(b.x1 <= width);
        REQUIRE(b.y1 <= height);
        const double ratio = text_contrast(rgba, width, b);
        CAPTURE(b.x0);
        CAPTURE(ratio);
        CHECK(ratio >= 4.5);
    }
    stbi_image_free(rgba);
}
