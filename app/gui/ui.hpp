#pragma once
// Shared state of the GUI's panels: the session they read and command, fonts,
// which overlays are open, and where named widgets were drawn (so headless
// tests can click them). Panels are free functions, one source file each;
// none holds exercise logic — that lives in the core's Session.
#include <map>
#include <string>

#include <imgui.h>
#include <imgui_internal.h>

#include "attnlab/core/views/kernel_views.hpp"
#include "attnlab/core/text/messages.hpp"
#include "attnlab/core/desk/session.hpp"
#include "attnlab/core/views/visuals.hpp"

#include <future>
#include <optional>
#include <vector>

namespace attnlab::gui {

struct Fonts {
    ImFont* ui = nullptr;
    ImFont* bold = nullptr;
    ImFont* mono = nullptr;
    ImFont* heading = nullptr;
    bool unicode_ok = false;  // DejaVu found: √, ·, ×, ≤, → render
};

// The editor widget's own state between frames (Tab, jumps, cursor, undo).
struct EditorState {
    int tab_width = 4;
    int column = 0;                // cursor column (bytes from line start), as of the last callback
    int pending_jump_offset = -1;  // byte offset to put the cursor at
    int cursor = 0;                // byte offset of the cursor, as of the last callback
    bool cursor_moved = false;
    bool active = false;           // the widget had the keyboard last frame
    // The session's buffer changed under the active widget (undo, redo): the
    // widget takes this text in its next callback instead of writing its own copy back.
    const std::string* replace_with = nullptr;
};

// Turns RGBA pixels into something ImGui::Image can draw. The window uses
// OpenGL textures; headless tests and benchmarks count uploads instead.
struct TextureUploader {
    virtual ~TextureUploader() = default;
    virtual ImTextureID upload(int width, int height, const uint8_t* rgba) = 0;
    virtual void release(ImTextureID id) = 0;
    // Heatmaps coloured on the GPU: a head's values go up as they are (a float
    // texture, and its mask) and a fragment shader applies the colour map, so
    // new data costs no CPU pass over the cells. False where there is no such
    // shader (it failed to compile, or a headless uploader): then heatmaps are
    // rasterised on the CPU and upload() takes the pixels.
    virtual bool colors_on_gpu() const { return false; }
    virtual ImTextureID upload_values(const HeadMatrix&) { return ImTextureID{}; }
    // Draws a texture from upload_values() with `scale`'s colour map.
    virtual void image(ImTextureID, ImVec2 /*size*/, const ColorScale&) {}
};

// Per-head heatmaps of one stage of one case, with textures uploaded once per
// (check result, case, stage) — never per frame.
struct HeatmapView {
    int case_index = -1;       // -1: the failing case, else the first
    std::string stage;         // "" = the first available
    int built_generation = -1;
    int built_case = -1;
    std::string built_stage;
    const CaseOutcome* built_from = nullptr;  // the set reads this case's tensors in place
    std::optional<HeatmapSet> set;
    std::vector<ImTextureID> learner, reference, difference, cuda;  // one slot per head, made when first shown
    int enlarged = -1;         // head shown large, -1 none
    int uploads = 0;           // textures uploaded so far (tests, benchmark)
    std::string last_export;   // path of the last PNG written
};

struct LayoutView {
    bool initialised = false;
    int batch = 0, tokens = 4, d_model = 8, heads = 2;
};

struct ExperimentsView {
    int preset = 0;  // index into preset_configs(); the last entry is "custom"
    ModelConfig custom{"custom", 512, 8, 8, false, ""};
    int tokens = 256;  // the measurement itself is the session's (Session::measure_projections)
};

// The Kernel tab: which source file is shown and which block of the launch
// is selected (-1: none yet).
struct KernelView {
    int file = -1;             // index into kernel_source_files(); -1: the launch's own file
    int launch = -1;           // index into the case's launches; -1: the attention launch (else the first)
    long selected_block = -1;  // linear block index in the grid
};

// The Kernel tab of a CUDA exercise: the learner's own launches of the case
// in view (panel_learner_kernels*.cpp). Selections are -1 until chosen: then the
// faulted launch / block / thread, else the first.
struct CudaKernelView {
    int launch = -1;     // index into CaseOutcome::kernels.launches
    long block = -1;     // linear block id
    long thread = -1;    // linear thread id in the block
    int request = -1;    // index into `requests`
    long grid_columns = 1;  // cells per row of the drawn grid (a one-row grid wraps; tests click cells)
    long grid_scrolled_to = -1;  // the block a large grid's compact map last scrolled to
    long unknown_marked = 0;     // cells drawn as "?" (not recorded) in the last frame's grid
    // Derived from the trace, rebuilt when what they depend on changes.
    int built_generation = -1, built_case = -1, built_launch = -1, built_recordings = -1;
    // The selected launch with the blocks recorded after the check spliced in
    // (Session::recorded_blocks); empty when none of them is of this launch.
    std::optional<emu::LaunchReport> spliced;
    long built_block = -1, built_thread = -1;
    std::vector<KernelBuffer> buffers;
    std::vector<BlockFootprint> blocks;
    std::vector<ThreadActivity> threads;        // of the selected block
    std::vector<BufferTouches> block_touches;   // of the selected block
    std::vector<BufferTouches> thread_touches;  // of the selected thread
    // Per buffer ("g:out", "s:shared"), per element: 1 read / 2 written by the
    // thread, 4 read / 8 written by the block (what the layouts colour).
    std::map<std::string, std::map<int64_t, int>> marks;
    std::vector<WarpRequest> requests;          // of the selected block
};

enum class BottomTab { Results = 0, Heatmaps, Stages, Memory, Experiments, Kernel };

struct Ui {
    explicit Ui(Session& s) : session(s) {}
    Session& session;
    Fonts fonts;

    bool show_settings = false;
    bool show_help = false;
    bool show_history = false;
    bool confirm_reset = false;
    std::string topic_filter;        // "" = all topics
    int statement_tab = 0;           // 0 statement, 1 hints, 2 solution (what is shown)
    int select_tab = -1;             // >= 0: switch the statement panel to this tab next frame
    int jump_to_line = 0;            // > 0: the editor moves its cursor there next frame
    int editor_cursor_line = 1;      // where the editor's cursor is (1-based)
    EditorState editor;
    bool focus_editor = false;
    bool fonts_dirty = false;           // font size changed: rebuild the atlas before the next frame
    bool quit_requested = false;
    int frames_drawn = 0;
    float course_width = 230.0f;
    float statement_width = 420.0f;
    float editor_fraction = 0.6f;    // the editor's share of the centre column (remembered in settings)
    float kernel_editor_fraction = 0.3f;  // its share while a CUDA exercise's Kernel tab shows (remembered too)
    float results_height = -1.0f;    // >= 0: the results pane in pixels instead (tests); dragging clears it

    TextureUploader* textures = nullptr;
    HeatmapView heatmaps;
    LayoutView layout;
    ExperimentsView experiments;
    KernelView kernel;
    CudaKernelView cuda_kernel;
    BottomTab bottom_tab = BottomTab::Results;
    int roofline_gpu = -1;  // the roofline's GPU (gpu_models() index); -1: the architecture selector's
    int scroll_to_roofline = 0;
    int scroll_to_versions = 0;  // --view versions: the same for the beat-your-v1 section
    std::string version_choice;  // Beat your v1: the earlier exercise picked (""; the first with the learner's work)  // --view roofline: frames left to scroll the Kernel tab to it (once it has figures)
    // Per-exercise view state: the exercise the panels last showed, and the
    // case each exercise's views had chosen.
    std::string shown_exercise;
    std::map<std::string, int> case_by_exercise;
    int select_bottom_tab = -1;      // >= 0: switch the bottom tab bar next frame

    // Widget rectangles by name, refreshed every frame (for tests and for
    // scripted screenshots; cheap).
    std::map<std::string, ImRect> items;
    void note_item(const std::string& name) { items[name] = ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax()); }

    const std::string& t(MessageKey key) const { return tr(session.lang(), key); }
    std::string t(MessageKey key, const std::map<std::string, std::string>& args) const { return tr(session.lang(), key, args); }
};

// The whole frame: menu bar, panels, overlays, shortcuts.
void draw_frame(Ui& ui);

// Panels (one file each).
void draw_course_panel(Ui& ui);
void draw_statement_panel(Ui& ui);
void draw_editor_panel(Ui& ui);
void draw_results_panel(Ui& ui);
void draw_settings_window(Ui& ui);
void draw_history_window(Ui& ui);  // the versions of the open file (panel_history.cpp)
void draw_help_overlay(Ui& ui);
void draw_heatmaps_panel(Ui& ui);
void draw_stages_panel(Ui& ui);
void draw_layout_panel(Ui& ui);
void draw_experiments_panel(Ui& ui);
// The Kernel tab: the learner's own kernels on exercises where they write
// them (panel_learner_kernels.cpp), else attnlab's reference kernel
// (panel_reference_kernel.cpp).
void draw_kernel_tab(Ui& ui);
// The learner's own kernels (called by draw_kernel_tab).
void draw_learner_kernels_panel(Ui& ui);
void draw_roofline(Ui& ui, const CheckResult* result);  // panel_roofline.cpp: the Kernel view's roofline (an estimate)
size_t shown_gpu_index(const Ui& ui);                   // panel_roofline.cpp: the GPU (gpu_models() index) the roofline shows
void draw_versions(Ui& ui, const CheckResult* result);  // panel_versions.cpp: beat your v1, below the roofline
// The heatmap grid of one case (used by the panel and the frame benchmark).
void draw_heatmap_grid(Ui& ui, const CaseOutcome& c, int generation, const std::vector<std::string>& dims);
// The case the views show: the chosen one, else the failing one, else the first.
const CaseOutcome* view_case(const Ui& ui);
// What a view says when there is no result to show: a check is running, or run one.
void draw_no_result(Ui& ui);
// Under a verdict or a view that names a stage: the line of the learner's
// tensor for it and a way to the Stages view when they have one (recorded
// automatically, or probed), else how to name it with probe(). There is no
// "insert probe" button: the recorder captures each tensor while it holds
// its stage (a probe inserted by guesswork once landed after the learner's
// loops had turned the scores into the weights).
void draw_stage_link(Ui& ui, const CaseOutcome& c, const std::string& stage);
// Go to the next exercise in course order (Alt+Down).
void open_next_exercise(Ui& ui);
// Shows the History window, its list read afresh.
void open_history(Ui& ui);
// Tooltips wrap at a width that fits the window on either side of the pointer
// (ImGui flips a tooltip to the pointer's other side; one wider than that side
// would be clipped at the screen edge).
float tooltip_wrap_width();
// Tooltips wait until the pointer has moved once: a scripted screenshot's
// pointer rests wherever the display put it and would leave one in the picture.
bool pointer_moved();
void wrapped_tooltip(const std::string& text);

// Colours shared by panels.
ImVec4 verdict_color(Verdict v);
ImVec4 status_color(ExerciseStatus s);

// Keyboard shortcuts handled by draw_frame; listed by the help overlay.
struct Shortcut {
    const char* keys;
    MessageKey action_key;
};
const std::vector<Shortcut>& shortcuts();

}  // namespace attnlab::gui
