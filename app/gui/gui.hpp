#pragma once
// The desktop GUI's entry point, called by `attnlab` with no command.
#include <string>

namespace attnlab::gui {

struct GuiOptions {
    std::string exercise;    // --exercise ID (default: continue where the learner left off)
    std::string course_dir;  // --course DIR
    std::string lang;        // --lang en|id
    bool run = false;        // --run: start a check of the exercise at once
    std::string screenshot;  // --screenshot out.png: write the window to a PNG, then quit
    int quit_after = -1;     // --quit-after N: quit N frames after start (after the check with --run)
    bool timing = false;     // --timing: print when the first frame was on screen
    std::string tab;         // --tab statement|hints|solution
    std::string show;        // --show settings|help|history (for scripted screenshots)
    std::string compare;     // --compare EARLIER: after the check, run the learner's EARLIER kernel beside it (beat your v1)
    std::string view;        // --view results|heatmaps|stages|memory|experiments|kernel|roofline|versions
    int width = 1400;        // --size WxH
    int height = 860;
};

// Returns the process exit code. Without a display it says so and returns 2.
int run_gui(const GuiOptions& options);

bool display_available(std::string& reason);

}  // namespace attnlab::gui
