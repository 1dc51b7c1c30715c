// Kernel tab of a CUDA exercise: the learner's OWN launches of the case in
// view, from the emulator's records. Left: a launch selector, the grid of
// blocks (each labelled with the slice of the output it wrote; the faulted
// one red), the selected block's threads, and the resource panel (NVRTC's
// registers, shared memory, spills and the occupancy of the learner's block
// size, for a chosen architecture). Right: what the selected thread read and
// wrote, drawn over each tensor's layout, then the block's warp requests and,
// for the selected one, its 32 lanes' addresses and the sectors (or banks)
// they touched. All figures come from the core (kernel_views.hpp,
// gpu_resources.hpp); nothing is judged here.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <optional>

#include "attnlab/common/protocol.hpp"
#include "attnlab/core/gpu_resources.hpp"
#include "attnlab/core/number_format.hpp"
#include "attnlab/core/report.hpp"
#include "ui.hpp"

namespace attnlab::gui {

namespace {

using emu::MemorySpace;

void wrapped(const std::string& text);
void disabled_wrapped(const std::string& text);
void mark_cross(ImDrawList* dl, ImVec2 lo, ImVec2 hi);

// A section that collapses: the header names it (the part of the title
// before ": "), the rest of the title (what to do there) is its first line.
// A header too wide for the pane shows its whole title on hover. Returns
// whether the section is open.
bool section(Ui& ui, const std::string& title, const char* id, bool open_by_default = true) {
    ImGui::Spacing();
    const size_t colon = title.find(": ");
    const std::string head = colon == std::string::npos ? title : title.substr(0, colon);
    const std::string rest = colon == std::string::npos ? "" : title.substr(colon + 2);
    const bool open = ImGui::CollapsingHeader((head + "###" + id).c_str(), open_by_default ? ImGuiTreeNodeFlags_DefaultOpen : 0);
    ui.note_item(std::string("kview_section:") + id);
    if (ImGui::IsItemHovered() && pointer_moved() && ImGui::CalcTextSize(head.c_str()).x + ImGui::GetFontSize() * 2 > ImGui::GetItemRectSize().x)
        wrapped_tooltip(title);
    if (open && !rest.empty()) {
        std::string sentence = rest;
        sentence[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(sentence[0])));
        wrapped(sentence + (sentence.back() == '.' ? "" : "."));
    }
    return open;
}

// An explanation a learner reads once: folded under "How to read this", so
// the figures keep the room.
void legend(Ui& ui, const std::string& text, const char* id) {
    if (ImGui::TreeNodeEx((ui.t("gui.kview.how_to_read") + "##" + id).c_str(), ImGuiTreeNodeFlags_SpanAvailWidth)) {
        disabled_wrapped(text);
        ImGui::TreePop();
    }
    ui.note_item(std::string("kview_legend:") + id);
}


// Greyed text that wraps (TextDisabled does not).
// Dear ImGui's word wrap may break after a '.' or ',': "3." / "00". Inside a
// number the separator becomes U+2024 (one dot leader) or U+201A (single
// low-9 quote), which look the same and are no break points.
std::string keep_numbers_whole(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const bool between_digits = i > 0 && i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i - 1])) &&
                                    std::isdigit(static_cast<unsigned char>(text[i + 1]));
        if (between_digits && c == '.') out += "\xE2\x80\xA4";
        else if (between_digits && c == ',') out += "\xE2\x80\x9A";
        else out += c;
    }
    return out;
}

void wrapped(const std::string& text) { ImGui::TextWrapped("%s", keep_numbers_whole(text).c_str()); }

void disabled_wrapped(const std::string& text) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    wrapped(text);
    ImGui::PopStyleColor();
}

std::string dim_text(const emu::Dim3& d) { return std::to_string(d.x) + "×" + std::to_string(d.y) + "×" + std::to_string(d.z); }

std::string coords_text(const std::vector<int64_t>& c) {
    std::string s;
    for (int64_t v : c) s += (s.empty() ? "" : ", ") + std::to_string(v);
    return s;
}

unsigned linear_thread(const emu::Dim3& t, const emu::Dim3& block) { return t.x + block.x * (t.y + block.y * t.z); }

// Distinguishable colours for items (sectors, banks, words): the Okabe–Ito
// palette, told apart with the common colour-vision deficiencies, repeating
// after eight (the labels beside them keep repeats apart). No red first:
// the first item is often a broadcast, which is no error.
ImU32 item_color(size_t i, size_t n, float value = 1.0f) {
    (void)n;
    static const ImU32 kOkabeIto[] = {
        IM_COL32(86, 180, 233, 255),  IM_COL32(230, 159, 0, 255),   IM_COL32(0, 158, 115, 255),  IM_COL32(240, 228, 66, 255),
        IM_COL32(0, 114, 178, 255),   IM_COL32(204, 121, 167, 255), IM_COL32(153, 153, 153, 255), IM_COL32(213, 94, 0, 255),
    };
    ImVec4 c = ImGui::ColorConvertU32ToFloat4(kOkabeIto[i % 8]);
    c.x *= value, c.y *= value, c.z *= value;
    return ImGui::GetColorU32(c);
}

const ImU32 kIdle = IM_COL32(70, 70, 74, 255);
const ImU32 kFault = IM_COL32(205, 55, 55, 255);
const ImU32 kRead = IM_COL32(70, 150, 240, 255);
const ImU32 kWritten = IM_COL32(245, 150, 40, 255);
const ImU32 kBoth = IM_COL32(170, 90, 220, 255);
const ImU32 kBlockRead = IM_COL32(55, 80, 115, 255);
const ImU32 kBlockWritten = IM_COL32(120, 85, 45, 255);
const ImU32 kDarkText = IM_COL32(12, 12, 12, 255);

// ---- selections and derived data -------------------------------------------

// The first launch that faulted, else the first.
int default_launch(const CaseOutcome& c) {
    for (size_t i = 0; i < c.launches.size(); ++i)
        if (!c.launches[i].ok()) return static_cast<int>(i);
    return 0;
}

std::string marks_key(MemorySpace space, const std::string& buffer) { return (space == MemorySpace::Shared ? "s:" : "g:") + buffer; }

// Per buffer, per element: 1 = read by the thread, 2 = written by it,
// 4 = read by the block, 8 = written by the block. Built when the selection
// changes, not per frame (a block may have made a hundred thousand accesses).
std::map<std::string, std::map<int64_t, int>> touch_marks(const std::vector<BufferTouches>& thread, const std::vector<BufferTouches>& block) {
    std::map<std::string, std::map<int64_t, int>> marks;
    for (const BufferTouches& t : block) {
        std::map<int64_t, int>& m = marks[marks_key(t.space, t.buffer)];
        for (const ElementTouch& e : t.reads) m[e.index] |= 4;
        for (const ElementTouch& e : t.writes) m[e.index] |= 8;
    }
    for (const BufferTouches& t : thread) {
        std::map<int64_t, int>& m = marks[marks_key(t.space, t.buffer)];
        for (const ElementTouch& e : t.reads) m[e.index] |= 1;
        for (const ElementTouch& e : t.writes) m[e.index] |= 2;
    }
    return marks;
}

// Keeps selections valid and the derived data in step with them.
void refresh(Ui& ui, const Exercise& e, const CaseOutcome& c) {
    CudaKernelView& v = ui.cuda_kernel;
    const int generation = ui.session.result_generation();
    if (v.built_generation != generation || v.built_case != c.index) {  // a new result or another case
        v.launch = -1;
        v.built_launch = -1;
        v.buffers = kernel_buffers(e, c);
        v.built_generation = generation;
        v.built_case = c.index;
    }
    if (v.launch < 0 || v.launch >= static_cast<int>(c.launches.size())) v.launch = default_launch(c);
    const emu::LaunchReport& checked = c.launches[static_cast<size_t>(v.launch)];
    const int recordings = ui.session.recordings_generation();
    if (v.built_launch != v.launch || v.built_recordings != recordings) {
        // A block recorded after the check arrived: its accesses join the
        // views, and the selection stays where the learner put it.
        const std::vector<BlockRecording>& recorded = ui.session.recorded_blocks();
        const size_t index = static_cast<size_t>(v.launch);
        v.spliced.reset();
        if (std::any_of(recorded.begin(), recorded.end(), [&](const BlockRecording& r) { return recording_matches(r, checked, c.index, index); }))
            v.spliced = with_recorded_blocks(checked, c.index, index, recorded);
        v.blocks = block_footprints(checked, v.buffers, c.index, index, recorded);
        if (v.built_launch != v.launch) v.block = v.thread = -1;
        v.built_launch = v.launch;
        v.built_recordings = recordings;
        v.built_block = -1;
    }
    const emu::LaunchReport& launch = v.spliced ? *v.spliced : checked;
    const long blocks = static_cast<long>(std::min<uint64_t>(launch.grid.count(), 1u << 30));
    if (v.block < 0 || v.block >= blocks) {
        v.block = 0;
        if (fault_has_block(launch.fault)) v.block = static_cast<long>(linear_block(launch.fault.block, launch.grid));
        else
            for (const BlockFootprint& f : v.blocks)
                if (f.wrote_output()) {
                    v.block = static_cast<long>(f.block);
                    break;
                }
        v.block = std::clamp(v.block, 0L, std::max(blocks - 1, 0L));
    }
    if (v.built_block != v.block) {
        v.threads = thread_activity(launch, static_cast<uint64_t>(v.block));
        v.block_touches = block_accesses(launch, v.buffers, static_cast<uint64_t>(v.block));
        v.requests = warp_requests(launch, static_cast<uint64_t>(v.block));
        v.built_block = v.block;
        v.built_thread = -1;
        v.request = -1;
        const bool fault_here = fault_has_block(launch.fault) && linear_block(launch.fault.block, launch.grid) == static_cast<uint64_t>(v.block);
        v.thread = fault_here ? static_cast<long>(linear_thread(launch.fault.thread, launch.block)) : -1;
    }
    const long threads = static_cast<long>(v.threads.size());
    if (v.thread < 0 || v.thread >= threads) {
        v.thread = 0;
        for (long t = 0; t < threads; ++t)
            if (v.threads[static_cast<size_t>(t)].active()) {
                v.thread = t;
                break;
            }
    }
    if (v.built_thread != v.thread) {
        v.thread_touches = thread_accesses(launch, v.buffers, static_cast<uint64_t>(v.block), static_cast<unsigned>(v.thread));
        v.marks = touch_marks(v.thread_touches, v.block_touches);
        v.built_thread = v.thread;
        v.request = -1;  // the requests follow the thread's warp
    }
    if (v.request < 0 || v.request >= static_cast<int>(v.requests.size())) {
        // The first global load of the selected thread's warp: the coalescing question.
        v.request = v.requests.empty() ? -1 : 0;
        for (size_t i = 0; i < v.requests.size(); ++i)
            if (v.requests[i].warp == static_cast<unsigned>(v.thread / 32) && v.requests[i].space == MemorySpace::Global &&
                !v.requests[i].is_write) {
                v.request = static_cast<int>(i);
                break;
            }
    }
}

// The selected block's footprint (nullptr when the grid is too large to have them).
const BlockFootprint* selected_footprint(const CudaKernelView& v) {
    return v.block >= 0 && v.block < static_cast<long>(v.blocks.size()) ? &v.blocks[static_cast<size_t>(v.block)] : nullptr;
}

// The selected launch as the views draw it: the check's, with any blocks
// recorded since spliced in (refresh() keeps it current).
const emu::LaunchReport& shown_launch(Ui& ui, const CaseOutcome& c) {
    const CudaKernelView& v = ui.cuda_kernel;
    return v.spliced ? *v.spliced : c.launches[static_cast<size_t>(v.launch)];
}

// ---- left pane ---------------------------------------------------------------

std::string launch_line(Ui& ui, const emu::LaunchReport& l) {
    std::string s = ui.t("gui.kview.launch_line", {{"kernel", l.kernel}, {"grid", dim_text(l.grid)}, {"block", dim_text(l.block)}});
    if (l.dynamic_shared_bytes) s += ", " + ui.t("gui.kview.launch_smem", {{"bytes", std::to_string(l.dynamic_shared_bytes)}});
    if (!l.ok()) s += " (" + ui.t("gui.kview.launch_fault", {{"code", fault_name(emu::fault_code(l.fault.kind), ui.session.lang())}}) + ")";
    return s;
}

void draw_launch_selector(Ui& ui, const CheckResult& r, const CaseOutcome& c) {
    CudaKernelView& v = ui.cuda_kernel;
    const std::string current = std::to_string(c.index + 1) + ". " + c.name.get(ui.session.lang());
    // As wide as the case's name, within the pane (its label beside it).
    const float label_w = ImGui::CalcTextSize(ui.t("gui.views.case").c_str()).x + ImGui::GetStyle().ItemInnerSpacing.x;
    ImGui::SetNextItemWidth(std::min(ImGui::CalcTextSize(current.c_str()).x + ImGui::GetFrameHeight() * 2,
                                     std::max(ImGui::GetFontSize() * 8, ImGui::GetContentRegionAvail().x - label_w)));
    if (ImGui::BeginCombo((ui.t("gui.views.case") + "##kview_case").c_str(), current.c_str())) {
        for (const auto& k : r.cases) {
            const std::string label = std::to_string(k.index + 1) + ". " + k.name.get(ui.session.lang()) + "  (" + verdict_title(k.verdict, ui.session.lang()) + ")";
            if (ImGui::Selectable(label.c_str(), k.index == c.index)) ui.heatmaps.case_index = k.index;
        }
        ImGui::EndCombo();
    }
    ui.note_item("kview_case");
    ImGui::TextUnformatted(ui.t("gui.kview.launches", {{"case", std::to_string(c.index + 1)}}).c_str());
    const emu::LaunchReport& launch = c.launches[static_cast<size_t>(v.launch)];
    ImGui::SetNextItemWidth(-1);
    if (ImGui::BeginCombo("##kview_launch", (std::to_string(v.launch + 1) + ". " + launch_line(ui, launch)).c_str())) {
        for (size_t i = 0; i < c.launches.size(); ++i)
            if (ImGui::Selectable((std::to_string(i + 1) + ". " + launch_line(ui, c.launches[i]) + "##l" + std::to_string(i)).c_str(),
                                  static_cast<int>(i) == v.launch))
                v.launch = static_cast<int>(i);
        ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered() && pointer_moved()) wrapped_tooltip(std::to_string(v.launch + 1) + ". " + launch_line(ui, launch));
    ui.note_item("kview_launch");
    const emu::LaunchCounters& k = launch.counters;
    const Lang lang = ui.session.lang();
    wrapped(ui.t("gui.kview.summary", {{"blocks", format_count(static_cast<int64_t>(launch.grid.count()), lang)},
                                       {"threads", format_count(static_cast<int64_t>(launch.block.count()), lang)},
                                       {"loads", format_count(k.global_load_requests, lang)},
                                       {"sectors", format_fixed(k.sectors_per_load_request(), 2, lang)},
                                       {"stores", format_count(k.global_store_requests, lang)},
                                       {"conflicts", format_count(k.shared_bank_conflicts, lang)}}));
    if (launch.ok()) return;
    const std::string code = fault_name(emu::fault_code(launch.fault.kind), ui.session.lang());
    const std::string text = fault_has_block(launch.fault)
                                 ? ui.t("gui.kview.fault", {{"code", code},
                                                            {"block", std::to_string(linear_block(launch.fault.block, launch.grid))},
                                                            {"thread", std::to_string(linear_thread(launch.fault.thread, launch.block))},
                                                            {"line", std::to_string(launch.fault.line)}})
                                 : ui.t("gui.kview.launch_error", {{"code", code}});
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(IM_COL32(255, 120, 110, 255)));
    wrapped(text);
    ImGui::PopStyleColor();
    ui.note_item("kview_fault");
}

std::string block_text(Ui& ui, const BlockFootprint& f, const std::string& out) {
    const Lang lang = ui.session.lang();  // counts grouped as the language writes them (26,304 / 26.304)
    const std::map<std::string, std::string> id = {{"id", std::to_string(f.block)},
                                                   {"x", std::to_string(f.index.x)},
                                                   {"y", std::to_string(f.index.y)},
                                                   {"z", std::to_string(f.index.z)},
                                                   {"out", out},
                                                   {"reads", format_count(f.global_reads, lang)}};
    if (f.stopped) return ui.t("gui.kview.block_stopped", id);
    if (!f.recorded && !f.wrote_output()) return ui.t("gui.kview.block_unrecorded", id);
    if (!f.wrote_output()) return ui.t("gui.kview.block_idle", id);
    std::map<std::string, std::string> args = id;
    args["slice"] = f.written.empty() ? ui.t("gui.kview.block_whole", {{"out", out}}) : describe_slice(f.written, lang);
    args["writes"] = format_count(f.output_writes, lang);
    args["sreads"] = format_count(f.shared_reads, lang);
    args["swrites"] = format_count(f.shared_writes, lang);
    return ui.t("gui.kview.block_wrote", args);
}

ImU32 block_color(const BlockFootprint& f, int64_t numel, bool selected) {
    if (f.faulted) return kFault;
    if (f.stopped || (!f.recorded && !f.wrote_output())) return selected ? IM_COL32(90, 90, 96, 255) : IM_COL32(58, 58, 64, 255);  // unknown, not idle
    if (!f.wrote_output()) return selected ? IM_COL32(120, 120, 126, 255) : kIdle;
    // Where in the output it wrote, on viridis (the lighter two thirds, so the
    // dark labels stay readable): neighbouring slices look alike, and the
    // order reads with any colour vision.
    const double at = numel > 0 ? static_cast<double>(f.first_written) / static_cast<double>(numel) : 0.0;
    const Rgba c = map_color(ColorMap::Viridis, 0.38 + 0.62 * std::clamp(at, 0.0, 1.0));
    const float k = selected ? 1.0f : 0.85f;
    return IM_COL32(static_cast<int>(c[0] * k), static_cast<int>(c[1] * k), static_cast<int>(c[2] * k), 255);
}

// The grid: grid.x columns and grid.y·grid.z rows; a one-row grid wraps.
void draw_block_grid(Ui& ui, const emu::LaunchReport& launch, const std::string& out, int64_t numel) {
    CudaKernelView& v = ui.cuda_kernel;
    const long count = static_cast<long>(v.blocks.size());
    if (count == 0) {  // an empty grid (the fault line says why) or one too large to draw
        if (launch.grid.count() > 0)
            ImGui::TextDisabled("%s", ui.t("gui.kview.grid_too_large", {{"n", std::to_string(launch.grid.count())}}).c_str());
        return;
    }
    constexpr long kMaxCells = 4096;
    const long shown = std::min(count, kMaxCells);
    size_t widest = 1;
    for (long b = 0; b < shown; ++b) widest = std::max(widest, slice_values(v.blocks[static_cast<size_t>(b)].written).size());
    const float font = ImGui::GetFontSize();
    const float avail = ImGui::GetContentRegionAvail().x;
    const float label_w = ImGui::CalcTextSize(std::string(std::min<size_t>(widest, 9), '0').c_str()).x + 8.0f;
    long cols = static_cast<long>(launch.grid.x);
    if (launch.grid.y * launch.grid.z == 1) cols = std::clamp(static_cast<long>(avail / std::max(label_w, font * 1.4f)), 1L, cols);
    const long rows = (shown + cols - 1) / cols;
    v.grid_columns = cols;
    const float cell_w = std::clamp(avail / static_cast<float>(cols), 6.0f, font * 6.0f);
    const float cell_h = std::clamp(std::min(cell_w, font * 1.5f), 5.0f, font * 1.5f);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("kview_grid", ImVec2(cell_w * static_cast<float>(cols), cell_h * static_cast<float>(rows)));
    ui.note_item("kview_grid");
    const bool hovered = ImGui::IsItemHovered();
    const ImVec2 m = ImGui::GetIO().MousePos;
    const long hover_col = static_cast<long>((m.x - origin.x) / cell_w), hover_row = static_cast<long>((m.y - origin.y) / cell_h);
    const long under = hovered ? std::clamp(hover_row, 0L, rows - 1) * cols + std::clamp(hover_col, 0L, cols - 1) : -1;
    if (ImGui::IsItemClicked() && under >= 0 && under < shown) v.block = under;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const bool labels = cell_w >= label_w && cell_h >= font;
    for (long b = 0; b < shown; ++b) {
        const BlockFootprint& f = v.blocks[static_cast<size_t>(b)];
        const ImVec2 a(origin.x + static_cast<float>(b % cols) * cell_w, origin.y + static_cast<float>(b / cols) * cell_h);
        const ImVec2 z(a.x + cell_w - 2, a.y + cell_h - 2);
        dl->AddRectFilled(a, z, block_color(f, numel, b == v.block), 2.0f);
        if (b == v.block) dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(z.x + 1, z.y + 1), IM_COL32(255, 255, 255, 255), 2.0f, 0, 2.0f);
        if (!labels) continue;
        const std::string label = f.wrote_output() ? (f.written.empty() ? "*" : slice_values(f.written)) : f.stopped || !f.recorded ? "?" : "–";
        const ImVec2 ts = ImGui::CalcTextSize(label.c_str());
        if (ts.x > cell_w - 4) continue;
        dl->AddText(ImVec2(a.x + (cell_w - 2 - ts.x) / 2, a.y + (cell_h - 2 - ts.y) / 2), f.wrote_output() || f.faulted ? kDarkText : IM_COL32(200, 200, 200, 255),
                    label.c_str());
    }
    if (under >= 0 && under < shown && pointer_moved()) wrapped_tooltip(block_text(ui, v.blocks[static_cast<size_t>(under)], out));
    if (shown < count) ImGui::TextDisabled("%s", ui.t("gui.kview.grid_too_large", {{"n", std::to_string(count)}}).c_str());
}

// Threads as squares, one row per warp; a click selects one.
void draw_threads(Ui& ui, const emu::LaunchReport& launch) {
    CudaKernelView& v = ui.cuda_kernel;
    const long threads = static_cast<long>(v.threads.size());
    if (threads == 0) return;
    if (const BlockFootprint* block = selected_footprint(v); block && !block->recorded) {
        disabled_wrapped(ui.t("gui.kview.threads_unrecorded"));  // dark squares here mean "not recorded", not idle
        ui.note_item("kview_threads_unrecorded");
    }
    const long warps = (threads + 31) / 32;
    const float avail = ImGui::GetContentRegionAvail().x;
    const float sq = std::clamp(avail / 32.0f - 2.0f, 5.0f, ImGui::GetFontSize() * 0.9f);
    const float step = sq + 2.0f;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("kview_threads", ImVec2(32 * step, static_cast<float>(warps) * step));
    ui.note_item("kview_threads");
    if (ImGui::IsItemClicked()) {
        const ImVec2 m = ImGui::GetIO().MousePos;
        const long lane = std::clamp(static_cast<long>((m.x - origin.x) / step), 0L, 31L);
        const long warp = std::clamp(static_cast<long>((m.y - origin.y) / step), 0L, warps - 1);
        if (warp * 32 + lane < threads) v.thread = warp * 32 + lane;
    }
    std::vector<bool> in_request(static_cast<size_t>(threads), false);
    if (v.request >= 0 && v.request < static_cast<int>(v.requests.size())) {
        const WarpRequest& r = v.requests[static_cast<size_t>(v.request)];
        for (const LaneAccess& l : r.lanes)
            if (r.warp * 32 + l.lane < static_cast<unsigned>(threads)) in_request[r.warp * 32 + l.lane] = true;
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (long t = 0; t < threads; ++t) {
        const ImVec2 a(origin.x + static_cast<float>(t % 32) * step, origin.y + static_cast<float>(t / 32) * step);
        const ImVec2 z(a.x + sq, a.y + sq);
        const bool active = v.threads[static_cast<size_t>(t)].active();
        dl->AddRectFilled(a, z, t == v.thread ? IM_COL32(255, 255, 255, 255) : active ? IM_COL32(120, 190, 240, 255) : IM_COL32(60, 62, 72, 255));
        if (in_request[static_cast<size_t>(t)]) dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(z.x + 1, z.y + 1), IM_COL32(250, 220, 60, 255));
    }
    // The threads the fault names (both of a race), ringed in the fault's colour.
    const emu::Fault& f = launch.fault;
    if (fault_has_block(f) && linear_block(f.block, launch.grid) == static_cast<uint64_t>(v.block)) {
        std::vector<long> named = {static_cast<long>(linear_thread(f.thread, launch.block))};
        if (f.kind == emu::FaultKind::SharedRace) named.push_back(static_cast<long>(linear_thread(f.other_thread, launch.block)));
        for (size_t i = 0; i < named.size(); ++i) {
            const long t = named[i];
            if (t < 0 || t >= threads) continue;
            const ImVec2 a(origin.x + static_cast<float>(t % 32) * step, origin.y + static_cast<float>(t / 32) * step);
            dl->AddRect(ImVec2(a.x - 2, a.y - 2), ImVec2(a.x + sq + 2, a.y + sq + 2), kFault, 0, 0, 2.5f);
            mark_cross(dl, a, ImVec2(a.x + sq, a.y + sq));
            ui.items["kview_fault_thread:" + std::to_string(i)] = ImRect(a, ImVec2(a.x + sq, a.y + sq));
        }
    }
}

void draw_resources(Ui& ui, const CheckResult* r);  // below: the resource panel
void draw_blocks(Ui& ui, const emu::LaunchReport& launch, const KernelBuffer& out, int64_t numel);
void draw_block_recording(Ui& ui, const BlockFootprint& f);

void draw_left(Ui& ui, const CheckResult& r, const CaseOutcome& c) {
    CudaKernelView& v = ui.cuda_kernel;
    const emu::LaunchReport& launch = shown_launch(ui, c);
    const KernelBuffer& out = v.buffers.front();
    int64_t numel = 1;
    for (int64_t d : out.shape) numel *= d;
    draw_launch_selector(ui, r, c);
    if (section(ui, ui.t("gui.kview.grid_title", {{"kernel", launch.kernel}, {"out", out.name}}), "blocks")) draw_blocks(ui, launch, out, numel);
    if (section(ui, ui.t("gui.kview.threads_title", {{"block", std::to_string(v.block)}}), "threads")) {
        legend(ui, ui.t("gui.kview.threads_legend"), "threads");
        draw_threads(ui, launch);
    }
}

void draw_blocks(Ui& ui, const emu::LaunchReport& launch, const KernelBuffer& out, int64_t numel) {
    CudaKernelView& v = ui.cuda_kernel;
    std::string how = ui.t("gui.kview.grid_legend", {{"out", out.name}});
    if (!out.axes.empty()) {
        std::string axes;
        for (size_t a = 0; a < out.axes.size(); ++a) {
            const AxisSpan named{static_cast<int>(a), out.axes[a], 0, 0};
            const std::string word = describe_slice({named}, ui.session.lang());  // "batch 0"
            axes += (a ? ", " : "") + word.substr(0, word.rfind(' '));
        }
        how += " " + ui.t("gui.kview.grid_axes", {{"axes", axes}});
    }
    legend(ui, how, "blocks");
    if (launch.trace_truncated) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.3f, 1.0f));
        wrapped(ui.t("gui.kview.trace_truncated_record"));
        ImGui::PopStyleColor();
        ui.note_item("kview_trace_truncated");
    }
    draw_block_grid(ui, launch, out.name, numel);
    if (v.block >= 0 && v.block < static_cast<long>(v.blocks.size())) {
        const BlockFootprint& f = v.blocks[static_cast<size_t>(v.block)];
        wrapped(block_text(ui, f, out.name));
        ui.note_item("kview_block");
        if (f.faulted) ImGui::TextColored(ImVec4(1.0f, 0.47f, 0.43f, 1.0f), "%s", ui.t("gui.kview.block_faulted").c_str());
        draw_block_recording(ui, f);
    }
}

// The recording of a block after the check (or why there is none): a button
// where the check's log did not reach the selected block, its progress, and
// in plain words what is still unknown.
void draw_block_recording(Ui& ui, const BlockFootprint& f) {
    const CudaKernelView& v = ui.cuda_kernel;
    const int case_index = v.built_case;
    const size_t launch = static_cast<size_t>(v.launch);
    const std::map<std::string, std::string> id = {{"id", std::to_string(f.block)},
                                                   {"n", std::to_string(protocol::ProtocolLimits::max_trace_events)}};
    if (f.recorded_alone) {
        wrapped(ui.t(f.recorded ? "gui.kview.block_recorded_alone" : "gui.kview.block_partly_recorded", id));
        ui.note_item("kview_block_recorded");
        return;  // recording it again would give the same accesses
    }
    if (f.recorded) return;
    // The log filled inside this block: what it wrote so far is drawn, the rest is unknown.
    if (f.wrote_output()) wrapped(ui.t("gui.kview.block_log_filled", id));
    const BlockRecordingRequest* running = ui.session.recording_block();
    if (running && running->case_index == case_index && running->launch == launch && running->block == f.block) {
        ImGui::TextDisabled("%s", ui.t("gui.kview.block_recording", id).c_str());
        ui.note_item("kview_block_recording");
        return;
    }
    for (const BlockRecording& r : ui.session.recorded_blocks())
        if (r.case_index == case_index && r.launch == launch && r.block == f.block && !r.usable()) {
            const std::string why = r.problem == BlockRecording::Problem::LaunchMissing
                                        ? ui.t("gui.kview.record_no_launch", {{"launch", std::to_string(launch + 1)}})
                                        : ui.t("gui.kview.record_run_failed", {{"verdict", verdict_title(r.rerun_verdict, ui.session.lang())}});
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.3f, 1.0f));
            wrapped(ui.t("gui.kview.record_failed", {{"id", id.at("id")}, {"why", why}}));
            ImGui::PopStyleColor();
        }
    ImGui::BeginDisabled(running != nullptr);  // one recording at a time
    if (ImGui::Button(ui.t("gui.kview.record_block").c_str())) ui.session.record_block(case_index, launch, f.block);
    ImGui::EndDisabled();
    ui.note_item("kview_record_block");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled) && pointer_moved()) wrapped_tooltip(ui.t("gui.kview.record_block_tip"));
}

// ---- resources -----------------------------------------------------------------

// How the learner launched `kernel`: the core's choice over every case (the
// largest block, then the most dynamic shared memory), by name; a templated
// kernel may be named with other template arguments in the two reports.
std::optional<LaunchShape> launch_shape(const std::map<std::string, LaunchShape>& shapes, const std::string& kernel) {
    if (auto it = shapes.find(kernel); it != shapes.end()) return it->second;
    auto base = [](const std::string& s) { return s.substr(0, s.find('<')); };
    for (const auto& [name, shape] : shapes)
        if (base(name) == base(kernel)) return shape;
    return std::nullopt;
}

void draw_arch_selector(Ui& ui) {
    ImGui::TextUnformatted(ui.t("gui.kview.arch").c_str());
    ImGui::SameLine();
    const std::string current = ui.session.gpu_arch();
    ImGui::SetNextItemWidth(ImGui::CalcTextSize(gpu_arch_label("sm_86").c_str()).x + ImGui::GetFrameHeight() * 2);
    if (ImGui::BeginCombo("##kview_arch", gpu_arch_label(current).c_str())) {
        for (const std::string& arch : known_gpu_archs())
            if (ImGui::Selectable(gpu_arch_label(arch).c_str(), arch == current)) ui.session.set_gpu_arch(arch);
        ImGui::EndCombo();
    }
    ui.note_item("kview_arch");
    if (ui.session.computing_resources()) {
        ImGui::SameLine();
        ImGui::TextDisabled("%s", ui.t("gui.kview.computing", {{"arch", current}}).c_str());
    }
}

// One column per kernel, one row per figure (narrow panes stay readable),
// then each launched kernel's occupancy in words.
void draw_resource_table(Ui& ui, const ResourceReport& report, const CheckResult* r) {
    if (report.kernels.empty()) {
        wrapped(ui.t("gui.kview.no_kernels"));
        return;
    }
    struct Column {
        const KernelResources* kernel;
        std::optional<LaunchShape> shape;
        std::optional<Occupancy> occupancy;
    };
    const std::map<std::string, LaunchShape> shapes = r ? learner_launch_shapes(*r) : std::map<std::string, LaunchShape>{};
    std::vector<Column> cols;
    for (const KernelResources& k : report.kernels) {
        Column col{&k, launch_shape(shapes, k.kernel), std::nullopt};
        if (col.shape) col.occupancy = kernel_occupancy(report.arch, k, *col.shape);
        cols.push_back(col);
    }
    const int n = static_cast<int>(std::min<size_t>(cols.size(), 8));
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("kview_resources", n + 1, flags)) return;
    ImGui::TableSetupColumn(ui.t("gui.kview.col_kernel").c_str());
    for (int i = 0; i < n; ++i) ImGui::TableSetupColumn(cols[static_cast<size_t>(i)].kernel->kernel.c_str());
    ImGui::TableHeadersRow();
    auto row = [&](const char* key, const std::function<std::string(const Column&)>& value) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(ui.t(key).c_str());
        for (int i = 0; i < n; ++i) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(value(cols[static_cast<size_t>(i)]).c_str());
        }
    };
    auto bytes = [&](int64_t b) { return ui.t("gui.kview.bytes", {{"n", std::to_string(b)}}); };
    row("gui.kview.col_registers", [](const Column& k) { return std::to_string(k.kernel->registers); });
    row("gui.kview.col_static_shared", [&](const Column& k) { return bytes(k.kernel->shared_bytes); });
    row("gui.kview.col_spills", [&](const Column& k) { return bytes(k.kernel->spill_bytes()); });
    row("gui.kview.col_block", [&](const Column& k) {
        return k.shape ? ui.t("gui.kview.threads_smem", {{"threads", std::to_string(k.shape->threads_per_block)},
                                                         {"bytes", std::to_string(k.shape->dynamic_shared_bytes)}})
                       : ui.t("gui.kview.not_launched");
    });
    row("gui.kview.col_occupancy", [](const Column& k) {
        if (!k.occupancy) return std::string("—");
        char pct[16];
        std::snprintf(pct, sizeof pct, "%.0f%%", k.occupancy->fraction * 100.0);
        return std::string(pct);
    });
    row("gui.kview.col_limit", [&](const Column& k) { return k.occupancy ? ui.t("gui.kview.limit." + k.occupancy->limited_by) : std::string("—"); });
    ImGui::EndTable();
    ui.note_item("kview_resources");
    for (const Column& k : cols)
        if (k.occupancy)
            wrapped(ui.t("gui.kview.occupancy_of", {{"kernel", k.kernel->kernel}, {"threads", std::to_string(k.shape->threads_per_block)}}) + " " +
                    describe_occupancy(*k.occupancy, ui.session.lang()));
}

void draw_resources(Ui& ui, const CheckResult* r) {
    const std::shared_ptr<const ResourceReport> report = ui.session.resources();
    if (!section(ui, ui.t("gui.kview.resources_title", {{"arch", report ? report->arch : ui.session.gpu_arch()}}), "resources")) return;
    draw_arch_selector(ui);
    if (!report) {
        disabled_wrapped(ui.t("gui.kview.resources_none"));
        return;
    }
    switch (report->status) {
        case ResourceReport::Status::Unavailable:
            wrapped(ui.t("gui.kview.unavailable"));
            ui.note_item("kview_resources_unavailable");
            break;
        case ResourceReport::Status::CompileError:
            wrapped(ui.t("gui.kview.compile_error", {{"arch", report->arch}}));
            for (const Diagnostic& d : report->diagnostics)
                if (d.severity == "error" || d.severity == "fatal error")
                    ImGui::TextWrapped("%s:%d: %s", d.file.c_str(), d.line, d.message.c_str());
            ui.note_item("kview_resources_error");
            break;
        case ResourceReport::Status::Ok: draw_resource_table(ui, *report, r); break;
    }
}

// ---- right pane: the selected thread over the tensors ---------------------------------------------

ImU32 mark_color(int m) {
    if ((m & 3) == 3) return kBoth;
    if (m & 2) return kWritten;
    if (m & 1) return kRead;
    if (m & 8) return kBlockWritten;
    return kBlockRead;
}

// How a buffer is drawn: its last two axes as a tile of rows × columns, the
// leading axes as tiles side by side (rank 4 with several heads: one row of
// tiles per index of the first axis, one column per index of the second, so
// (B, H, T, hd) shows batch × head (T, hd) slices; otherwise as many tiles per
// row as give the largest cells); rank 1 and shared memory as rows of 32.
struct TileLayout {
    int64_t tile_rows = 1, tile_cols = 1, tiles = 1, grid_cols = 1, grid_rows = 1;
    float cell = 4, gap = 3;
    ImVec2 size() const {
        return ImVec2(static_cast<float>(grid_cols * tile_cols) * cell + static_cast<float>(grid_cols - 1) * gap,
                      static_cast<float>(grid_rows * tile_rows) * cell + static_cast<float>(grid_rows - 1) * gap);
    }
    ImVec2 at(int64_t index) const {  // top-left corner of an element's cell, from the origin
        const int64_t per_tile = tile_rows * tile_cols, tile = index / per_tile, within = index % per_tile;
        return ImVec2(static_cast<float>(tile % grid_cols) * (static_cast<float>(tile_cols) * cell + gap) + static_cast<float>(within % tile_cols) * cell,
                      static_cast<float>(tile / grid_cols) * (static_cast<float>(tile_rows) * cell + gap) + static_cast<float>(within / tile_cols) * cell);
    }
    int64_t index_at(ImVec2 p) const {  // -1 between tiles
        const float tw = static_cast<float>(tile_cols) * cell + gap, th = static_cast<float>(tile_rows) * cell + gap;
        const int64_t tx = static_cast<int64_t>(p.x / tw), ty = static_cast<int64_t>(p.y / th);
        const int64_t c = static_cast<int64_t>((p.x - static_cast<float>(tx) * tw) / cell), r = static_cast<int64_t>((p.y - static_cast<float>(ty) * th) / cell);
        if (p.x < 0 || p.y < 0 || tx >= grid_cols || ty >= grid_rows || c >= tile_cols || r >= tile_rows) return -1;
        const int64_t tile = ty * grid_cols + tx;
        return tile < tiles ? tile * tile_rows * tile_cols + r * tile_cols + c : -1;
    }
};

TileLayout tile_layout(const Shape& shape, int64_t numel, float avail, float max_h, float font) {
    TileLayout t;
    const size_t rank = shape.size();
    if (rank >= 2) {
        t.tile_rows = std::max<int64_t>(shape[rank - 2], 1);
        t.tile_cols = std::max<int64_t>(shape[rank - 1], 1);
    } else {
        t.tile_cols = std::min<int64_t>(std::max<int64_t>(numel, 1), 32);
        t.tile_rows = (std::max<int64_t>(numel, 1) + t.tile_cols - 1) / t.tile_cols;
    }
    t.tiles = std::max<int64_t>(numel / (t.tile_rows * t.tile_cols), 1);
    auto cell_for = [&](int64_t grid_cols) {
        const int64_t grid_rows = (t.tiles + grid_cols - 1) / grid_cols;
        const float by_width = (avail - static_cast<float>(grid_cols - 1) * t.gap) / static_cast<float>(grid_cols * t.tile_cols);
        const float by_height = (max_h - static_cast<float>(grid_rows - 1) * t.gap) / static_cast<float>(grid_rows * t.tile_rows);
        return std::min(by_width, by_height);
    };
    if (rank == 4 && shape[1] > 1) {
        t.grid_cols = shape[1];  // batch × head, as the tensor is indexed
    } else {  // as many tiles side by side as give the largest cells
        t.grid_cols = 1;
        for (int64_t g = 2; g <= std::min<int64_t>(t.tiles, 64); ++g)
            if (cell_for(g) > cell_for(t.grid_cols)) t.grid_cols = g;
    }
    t.grid_rows = (t.tiles + t.grid_cols - 1) / t.grid_cols;
    t.cell = std::clamp(cell_for(t.grid_cols), 2.0f, font * 0.9f);
    return t;
}

// A white cross over a faulting cell: a shape, so the fault stands out with
// any colour vision (red next to brown is one colour to many eyes).
void mark_cross(ImDrawList* dl, ImVec2 lo, ImVec2 hi) {
    const float w = std::max(1.5f, (hi.x - lo.x) * 0.18f);
    dl->AddLine(lo, hi, IM_COL32(255, 255, 255, 255), w);
    dl->AddLine(ImVec2(lo.x, hi.y), ImVec2(hi.x, lo.y), IM_COL32(255, 255, 255, 255), w);
}

// The launch's fault when it happened on an element of this buffer (shared
// memory: in the selected block, whose copy it is).
const emu::Fault* fault_on(const emu::LaunchReport& launch, long block, const std::string& name, MemorySpace space) {
    const emu::Fault& f = launch.fault;
    const bool on_element = f.kind == emu::FaultKind::OutOfBounds || f.kind == emu::FaultKind::SharedRace || f.kind == emu::FaultKind::UninitializedRead;
    if (!on_element || f.space != space || f.buffer != name) return nullptr;
    if (space == MemorySpace::Shared && linear_block(f.block, launch.grid) != static_cast<uint64_t>(block)) return nullptr;
    return &f;
}

// An index outside the buffer, drawn where it falls: the buffer's last (or
// first) cells, its end, and the faulting cell past it, with the distance.
void draw_outside_index(Ui& ui, const std::string& name, const emu::Fault& f, int64_t numel) {
    const float font = ImGui::GetFontSize();
    const float cell = font * 0.9f, gap = font * 0.3f;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImVec2 p = ImGui::GetCursorScreenPos();
    p.y += gap;
    const bool after = f.index >= numel;
    const int64_t over = after ? f.index - numel + 1 : -f.index;
    const int64_t shown = std::min<int64_t>(numel, 4);
    auto inside = [&](int k) {
        dl->AddRectFilled(ImVec2(p.x, p.y), ImVec2(p.x + cell - 1, p.y + cell - 1), IM_COL32(45, 45, 52, 255));
        (void)k;
        p.x += cell;
    };
    auto edge = [&] {
        dl->AddLine(ImVec2(p.x + 1, p.y - gap), ImVec2(p.x + 1, p.y + cell + gap), IM_COL32(240, 240, 240, 255), 2.0f);
        p.x += gap * 2;
    };
    auto bad = [&] {
        dl->AddRectFilled(ImVec2(p.x, p.y), ImVec2(p.x + cell, p.y + cell), kFault);
        mark_cross(dl, ImVec2(p.x, p.y), ImVec2(p.x + cell, p.y + cell));
        dl->AddRect(ImVec2(p.x - 2, p.y - 2), ImVec2(p.x + cell + 2, p.y + cell + 2), IM_COL32(255, 255, 255, 255), 0, 0, 2.0f);
        p.x += cell + gap;
    };
    auto skipped = [&](int64_t n) {
        if (n <= 0) return;
        const std::string t = "… " + std::to_string(n) + " …";
        dl->AddText(ImVec2(p.x, p.y + (cell - font) / 2), ImGui::GetColorU32(ImGuiCol_TextDisabled), t.c_str());
        p.x += ImGui::CalcTextSize(t.c_str()).x + gap;
    };
    if (after) {
        for (int k = 0; k < shown; ++k) inside(k);
        edge();
        skipped(over - 1);
        bad();
    } else {
        bad();
        skipped(over - 1);
        edge();
        for (int k = 0; k < shown; ++k) inside(k);
    }
    ImGui::Dummy(ImVec2(0, cell + 2 * gap));
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(IM_COL32(255, 120, 110, 255)));
    ImGui::TextWrapped("%s", ui.t(after ? "gui.kview.past_end" : "gui.kview.before_start",
                                  {{"name", name}, {"index", std::to_string(f.index)}, {"size", std::to_string(numel)}, {"over", std::to_string(over)}})
                                 .c_str());
    ImGui::PopStyleColor();
    ui.note_item("kview_outside:" + name);
}

// A racecheck fault in words under the array: the element and both threads.
void draw_race_caption(Ui& ui, const emu::LaunchReport& launch, const emu::Fault& f) {
    const auto access = [&](bool write) { return ui.t(write ? "gui.kview.race_wrote" : "gui.kview.race_read"); };
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(IM_COL32(255, 120, 110, 255)));
    ImGui::TextWrapped("%s", ui.t("gui.kview.race_caption", {{"index", std::to_string(f.index)},
                                                             {"a", std::to_string(linear_thread(f.other_thread, launch.block))},
                                                             {"a_did", access(f.other_is_write)},
                                                             {"a_line", std::to_string(f.other_line)},
                                                             {"b", std::to_string(linear_thread(f.thread, launch.block))},
                                                             {"b_did", access(f.is_write)},
                                                             {"b_line", std::to_string(f.line)}})
                                 .c_str());
    ImGui::PopStyleColor();
    ui.note_item("kview_race");
}

// One buffer's layout: untouched tiles dark, touched cells drawn over them;
// hovering a cell names its coordinates and who touched it. A fault on one
// of its elements is drawn on that element, or past the buffer's end.
void draw_buffer_layout(Ui& ui, const std::string& name, MemorySpace space, const Shape& shape, const emu::LaunchReport& launch) {
    static const std::map<int64_t, int> kNone;
    const auto found = ui.cuda_kernel.marks.find(marks_key(space, name));
    const std::map<int64_t, int>& marks = found == ui.cuda_kernel.marks.end() ? kNone : found->second;
    int64_t numel = 1;
    for (int64_t d : shape) numel *= d;
    const emu::Fault* fault = fault_on(launch, ui.cuda_kernel.block, name, space);
    if (shape.empty()) numel = marks.empty() ? 1 : marks.rbegin()->first + 1;  // shared memory: up to the highest element touched
    if (shape.empty() && fault && fault->size > 0) numel = fault->size;        // …or its whole length, when the fault gives it
    const float font = ImGui::GetFontSize();
    const TileLayout t = tile_layout(shape, numel, ImGui::GetContentRegionAvail().x, font * 15.0f, font);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (int64_t k = 0; k < t.tiles; ++k) {
        const ImVec2 a = t.at(k * t.tile_rows * t.tile_cols);
        dl->AddRectFilled(ImVec2(origin.x + a.x, origin.y + a.y),
                          ImVec2(origin.x + a.x + static_cast<float>(t.tile_cols) * t.cell, origin.y + a.y + static_cast<float>(t.tile_rows) * t.cell),
                          IM_COL32(45, 45, 52, 255));
    }
    const float inset = t.cell >= 4 ? 1.0f : 0.0f;
    for (const auto& [index, m] : marks) {
        if (index < 0 || index >= numel) continue;  // out of bounds: named in the order above, not drawn
        const ImVec2 a = t.at(index);
        dl->AddRectFilled(ImVec2(origin.x + a.x, origin.y + a.y), ImVec2(origin.x + a.x + t.cell - inset, origin.y + a.y + t.cell - inset), mark_color(m));
    }
    // The thread's own cells ringed, so a few elements stand out among small
    // cells (rings around many would merge into one white patch).
    int64_t own = 0;
    for (const auto& [index, m] : marks) own += (m & 3) ? 1 : 0;
    for (const auto& [index, m] : marks)
        if (own <= 64 && (m & 3) && index >= 0 && index < numel) {
            const ImVec2 a = t.at(index);
            dl->AddRect(ImVec2(origin.x + a.x - 1.5f, origin.y + a.y - 1.5f), ImVec2(origin.x + a.x + t.cell + 0.5f, origin.y + a.y + t.cell + 0.5f),
                        IM_COL32(255, 255, 255, 230));
        }
    if (fault && fault->index >= 0 && fault->index < numel) {
        const ImVec2 a = t.at(fault->index);
        const ImVec2 lo(origin.x + a.x, origin.y + a.y), hi(origin.x + a.x + std::max(t.cell, 3.0f), origin.y + a.y + std::max(t.cell, 3.0f));
        dl->AddRectFilled(lo, hi, kFault);
        mark_cross(dl, lo, hi);
        dl->AddRect(ImVec2(lo.x - 2, lo.y - 2), ImVec2(hi.x + 2, hi.y + 2), IM_COL32(255, 255, 255, 255), 0, 0, 2.0f);
        ui.items["kview_fault_cell:" + name] = ImRect(lo, hi);
    }
    ImGui::InvisibleButton(("kview_buffer:" + name).c_str(), ImVec2(std::max(t.size().x, 1.0f), std::max(t.size().y, 1.0f)));
    ui.note_item("kview_buffer:" + name);
    const bool hovered = ImGui::IsItemHovered();
    if (fault && (fault->index < 0 || fault->index >= numel)) draw_outside_index(ui, name, *fault, numel);
    if (fault && fault->kind == emu::FaultKind::SharedRace) draw_race_caption(ui, launch, *fault);
    if (!hovered || !pointer_moved()) return;
    const ImVec2 mp = ImGui::GetIO().MousePos;
    const int64_t index = t.index_at(ImVec2(mp.x - origin.x, mp.y - origin.y));
    if (index < 0) return;
    std::string tip = ui.t("gui.kview.cell", {{"name", name}, {"coords", coords_text(unravel_index(index, shape))}, {"index", std::to_string(index)}});
    const auto it = marks.find(index);
    const int m = it == marks.end() ? 0 : it->second;
    if (m & 1) tip += "\n" + ui.t("gui.kview.cell_read");
    if (m & 2) tip += "\n" + ui.t("gui.kview.cell_written");
    if ((m & 12) && !(m & 3)) tip += "\n" + ui.t("gui.kview.cell_block");
    wrapped_tooltip(tip);
}

// The thread's accesses as words, in the order it made them (the first few).
void draw_access_order(Ui& ui, const std::vector<BufferTouches>& touches) {
    struct Item {
        size_t order;
        std::string text;
    };
    std::vector<Item> items;
    for (const BufferTouches& t : touches) {
        for (const ElementTouch& e : t.reads)
            items.push_back({e.order, ui.t("gui.kview.read_at", {{"name", t.buffer}, {"coords", coords_text(e.coords)}, {"line", std::to_string(e.line)}})});
        for (const ElementTouch& e : t.writes)
            items.push_back({e.order, ui.t("gui.kview.wrote_at", {{"name", t.buffer}, {"coords", coords_text(e.coords)}, {"line", std::to_string(e.line)}})});
    }
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.order < b.order; });
    constexpr size_t kShown = 12;
    std::string text = ui.t("gui.kview.order");
    for (size_t i = 0; i < items.size() && i < kShown; ++i) text += (i ? " → " : " ") + items[i].text;
    if (items.size() > kShown) text += " " + ui.t("gui.kview.more", {{"n", std::to_string(items.size() - kShown)}});
    wrapped(text);
    ui.note_item("kview_order");
}

// The colours of the tensor layouts, as chips: read at a glance, the legend's
// sentences stay folded.
void draw_tensor_swatches(Ui& ui) {
    const float h = ImGui::GetFontSize();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const std::pair<ImU32, const char*> chips[] = {{kWritten, "gui.kview.swatch.written"}, {kRead, "gui.kview.swatch.read"},
                                                   {kBoth, "gui.kview.swatch.both"},      {kBlockRead, "gui.kview.swatch.block"}};
    bool first = true;
    for (const auto& [color, key] : chips) {
        const std::string word = ui.t(key);
        const float w = h + 4 + ImGui::CalcTextSize(word.c_str()).x;
        if (!first) {
            ImGui::SameLine(0, h);
            if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
        }
        first = false;
        const ImVec2 p = ImGui::GetCursorScreenPos();
        dl->AddRectFilled(ImVec2(p.x, p.y + 2), ImVec2(p.x + h - 2, p.y + h), color, 2.0f);
        ImGui::Dummy(ImVec2(h + 2, h));
        ImGui::SameLine(0, 2);
        ImGui::TextUnformatted(word.c_str());
    }
    ui.note_item("kview_swatches");
}

void draw_thread(Ui& ui, const emu::LaunchReport& launch) {
    CudaKernelView& v = ui.cuda_kernel;
    const unsigned t = static_cast<unsigned>(v.thread);
    const unsigned bx = std::max(launch.block.x, 1u), by = std::max(launch.block.y, 1u);
    const bool open = section(ui, ui.t("gui.kview.thread_title", {{"thread", std::to_string(t)},
                                                                  {"block", std::to_string(v.block)},
                                                                  {"x", std::to_string(t % bx)},
                                                                  {"y", std::to_string((t / bx) % by)},
                                                                  {"z", std::to_string(t / bx / by)},
                                                                  {"warp", std::to_string(t / 32)},
                                                                  {"lane", std::to_string(t % 32)}}),
                              "thread");
    ui.note_item("kview_thread");
    if (!open) return;
    draw_tensor_swatches(ui);
    legend(ui, ui.t("gui.kview.tensors_legend"), "tensors");
    // A block past the access log's end: no access shown is not "no access".
    const BlockFootprint* block = selected_footprint(v);
    const bool unrecorded = block && !block->recorded;
    if (v.thread_touches.empty()) wrapped(ui.t(unrecorded ? "gui.kview.thread_unrecorded" : "gui.kview.thread_none"));
    else {
        if (unrecorded) disabled_wrapped(ui.t("gui.kview.thread_partly_recorded"));
        draw_access_order(ui, v.thread_touches);
    }
    // The access that stopped the launch was refused, so the trace lacks it: say it.
    const emu::Fault& f = launch.fault;
    if (f.kind == emu::FaultKind::OutOfBounds && linear_block(f.block, launch.grid) == static_cast<uint64_t>(v.block) && linear_thread(f.thread, launch.block) == t) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(IM_COL32(255, 120, 110, 255)));
        ImGui::TextWrapped("%s", ui.t(f.is_write ? "gui.kview.fault_write" : "gui.kview.fault_read",
                                      {{"name", f.buffer}, {"index", std::to_string(f.index)}, {"size", std::to_string(f.size)}, {"line", std::to_string(f.line)}})
                                     .c_str());
        ImGui::PopStyleColor();
        ui.note_item("kview_fault_access");
    }
    // The output and the inputs (even untouched by this thread: the block's
    // accesses show where it works), then shared memory.
    for (const KernelBuffer& b : v.buffers) {
        int64_t reads = 0, writes = 0;
        for (const BufferTouches& t2 : v.thread_touches)
            if (t2.buffer == b.name && t2.space == MemorySpace::Global) reads = static_cast<int64_t>(t2.reads.size()), writes = static_cast<int64_t>(t2.writes.size());
        // Zero counts of a thread nobody recorded would read as "did nothing".
        const char* title = unrecorded && v.thread_touches.empty() ? "gui.kview.buffer_title_unrecorded" : "gui.kview.buffer_title";
        ImGui::TextUnformatted(ui.t(title, {{"name", b.name}, {"shape", shape_to_string(b.shape)},
                                            {"reads", format_count(reads, ui.session.lang())}, {"writes", format_count(writes, ui.session.lang())}})
                                   .c_str());
        draw_buffer_layout(ui, b.name, MemorySpace::Global, b.shape, launch);
    }
    bool fault_array_drawn = false;
    for (const BufferTouches& t2 : v.block_touches) {
        if (t2.space != MemorySpace::Shared) continue;
        fault_array_drawn |= fault_on(launch, v.block, t2.buffer, MemorySpace::Shared) != nullptr;
        int64_t reads = 0, writes = 0;
        for (const BufferTouches& mine : v.thread_touches)
            if (mine.buffer == t2.buffer && mine.space == MemorySpace::Shared) reads = static_cast<int64_t>(mine.reads.size()), writes = static_cast<int64_t>(mine.writes.size());
        ImGui::TextUnformatted(ui.t("gui.kview.shared_title", {{"name", t2.buffer}, {"reads", format_count(reads, ui.session.lang())},
                                                               {"writes", format_count(writes, ui.session.lang())}})
                                   .c_str());
        draw_buffer_layout(ui, t2.buffer, MemorySpace::Shared, {}, launch);
    }
    // The faulting shared array even when the log has no access of this block to it.
    if (!fault_array_drawn && fault_on(launch, v.block, f.buffer, MemorySpace::Shared)) {
        ImGui::TextUnformatted(ui.t("gui.kview.shared_title", {{"name", f.buffer}, {"reads", "0"}, {"writes", "0"}}).c_str());
        draw_buffer_layout(ui, f.buffer, MemorySpace::Shared, {}, launch);
    }
}

// ---- right pane: warp requests ------------------------------------------------------

std::string request_what(Ui& ui, const WarpRequest& r) {
    if (r.space == MemorySpace::Shared) return ui.t(r.is_write ? "gui.kview.shared_store" : "gui.kview.shared_load");
    return ui.t(r.is_write ? "gui.kview.global_store" : "gui.kview.global_load", {{"name", r.buffer()}});
}

std::string request_cost(const WarpRequest& r) {
    return r.space == MemorySpace::Global ? std::to_string(r.sectors.size()) : std::to_string(r.wavefronts);
}

bool draw_request_list(Ui& ui) {
    CudaKernelView& v = ui.cuda_kernel;
    if (!section(ui, ui.t("gui.kview.requests_title", {{"block", std::to_string(v.block)}, {"n", std::to_string(v.requests.size())}}), "requests")) return false;
    legend(ui, ui.t("gui.kview.requests_legend"), "requests");
    if (v.requests.empty()) {
        wrapped(ui.t("gui.kview.requests_none"));
        return false;
    }
    const float row_h = ImGui::GetTextLineHeightWithSpacing();
    const float h = row_h * static_cast<float>(std::min<size_t>(v.requests.size(), 12) + 1) + 6;
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("kview_requests", 6, flags, ImVec2(0, h))) return false;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthStretch, 0.4f);
    for (const char* k : {"gui.kview.col_warp", "gui.kview.col_access", "gui.kview.col_line", "gui.kview.col_lanes", "gui.kview.col_cost"})
        ImGui::TableSetupColumn(ui.t(k).c_str(), ImGuiTableColumnFlags_WidthStretch, k == std::string("gui.kview.col_access") ? 2.0f : 0.8f);
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(v.requests.size()));
    while (clipper.Step())
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
            const WarpRequest& r = v.requests[static_cast<size_t>(i)];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            if (ImGui::Selectable((std::to_string(i + 1) + "##req" + std::to_string(i)).c_str(), i == v.request, ImGuiSelectableFlags_SpanAllColumns))
                v.request = i;
            if (i < 64) ui.note_item("kview_request:" + std::to_string(i));
            ImGui::TableNextColumn();
            ImGui::Text("%u", r.warp);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(request_what(ui, r).c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%d", r.line);
            ImGui::TableNextColumn();
            ImGui::Text("%zu/%u", r.lanes.size(), r.warp_lanes);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(request_cost(r).c_str());
        }
    ImGui::EndTable();
    ui.note_item("kview_requests");
    return true;
}

// Lanes as boxes coloured by the sector (or bank) they touched, then the
// distinct sectors in the same colours.
void draw_lane_strip(Ui& ui, const WarpRequest& r) {
    const bool global = r.space == MemorySpace::Global;
    std::vector<uint64_t> keys;  // distinct sectors (per buffer, in r.sectors order) or banks
    if (global)
        for (const auto& s : r.sectors) keys.push_back(s.second);
    else
        for (const LaneAccess& l : r.lanes)
            if (std::find(keys.begin(), keys.end(), l.sector) == keys.end()) keys.push_back(l.sector);
    if (!global) std::sort(keys.begin(), keys.end());
    auto key_of = [&](const LaneAccess& l) -> size_t {
        if (global) {
            const auto it = std::find(r.sectors.begin(), r.sectors.end(), std::make_pair(l.buffer, l.sector));
            return static_cast<size_t>(it - r.sectors.begin());
        }
        return static_cast<size_t>(std::find(keys.begin(), keys.end(), l.sector) - keys.begin());
    };
    const float avail = ImGui::GetContentRegionAvail().x;
    const float box = std::clamp(avail / 32.0f - 2.0f, 8.0f, ImGui::GetFontSize() * 1.6f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImVec2 p = ImGui::GetCursorScreenPos();
    const bool numbers = box >= ImGui::CalcTextSize("00").x + 2;
    for (const LaneAccess& l : r.lanes) {
        const ImVec2 a(p.x + static_cast<float>(l.lane) * (box + 2), p.y);
        dl->AddRectFilled(a, ImVec2(a.x + box, a.y + box), item_color(key_of(l), keys.size()));
        if (numbers) dl->AddText(ImVec2(a.x + 1, a.y + (box - ImGui::GetFontSize()) / 2), kDarkText, std::to_string(l.lane).c_str());
    }
    ImGui::Dummy(ImVec2(32 * (box + 2), box + 4));
    ui.note_item("kview_lanes");
    // The sectors / banks themselves, as labelled chips.
    p = ImGui::GetCursorScreenPos();
    float x = p.x;
    const float chip_h = ImGui::GetFontSize() + 4;
    float y = p.y;
    for (size_t i = 0; i < keys.size(); ++i) {
        const std::string label = (global ? r.sectors[i].first + ":" : "") + std::to_string(keys[i]);
        const float w = ImGui::CalcTextSize(label.c_str()).x + 8;
        if (x + w > p.x + avail && x > p.x) {
            x = p.x;
            y += chip_h + 2;
        }
        dl->AddRectFilled(ImVec2(x, y), ImVec2(x + w, y + chip_h), item_color(i, keys.size()), 3.0f);
        dl->AddText(ImVec2(x + 4, y + 2), kDarkText, label.c_str());
        x += w + 3;
    }
    ImGui::Dummy(ImVec2(avail, y - p.y + chip_h + 2));
}

void draw_request_detail(Ui& ui) {
    CudaKernelView& v = ui.cuda_kernel;
    if (v.request < 0 || v.request >= static_cast<int>(v.requests.size())) return;
    const WarpRequest& r = v.requests[static_cast<size_t>(v.request)];
    const bool global = r.space == MemorySpace::Global;
    ImGui::TextUnformatted(ui.t("gui.kview.request_title", {{"n", std::to_string(v.request + 1)}, {"warp", std::to_string(r.warp)},
                                                            {"line", std::to_string(r.line)}, {"what", request_what(ui, r)}})
                               .c_str());
    ui.note_item("kview_request");
    const std::string lanes = std::to_string(r.lanes.size());
    ImGui::TextWrapped("%s", global ? ui.t("gui.kview.request_sectors", {{"lanes", lanes}, {"sectors", std::to_string(r.sectors.size())}}).c_str()
                                    : ui.t("gui.kview.request_banks", {{"lanes", lanes}, {"wavefronts", std::to_string(r.wavefronts)},
                                                                        {"conflicts", std::to_string(r.bank_conflicts)}})
                                          .c_str());
    if (r.partial())
        wrapped(ui.t("gui.kview.request_partial", {{"lanes", lanes}, {"warp_lanes", std::to_string(r.warp_lanes)}}));
    draw_lane_strip(ui, r);
    const KernelBuffer* b = global ? find_buffer(v.buffers, r.buffer()) : nullptr;
    const float h = ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(std::min<size_t>(r.lanes.size(), 12) + 1) + 6;
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("kview_lane_table", 4, flags, ImVec2(0, h))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    for (const char* k : {"gui.kview.col_lane", "gui.kview.col_element", "gui.kview.col_bytes", global ? "gui.kview.col_sector" : "gui.kview.col_bank"})
        ImGui::TableSetupColumn(ui.t(k).c_str());
    ImGui::TableHeadersRow();
    for (const LaneAccess& l : r.lanes) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%u", l.lane);
        ImGui::TableNextColumn();
        const std::string element = l.buffer + "[" + coords_text(unravel_index(l.index, b ? b->shape : Shape{})) + "]";
        ImGui::TextUnformatted(element.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%lld", static_cast<long long>(l.byte_address));
        ImGui::TableNextColumn();
        ImGui::Text("%llu", static_cast<unsigned long long>(l.sector));
    }
    ImGui::EndTable();
}

}  // namespace

void draw_cuda_kernel_panel(Ui& ui) {
    const CheckResult* r = ui.session.last_result();
    const Exercise* e = ui.session.current();
    const CaseOutcome* c = r && !r->cases.empty() ? view_case(ui) : nullptr;
    if (!r || !e || !c) {
        draw_no_result(ui);
        draw_resources(ui, r);
        return;
    }
    if (c->launches.empty()) {
        // "Launched no kernel" only where the case ran to its end; a timeout
        // or a crash leaves no record of what was launched.
        const bool finished = c->has_output() || c->verdict == Verdict::KernelRule || c->verdict == Verdict::KernelFault;
        if (finished) wrapped(ui.t("gui.kview.no_launches"));
        else wrapped(ui.t("gui.kview.no_launches_recorded", {{"verdict", verdict_title(c->verdict, ui.session.lang())}}));
        ui.note_item("kview_no_launches");
        draw_resources(ui, r);
        return;
    }
    refresh(ui, *e, *c);
    const emu::LaunchReport& launch = shown_launch(ui, *c);
    // Side by side where both panes get room; stacked in one scrolling pane
    // where they would not (a 1280-pixel window gives the results ~550).
    if (ImGui::GetContentRegionAvail().x < ImGui::GetFontSize() * 56) {
        ImGui::BeginChild("kview_stacked", ImVec2(0, ImGui::GetContentRegionAvail().y), false);
        ui.note_item("kview_stacked");
        draw_left(ui, *r, *c);
        draw_thread(ui, launch);
        if (draw_request_list(ui)) draw_request_detail(ui);
        draw_resources(ui, r);
        draw_roofline(ui, r);
        ImGui::EndChild();
        return;
    }
    if (!ImGui::BeginTable("kview_split", 2, ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV)) return;
    ImGui::TableSetupColumn("blocks", ImGuiTableColumnFlags_WidthStretch, 0.45f);
    ImGui::TableSetupColumn("thread", ImGuiTableColumnFlags_WidthStretch, 0.55f);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::BeginChild("kview_left", ImVec2(0, ImGui::GetContentRegionAvail().y), false);
    draw_left(ui, *r, *c);
    draw_resources(ui, r);
    draw_roofline(ui, r);
    ImGui::EndChild();
    ImGui::TableNextColumn();
    ImGui::BeginChild("kview_right", ImVec2(0, ImGui::GetContentRegionAvail().y), false);
    draw_thread(ui, launch);
    if (draw_request_list(ui)) draw_request_detail(ui);
    ImGui::EndChild();
    ImGui::EndTable();
}

}  // namespace attnlab::gui
