// Kernel tab: the reference op's CUDA kernel for the case in view. On the left the
// kernel source, read-only; on the right a picture of one launch: the grid of
// blocks labelled (batch, head), and for a selected block its threads and the
// (T, hd) slices of Q, K, V it reads; then the launch's structural counters,
// and the same attention kernel on the un-transposed (B, T, H, hd) layout
// beside the transposed one. Reads core data only (check/reference_kernel.hpp).
// This is attnlab's own kernel; where the learner writes the kernels (CUDA
// exercises) the Kernel tab shows theirs instead (draw_kernel_tab, at the
// end; panel_learner_kernels.cpp).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attnlab/core/check/reference_kernel.hpp"
#include "attnlab/core/text/number_format.hpp"
#include "attnlab/core/text/launch_words.hpp"
#include "attnlab/core/text/report.hpp"
#include "attnlab/core/base/util.hpp"
#include "ink.hpp"
#include "ui.hpp"

namespace attnlab::gui {

namespace {

// B, T, H, hd of the case, from the reference's (B,) H, T, T weights and the
// input's model width. Zeros when the case has no attention.
struct AttentionShape {
    int B = 0, T = 0, H = 0, hd = 0;
    bool valid() const { return B > 0 && T > 0 && H > 0 && hd > 0; }
};

AttentionShape attention_shape(const Exercise& e, const CaseOutcome& c) {
    AttentionShape s;
    for (const NamedTensor& st : c.stages) {
        if (st.name != "weights" || (st.tensor.shape.size() != 3 && st.tensor.shape.size() != 4)) continue;
        const Shape& sh = st.tensor.shape;
        s.B = sh.size() == 4 ? static_cast<int>(sh[0]) : 1;
        s.H = static_cast<int>(sh[sh.size() - 3]);
        s.T = static_cast<int>(sh.back());
    }
    if (s.H <= 0 || c.index >= static_cast<int>(e.cases.size())) return s;
    const Case& k = e.cases[static_cast<size_t>(c.index)];
    for (size_t i = 0; i < e.params.size() && i < k.args.size(); ++i)
        if (e.params[i].name == "x" && k.args[i].kind == ValueKind::Tensor && !k.args[i].tensor.shape.empty())
            s.hd = static_cast<int>(k.args[i].tensor.shape.back()) / s.H;
    return s;
}

// A titled separator (ImGui 1.86 has no SeparatorText).
void section(Ui& ui, const std::string& title) {
    ImGui::Spacing();
    ImGui::Separator();
    if (ui.fonts.bold) ImGui::PushFont(ui.fonts.bold);
    ImGui::TextWrapped("%s", title.c_str());
    if (ui.fonts.bold) ImGui::PopFont();
}

std::string dim_text(const std::array<unsigned, 3>& d) {
    return std::to_string(d[0]) + "×" + std::to_string(d[1]) + "×" + std::to_string(d[2]);
}

// The launch shown by default: the attention kernel, else the first.
int default_launch(const KernelOutcome& k) {
    for (size_t i = 0; i < k.launches.size(); ++i)
        if (k.launches[i].kernel.rfind("attention", 0) == 0) return static_cast<int>(i);
    return 0;
}

void draw_source(Ui& ui, const std::string& kernel_name) {
    static const std::vector<KernelSourceFile> sources = kernel_source_files();
    if (sources.empty()) return;
    KernelView& v = ui.kernel;
    if (v.file < 0 || v.file >= static_cast<int>(sources.size())) {
        v.file = 0;  // the file that holds the launch's kernel
        for (size_t i = 0; i < sources.size(); ++i)
            if (sources[i].text.find(kernel_name + "(") != std::string::npos) v.file = static_cast<int>(i);
    }
    ImGui::TextUnformatted(ui.t(msg::gui_kernel_source).c_str());
    ImGui::SameLine();
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    if (ImGui::BeginCombo("##kernel_file", sources[static_cast<size_t>(v.file)].file.c_str())) {
        for (size_t i = 0; i < sources.size(); ++i)
            if (ImGui::Selectable(sources[i].file.c_str(), static_cast<int>(i) == v.file)) v.file = static_cast<int>(i);
        ImGui::EndCombo();
    }
    ui.note_item("kernel_file");
    // Read-only: ImGui never writes through the pointer with this flag.
    std::string& text = const_cast<std::string&>(sources[static_cast<size_t>(v.file)].text);
    if (ui.fonts.mono) ImGui::PushFont(ui.fonts.mono);
    ImGui::InputTextMultiline("##kernel_source", text.data(), text.size() + 1, ImVec2(-1, -1), ImGuiInputTextFlags_ReadOnly);
    if (ui.fonts.mono) ImGui::PopFont();
    ui.note_item("kernel_source");
}

// The grid as rows of cells (grid.y rows of grid.x blocks; z folded into rows).
// One invisible button over it: a click selects the block under the mouse.
void draw_grid(Ui& ui, const KernelLaunchSummary& launch, const AttentionShape& shape) {
    const long gx = launch.grid[0], gy = static_cast<long>(launch.grid[1]) * launch.grid[2];
    const long shown_rows = std::min(gy, 64L), shown_cols = std::min(gx, 64L);
    const float avail = ImGui::GetContentRegionAvail().x;
    const float cell_w = std::clamp(avail / static_cast<float>(shown_cols), 6.0f, ImGui::GetFontSize() * 4.5f);
    const float cell_h = std::min(cell_w * 0.55f, ImGui::GetFontSize() * 1.6f);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImGui::InvisibleButton("kernel_grid", ImVec2(cell_w * static_cast<float>(shown_cols), cell_h * static_cast<float>(shown_rows)));
    ui.note_item("kernel_grid");
    if (ImGui::IsItemClicked()) {
        const ImVec2 m = ImGui::GetIO().MousePos;
        const long col = std::clamp(static_cast<long>((m.x - origin.x) / cell_w), 0L, shown_cols - 1);
        const long row = std::clamp(static_cast<long>((m.y - origin.y) / cell_h), 0L, shown_rows - 1);
        ui.kernel.selected_block = row * gx + col;
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const bool labels = cell_w > ImGui::CalcTextSize("0,00").x + 4 && cell_h >= ImGui::GetFontSize();
    for (long row = 0; row < shown_rows; ++row)
        for (long col = 0; col < shown_cols; ++col) {
            const long linear = row * gx + col;
            const ImVec2 a(origin.x + static_cast<float>(col) * cell_w, origin.y + static_cast<float>(row) * cell_h);
            const ImVec2 b(a.x + cell_w - 2, a.y + cell_h - 2);
            const KernelBlockRole role = kernel_block_role(
                launch.kernel, {static_cast<unsigned>(col), static_cast<unsigned>(row % launch.grid[1]), static_cast<unsigned>(row / launch.grid[1])},
                shape.H, shape.T);
            // One hue per head, so the blocks of a head are seen together.
            const float hue = role.head >= 0 ? static_cast<float>(role.head) / static_cast<float>(std::max(shape.H, 1)) : 0.6f;
            ImVec4 fill;
            ImGui::ColorConvertHSVtoRGB(hue, 0.45f, linear == ui.kernel.selected_block ? 0.95f : 0.55f, fill.x, fill.y, fill.z);
            const ImU32 fill_u32 = ImGui::GetColorU32(ImVec4(fill.x, fill.y, fill.z, 1.0f));
            dl->AddRectFilled(a, b, fill_u32, 2.0f);
            if (linear == ui.kernel.selected_block) dl->AddRect(a, b, IM_COL32(255, 255, 255, 255), 2.0f, 0, 2.0f);
            if (!labels) continue;
            const std::string label = role.batch >= 0 ? std::to_string(role.batch) + "," + std::to_string(role.head) : std::to_string(linear);
            const ImVec2 ts = ImGui::CalcTextSize(label.c_str());
            dl->AddText(ImVec2(a.x + (cell_w - 2 - ts.x) / 2, a.y + (cell_h - 2 - ts.y) / 2), ink_on(fill_u32), label.c_str());
            ui.items["kernel_block:" + std::to_string(linear)] = ImRect(a, b);  // tests sample its label's contrast
        }
}

// Q, K, V as B·H stacked (T, hd) slices; the selected block's slice is
// highlighted: its query rows in Q, the keys it may attend to in K and V.
void draw_slices(const AttentionShape& shape, const KernelBlockRole& role) {
    const int slices = shape.B * shape.H;
    if (slices <= 0 || shape.T <= 0) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float w = ImGui::GetFontSize() * 3.2f, gap = ImGui::GetFontSize();
    const float h = std::min(ImGui::GetFontSize() * 12, std::max(ImGui::GetFontSize() * 5, 6.0f * static_cast<float>(slices)));
    const float slice_h = h / static_cast<float>(slices);
    // Slices labelled (batch, head) on the left when they are tall enough.
    const bool labelled = slice_h >= ImGui::GetFontSize();
    const float label_w = labelled ? ImGui::CalcTextSize("00,00 ").x : 0.0f;
    const ImVec2 p(ImGui::GetCursorScreenPos().x + label_w, ImGui::GetCursorScreenPos().y);
    if (labelled)
        for (int s = 0; s < slices; ++s) {
            const std::string l = std::to_string(s / shape.H) + "," + std::to_string(s % shape.H);
            dl->AddText(ImVec2(p.x - label_w, p.y + ImGui::GetFontSize() * 1.2f + static_cast<float>(s) * slice_h + (slice_h - ImGui::GetFontSize()) / 2),
                        ImGui::GetColorU32(ImGuiCol_TextDisabled), l.c_str());
        }
    const char* names[] = {"Q", "K", "V"};
    const int selected = role.batch * shape.H + role.head;
    for (int t = 0; t < 3; ++t) {
        const float x = p.x + static_cast<float>(t) * (w + gap);
        dl->AddText(ImVec2(x + w / 2 - 4, p.y), ImGui::GetColorU32(ImGuiCol_Text), names[t]);
        const float y0 = p.y + ImGui::GetFontSize() * 1.2f;
        for (int s = 0; s < slices; ++s) {
            const ImVec2 a(x, y0 + static_cast<float>(s) * slice_h), b(x + w, y0 + static_cast<float>(s + 1) * slice_h - 1);
            dl->AddRectFilled(a, b, s == selected ? IM_COL32(70, 70, 70, 255) : IM_COL32(55, 55, 60, 255));
            if (s != selected) continue;
            // Rows read: Q's rows of this block; K and V up to its last row (causal).
            const int r0 = t == 0 ? role.row_begin : 0, r1 = role.row_end;
            const float ya = a.y + (b.y - a.y) * static_cast<float>(r0) / static_cast<float>(shape.T);
            const float yb = a.y + (b.y - a.y) * static_cast<float>(r1) / static_cast<float>(shape.T);
            dl->AddRectFilled(ImVec2(a.x, ya), ImVec2(b.x, std::max(yb, ya + 2)), IM_COL32(240, 150, 40, 255));
            dl->AddRect(a, b, IM_COL32(255, 255, 255, 255));
        }
    }
    ImGui::Dummy(ImVec2(label_w + 3 * (w + gap), h + ImGui::GetFontSize() * 1.4f));
}

// Threads as small squares, one row per warp.
void draw_threads(const KernelLaunchSummary& launch) {
    const long threads = static_cast<long>(launch.block[0]) * launch.block[1] * launch.block[2];
    const long warps = (threads + 31) / 32;
    const float sq = std::max(4.0f, ImGui::GetFontSize() * 0.45f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const long shown = std::min(warps, 32L);
    for (long w = 0; w < shown; ++w)
        for (long lane = 0; lane < 32 && w * 32 + lane < threads; ++lane) {
            const ImVec2 a(p.x + static_cast<float>(lane) * (sq + 1), p.y + static_cast<float>(w) * (sq + 1));
            dl->AddRectFilled(a, ImVec2(a.x + sq, a.y + sq), w % 2 ? IM_COL32(90, 160, 220, 255) : IM_COL32(120, 190, 240, 255));
        }
    ImGui::Dummy(ImVec2(32 * (sq + 1), static_cast<float>(shown) * (sq + 1)));
}

void draw_selected_block(Ui& ui, const KernelLaunchSummary& launch, const AttentionShape& shape) {
    const long gx = launch.grid[0];
    const long total = gx * static_cast<long>(launch.grid[1]) * launch.grid[2];
    long& sel = ui.kernel.selected_block;
    if (sel < 0 || sel >= total) sel = 0;
    const std::array<unsigned, 3> block = {static_cast<unsigned>(sel % gx), static_cast<unsigned>((sel / gx) % launch.grid[1]),
                                           static_cast<unsigned>(sel / gx / launch.grid[1])};
    const KernelBlockRole role = kernel_block_role(launch.kernel, block, shape.H, shape.T);
    const long threads = static_cast<long>(launch.block[0]) * launch.block[1] * launch.block[2];
    ImGui::BeginGroup();
    if (role.batch >= 0) {
        ImGui::TextUnformatted(ui.t(msg::gui_kernel_block, {{"x", std::to_string(block[0])}, {"y", std::to_string(block[1])},
                                                          {"b", std::to_string(role.batch)}, {"h", std::to_string(role.head)},
                                                          {"r0", std::to_string(role.row_begin)}, {"r1", std::to_string(role.row_end - 1)}})
                                   .c_str());
    }
    ui.note_item("kernel_block");
    ImGui::TextDisabled("%s", ui.t(msg::gui_kernel_threads, {{"n", format_count(threads, ui.session.lang())}, {"warps", format_count((threads + 31) / 32, ui.session.lang())}}).c_str());
    draw_threads(launch);
    ImGui::EndGroup();
    if (role.batch < 0 || !shape.valid()) return;
    ImGui::BeginGroup();
    ImGui::TextWrapped("%s", ui.t(msg::gui_kernel_reads, {{"T", std::to_string(shape.T)}, {"hd", std::to_string(shape.hd)},
                                                         {"b", std::to_string(role.batch)}, {"h", std::to_string(role.head)}})
                                 .c_str());
    draw_slices(shape, role);
    ImGui::EndGroup();
}

void draw_layout_comparison(Ui& ui, const AttentionShape& shape) {
    if (!shape.valid()) return;
    section(ui, ui.t(msg::gui_kernel_layouts, {{"B", std::to_string(shape.B)}, {"T", std::to_string(shape.T)},
                                                      {"H", std::to_string(shape.H)}, {"hd", std::to_string(shape.hd)}}));
    const LayoutCountersView& v = attention_layout_counters(shape.B, shape.T, shape.H, shape.hd);
    if (!v.available) {
        ImGui::TextDisabled("%s", ui.t(msg::gui_kernel_layout_missing).c_str());
        return;
    }
    if (ImGui::BeginTable("kernel_layouts", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch, 2.0f);
        ImGui::TableSetupColumn(ui.t(msg::gui_kernel_transposed).c_str(), ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableSetupColumn(ui.t(msg::gui_kernel_untransposed).c_str(), ImGuiTableColumnFlags_WidthStretch, 1.0f);
        ImGui::TableHeadersRow();
        auto row = [&](MessageKey key, const std::string& a, const std::string& b) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(ui.t(key).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(a.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(b.c_str());
        };
        const Lang lang = ui.session.lang();
        row(msg::gui_kernel_sectors, format_fixed(v.transposed.sectors_per_load_request, 2, lang), format_fixed(v.untransposed.sectors_per_load_request, 2, lang));
        const auto count = [&](int64_t n) { return format_count(n, lang); };
        row(msg::gui_kernel_requests, count(v.global_load_requests[0]), count(v.global_load_requests[1]));
        row(msg::gui_kernel_pages, count(v.transposed.global_pages), count(v.untransposed.global_pages));
        row(msg::gui_kernel_conflicts, count(v.transposed.shared_bank_conflicts), count(v.untransposed.shared_bank_conflicts));
        ImGui::EndTable();
    }
    ui.note_item("kernel_layouts");
    ImGui::TextWrapped("%s", ui.t(msg::gui_kernel_layouts_legend).c_str());
    // Said as measured: equal or not, fewer pages or not (tiny shapes fit in a few pages either way).
    const bool same = std::fabs(v.transposed.sectors_per_load_request - v.untransposed.sectors_per_load_request) < 1e-9;
    ImGui::TextWrapped("%s", ui.t(same ? msg::gui_kernel_same_sectors : msg::gui_kernel_different_sectors).c_str());
    const bool fewer = v.transposed.global_pages < v.untransposed.global_pages;
    ImGui::TextWrapped("%s", ui.t(fewer ? msg::gui_kernel_fewer_pages : msg::gui_kernel_no_fewer_pages).c_str());
}

void draw_launch(Ui& ui, const KernelOutcome& k, const CaseOutcome& c, const AttentionShape& shape) {
    KernelView& v = ui.kernel;
    if (v.launch < 0 || v.launch >= static_cast<int>(k.launches.size())) v.launch = default_launch(k);
    const KernelLaunchSummary& launch = k.launches[static_cast<size_t>(v.launch)];
    ImGui::TextUnformatted(ui.t(msg::gui_kernel_launches, {{"case", std::to_string(c.index + 1)}, {"backend", cuda_backend_text(k, ui.session.lang())}}).c_str());
    auto line = [&](const KernelLaunchSummary& l) {
        return ui.t(msg::gui_kernel_launch_line, {{"kernel", l.kernel}, {"grid", dim_text(l.grid)}, {"block", dim_text(l.block)}});
    };
    ImGui::SetNextItemWidth(-1);
    if (ImGui::BeginCombo("##kernel_launch", line(launch).c_str())) {
        for (size_t i = 0; i < k.launches.size(); ++i)
            if (ImGui::Selectable((std::to_string(i + 1) + ". " + line(k.launches[i])).c_str(), static_cast<int>(i) == v.launch)) {
                v.launch = static_cast<int>(i);
                v.selected_block = -1;
                v.file = -1;
            }
        ImGui::EndCombo();
    }
    ui.note_item("kernel_launch");
    const std::string layout = kernel_layout_text(launch.kernel, ui.session.lang());
    if (!layout.empty()) ImGui::TextWrapped("%s", layout.c_str());
    section(ui, ui.t(msg::gui_kernel_grid_title, {{"kernel", launch.kernel}}));
    draw_grid(ui, launch, shape);
    ImGui::TextDisabled("%s", ui.t(msg::gui_kernel_select_hint).c_str());
    draw_selected_block(ui, launch, shape);
    // The two layouts first: the comparison is the lesson; the full counters follow.
    if (launch.kernel.rfind("attention", 0) == 0) draw_layout_comparison(ui, shape);
    section(ui, ui.t(msg::gui_kernel_counters));
    if (!launch.counters) ImGui::TextDisabled("%s", ui.t(msg::gui_kernel_gpu_counters).c_str());
    else ImGui::TextWrapped("%s", describe_counters(*launch.counters, ui.session.lang()).c_str());
    ui.note_item("kernel_counters");
}

void draw_reference_kernel_panel(Ui& ui) {
    const CheckResult* r = ui.session.last_result();
    const Exercise* e = ui.session.current();
    const CaseOutcome* c = r && !r->cases.empty() ? view_case(ui) : nullptr;
    if (!r || !e || !c) {
        draw_no_result(ui);
        return;
    }
    if (!c->reference_kernel || c->reference_kernel->launches.empty()) {
        ImGui::TextWrapped("%s", ui.t(msg::gui_kernel_none).c_str());
        return;
    }
    const KernelOutcome& k = *c->reference_kernel;
    const AttentionShape shape = attention_shape(*e, *c);
    KernelView& v = ui.kernel;
    if (v.launch < 0 || v.launch >= static_cast<int>(k.launches.size())) v.launch = default_launch(k);
    if (ImGui::BeginTable("kernel_split", 2, ImGuiTableFlags_Resizable | ImGuiTableFlags_BordersInnerV)) {
        ImGui::TableSetupColumn("source", ImGuiTableColumnFlags_WidthStretch, 0.42f);
        ImGui::TableSetupColumn("launch", ImGuiTableColumnFlags_WidthStretch, 0.58f);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::BeginChild("kernel_source_pane", ImVec2(0, ImGui::GetContentRegionAvail().y), false);
        draw_source(ui, k.launches[static_cast<size_t>(v.launch)].kernel);
        ImGui::EndChild();
        ImGui::TableNextColumn();
        ImGui::BeginChild("kernel_launch_pane", ImVec2(0, ImGui::GetContentRegionAvail().y), false);
        draw_launch(ui, k, *c, shape);
        ImGui::EndChild();
        ImGui::EndTable();
    }
}

}  // namespace

void draw_kernel_tab(Ui& ui) {
    const Exercise* e = ui.session.current();
    if (e && e->profile().learner_writes_kernels) {  // the learner's own kernels, not attnlab's
        draw_learner_kernels_panel(ui);
        return;
    }
    draw_reference_kernel_panel(ui);
}

}  // namespace attnlab::gui
