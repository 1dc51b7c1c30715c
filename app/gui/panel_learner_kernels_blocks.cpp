// The learner's Kernel tab: the grid of blocks, each labelled with the slice
// of the output it wrote (the faulted one red), the selected block in words,
// and its recording after the check where the check's log did not reach it.
#include <algorithm>
#include <cfloat>

#include "attnlab/common/protocol.hpp"
#include "attnlab/core/text/number_format.hpp"
#include "attnlab/core/text/report.hpp"
#include "ink.hpp"
#include "panel_learner_kernels.hpp"

namespace attnlab::gui::learner_kernels {

namespace {

const ImU32 kIdle = IM_COL32(70, 70, 74, 255);

std::string block_text(Ui& ui, const BlockFootprint& f, const std::string& out) {
    const Lang lang = ui.session.lang();  // counts grouped as the language writes them (26,304 / 26.304)
    const std::map<std::string, std::string> id = {{"id", std::to_string(f.block)},
                                                   {"x", std::to_string(f.index.x)},
                                                   {"y", std::to_string(f.index.y)},
                                                   {"z", std::to_string(f.index.z)},
                                                   {"out", out},
                                                   {"reads", format_count(f.global_reads, lang)}};
    if (f.stopped) return ui.t(msg::gui_kview_block_stopped, id);
    if (f.unchecked) return ui.t(msg::gui_kview_block_unchecked, id);
    if (f.unknown()) return ui.t(msg::gui_kview_block_unrecorded, id);
    if (!f.wrote_output() && f.global_writes > 0) {  // a helper kernel's block: it wrote a buffer of its own
        std::map<std::string, std::string> args = id;
        args["writes"] = format_count(f.global_writes, lang);
        return ui.t(msg::gui_kview_block_wrote_elsewhere, args);
    }
    if (!f.wrote_output()) return ui.t(msg::gui_kview_block_idle, id);
    std::map<std::string, std::string> args = id;
    args["slice"] = f.written.empty() ? ui.t(msg::gui_kview_block_whole, {{"out", out}}) : describe_slice(f.written, lang);
    args["writes"] = format_count(f.output_writes, lang);
    args["sreads"] = format_count(f.shared_reads, lang);
    args["swrites"] = format_count(f.shared_writes, lang);
    return ui.t(msg::gui_kview_block_wrote, args);
}

ImU32 block_color(const BlockFootprint& f, int64_t numel, bool selected) {
    if (f.faulted) return kFault;
    if (f.unknown()) return selected ? IM_COL32(66, 72, 96, 255) : IM_COL32(44, 50, 72, 255);  // unknown, not idle: hatched, with "?"
    if (f.unchecked) return selected ? IM_COL32(86, 104, 112, 255) : IM_COL32(56, 70, 76, 255);  // not idle either: with a dot
    if (!f.wrote_output()) return selected ? IM_COL32(120, 120, 126, 255) : kIdle;
    // Where in the output it wrote, on viridis (the lighter two thirds, so the
    // dark labels stay readable): neighbouring slices look alike, and the
    // order reads with any colour vision.
    const double at = numel > 0 ? static_cast<double>(f.first_written) / static_cast<double>(numel) : 0.0;
    const Rgba c = map_color(ColorMap::Viridis, 0.38 + 0.62 * std::clamp(at, 0.0, 1.0));
    const float k = selected ? 1.0f : 0.85f;
    return IM_COL32(static_cast<int>(c[0] * k), static_cast<int>(c[1] * k), static_cast<int>(c[2] * k), 255);
}

// A block nobody recorded, at any cell size: a hatch (a shape, never a shade
// of "wrote nothing") and a "?" as large as the cell allows.
void mark_unknown(ImDrawList* dl, ImVec2 a, ImVec2 z) {
    const ImU32 line = IM_COL32(150, 160, 200, 200);
    dl->PushClipRect(a, z, true);
    const float h = z.y - a.y;
    const float step = std::max(4.0f, h * 0.6f);
    for (float x = a.x - h; x < z.x; x += step) dl->AddLine(ImVec2(x, z.y), ImVec2(x + h, a.y), line, 1.0f);
    const float size = std::min(ImGui::GetFontSize(), std::min(z.x - a.x, h) * 1.1f);
    if (size >= 6.0f) {
        const ImVec2 ts = ImGui::GetFont()->CalcTextSizeA(size, FLT_MAX, 0.0f, "?");
        dl->AddText(ImGui::GetFont(), size, ImVec2(a.x + (z.x - a.x - ts.x) / 2, a.y + (h - ts.y) / 2), IM_COL32(235, 235, 245, 255), "?");
    }
    dl->PopClipRect();
}

// A block that ran the kernel's unchecked copy: a dot, as large as the cell
// allows (a shape again, so it reads without telling colours apart).
void mark_unchecked(ImDrawList* dl, ImVec2 a, ImVec2 z) {
    const float radius = std::max(1.5f, std::min(z.x - a.x, z.y - a.y) * 0.14f);
    dl->AddCircleFilled(ImVec2((a.x + z.x) / 2, (a.y + z.y) / 2), radius, IM_COL32(200, 215, 220, 230));
}

// Blocks by what is known of them, for the summary line of a large grid.
struct GridCounts {
    long wrote = 0, idle = 0, unknown = 0, unchecked = 0;
};
GridCounts count_blocks(const std::vector<BlockFootprint>& blocks) {
    GridCounts n;
    for (const BlockFootprint& f : blocks) {
        if (f.unchecked) ++n.unchecked;
        else if (f.unknown()) ++n.unknown;
        else if (f.wrote_output()) ++n.wrote;
        else ++n.idle;
    }
    return n;
}

// Grids larger than this are a compact map (no labels, a few lines high,
// scrolling) with the counts above it: the selected block is described below
// it, and the rest of the tab is not pushed out of sight.
constexpr long kCompactAbove = 128;

// The grid: grid.x columns and grid.y·grid.z rows; a one-row grid (or a
// compact map) wraps to the pane.
void draw_block_grid(Ui& ui, const emu::LaunchReport& launch, const std::string& out, int64_t numel) {
    CudaKernelView& v = ui.cuda_kernel;
    const long count = static_cast<long>(v.blocks.size());
    if (count == 0) {  // an empty grid (the fault line says why) or one too large to draw
        if (launch.grid.count() > 0)
            ImGui::TextDisabled("%s", ui.t(msg::gui_kview_grid_too_large, {{"n", std::to_string(launch.grid.count())}}).c_str());
        return;
    }
    constexpr long kMaxCells = 4096;
    const long shown = std::min(count, kMaxCells);
    const bool compact = count > kCompactAbove;
    const Lang lang = ui.session.lang();
    if (compact) {
        const GridCounts n = count_blocks(v.blocks);
        wrapped(ui.t(msg::gui_kview_grid_summary, {{"n", format_count(count, lang)}, {"wrote", format_count(n.wrote, lang)}, {"out", out},
                                                {"idle", format_count(n.idle, lang)}, {"unknown", format_count(n.unknown, lang)}}));
        ui.note_item("kview_grid_summary");
        if (n.unchecked > 0) {
            wrapped(ui.t(msg::gui_kview_grid_unchecked, {{"unchecked", format_count(n.unchecked, lang)}}));
            ui.note_item("kview_grid_unchecked");
        }
    }
    size_t widest = 1;
    for (long b = 0; b < shown && !compact; ++b) widest = std::max(widest, slice_values(v.blocks[static_cast<size_t>(b)].written).size());
    const float font = ImGui::GetFontSize();
    const float avail = ImGui::GetContentRegionAvail().x - (compact ? ImGui::GetStyle().ScrollbarSize : 0.0f);
    const float label_w = ImGui::CalcTextSize(std::string(std::min<size_t>(widest, 9), '0').c_str()).x + 8.0f;
    long cols = static_cast<long>(launch.grid.x);
    if (launch.grid.y * launch.grid.z == 1 || compact) {
        const float min_cell = compact ? font * 0.7f : std::max(label_w, font * 1.4f);
        cols = std::clamp(static_cast<long>(avail / min_cell), 1L, compact ? shown : std::max(cols, 1L));
    }
    const long rows = (shown + cols - 1) / cols;
    v.grid_columns = cols;
    const float cell_w = std::clamp(avail / static_cast<float>(cols), 6.0f, compact ? font : font * 6.0f);
    const float cell_h = std::clamp(std::min(cell_w, font * 1.5f), 5.0f, compact ? font * 0.8f : font * 1.5f);
    const float grid_h = cell_h * static_cast<float>(rows);
    const float map_h = compact ? std::min(grid_h, font * 7.0f) : grid_h;
    if (compact) ImGui::BeginChild("kview_grid_map", ImVec2(0, map_h + 2), false);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("kview_grid", ImVec2(cell_w * static_cast<float>(cols), grid_h));
    ui.note_item("kview_grid");
    const bool hovered = ImGui::IsItemHovered();
    const ImVec2 m = ImGui::GetIO().MousePos;
    const long hover_col = static_cast<long>((m.x - origin.x) / cell_w), hover_row = static_cast<long>((m.y - origin.y) / cell_h);
    const long under = hovered ? std::clamp(hover_row, 0L, rows - 1) * cols + std::clamp(hover_col, 0L, cols - 1) : -1;
    if (ImGui::IsItemClicked() && under >= 0 && under < shown) v.block = under;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const bool labels = !compact && cell_w >= label_w && cell_h >= font;
    v.unknown_marked = 0;
    for (long b = 0; b < shown; ++b) {
        const BlockFootprint& f = v.blocks[static_cast<size_t>(b)];
        const ImVec2 a(origin.x + static_cast<float>(b % cols) * cell_w, origin.y + static_cast<float>(b / cols) * cell_h);
        const ImVec2 z(a.x + cell_w - 2, a.y + cell_h - 2);
        dl->AddRectFilled(a, z, block_color(f, numel, b == v.block), 2.0f);
        if (f.unknown() && !f.faulted) {
            mark_unknown(dl, a, z);
            ++v.unknown_marked;
        }
        if (f.unchecked && !f.faulted) mark_unchecked(dl, a, z);
        if (b == v.block) dl->AddRect(ImVec2(a.x - 1, a.y - 1), ImVec2(z.x + 1, z.y + 1), IM_COL32(255, 255, 255, 255), 2.0f, 0, 2.0f);
        if (!labels || f.unknown() || f.unchecked) continue;
        const std::string label = f.wrote_output() ? (f.written.empty() ? "*" : slice_values(f.written)) : "–";
        const ImVec2 ts = ImGui::CalcTextSize(label.c_str());
        if (ts.x > cell_w - 4) continue;
        dl->AddText(ImVec2(a.x + (cell_w - 2 - ts.x) / 2, a.y + (cell_h - 2 - ts.y) / 2), ink_on(block_color(f, numel, b == v.block)),
                    label.c_str());  // black or white, whichever reads on the block's colour
    }
    if (compact) {
        // The selected block in sight when it was chosen elsewhere (the fault's block, a launch switch).
        if (v.block != v.grid_scrolled_to && v.block >= 0 && v.block < shown) {
            ImGui::SetScrollY(std::max(0.0f, static_cast<float>(v.block / cols) * cell_h - map_h / 2));
            v.grid_scrolled_to = v.block;
        }
        ImGui::EndChild();
    }
    if (under >= 0 && under < shown && pointer_moved()) wrapped_tooltip(block_text(ui, v.blocks[static_cast<size_t>(under)], out));
    if (shown < count) ImGui::TextDisabled("%s", ui.t(msg::gui_kview_grid_too_large, {{"n", std::to_string(count)}}).c_str());
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
        wrapped(ui.t(f.recorded ? msg::gui_kview_block_recorded_alone : msg::gui_kview_block_partly_recorded, id));
        ui.note_item("kview_block_recorded");
        return;  // recording it again would give the same accesses
    }
    if (f.recorded) return;
    // The log filled inside this block: what it wrote so far is drawn, the rest is unknown.
    if (f.wrote_output()) wrapped(ui.t(msg::gui_kview_block_log_filled, id));
    const BlockRecordingRequest* running = ui.session.recording_block();
    if (running && running->case_index == case_index && running->launch == launch && running->block == f.block) {
        ImGui::TextDisabled("%s", ui.t(msg::gui_kview_block_recording, id).c_str());
        ui.note_item("kview_block_recording");
        return;
    }
    for (const BlockRecording& r : ui.session.recorded_blocks())
        if (r.case_index == case_index && r.launch == launch && r.block == f.block && !r.usable()) {
            const std::string why = r.problem == BlockRecording::Problem::LaunchMissing
                                        ? ui.t(msg::gui_kview_record_no_launch, {{"launch", std::to_string(launch + 1)}})
                                        : ui.t(msg::gui_kview_record_run_failed, {{"verdict", verdict_title(r.rerun_verdict, ui.session.lang())}});
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.3f, 1.0f));
            wrapped(ui.t(msg::gui_kview_record_failed, {{"id", id.at("id")}, {"why", why}}));
            ImGui::PopStyleColor();
        }
    ImGui::BeginDisabled(running != nullptr);  // one recording at a time
    if (ImGui::Button(ui.t(msg::gui_kview_record_block).c_str())) ui.session.record_block(case_index, launch, f.block);
    ImGui::EndDisabled();
    ui.note_item("kview_record_block");
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled) && pointer_moved()) wrapped_tooltip(ui.t(msg::gui_kview_record_block_tip));
}

}  // namespace

void draw_blocks(Ui& ui, const emu::LaunchReport& launch, const KernelBuffer& out, int64_t numel) {
    CudaKernelView& v = ui.cuda_kernel;
    std::string how = ui.t(msg::gui_kview_grid_legend, {{"out", out.name}});
    if (!out.axes.empty()) {
        std::string axes;
        for (size_t a = 0; a < out.axes.size(); ++a) {
            const AxisSpan named{static_cast<int>(a), out.axes[a], 0, 0};
            const std::string word = describe_slice({named}, ui.session.lang());  // "batch 0"
            axes += (a ? ", " : "") + word.substr(0, word.rfind(' '));
        }
        how += " " + ui.t(msg::gui_kview_grid_axes, {{"axes", axes}});
    }
    legend(ui, how, "blocks");
    if (launch.trace_truncated) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.75f, 0.3f, 1.0f));
        wrapped(ui.t(msg::gui_kview_trace_truncated_record));
        ImGui::PopStyleColor();
        ui.note_item("kview_trace_truncated");
    }
    draw_block_grid(ui, launch, out.name, numel);
    if (v.block >= 0 && v.block < static_cast<long>(v.blocks.size())) {
        const BlockFootprint& f = v.blocks[static_cast<size_t>(v.block)];
        wrapped(block_text(ui, f, out.name));
        ui.note_item("kview_block");
        if (f.faulted) ImGui::TextColored(ImVec4(1.0f, 0.47f, 0.43f, 1.0f), "%s", ui.t(msg::gui_kview_block_faulted).c_str());
        draw_block_recording(ui, f);
    }
}

}  // namespace attnlab::gui::learner_kernels
