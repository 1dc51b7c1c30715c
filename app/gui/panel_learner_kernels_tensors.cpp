// The learner's Kernel tab: what the selected thread read and wrote, drawn
// over each tensor's layout (and the block's shared arrays), its accesses in
// order, and a fault on an element where it falls.
#include <algorithm>

#include "attnlab/core/text/number_format.hpp"
#include "panel_learner_kernels.hpp"

namespace attnlab::gui::learner_kernels {

namespace {

const ImU32 kRead = IM_COL32(70, 150, 240, 255);
const ImU32 kWritten = IM_COL32(245, 150, 40, 255);
const ImU32 kBoth = IM_COL32(170, 90, 220, 255);
const ImU32 kBlockRead = IM_COL32(55, 80, 115, 255);
const ImU32 kBlockWritten = IM_COL32(120, 85, 45, 255);

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
    ImGui::TextWrapped("%s", ui.t(after ? msg::gui_kview_past_end : msg::gui_kview_before_start,
                                  {{"name", name}, {"index", std::to_string(f.index)}, {"size", format_count(numel, ui.session.lang())}, {"over", format_count(over, ui.session.lang())}})
                                 .c_str());
    ImGui::PopStyleColor();
    ui.note_item("kview_outside:" + name);
}

// A racecheck fault in words under the array: the element and both threads.
void draw_race_caption(Ui& ui, const emu::LaunchReport& launch, const emu::Fault& f) {
    const auto access = [&](bool write) { return ui.t(write ? msg::gui_kview_race_wrote : msg::gui_kview_race_read); };
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(IM_COL32(255, 120, 110, 255)));
    ImGui::TextWrapped("%s", ui.t(msg::gui_kview_race_caption, {{"index", std::to_string(f.index)},
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
    const float avail = ImGui::GetContentRegionAvail().x;
    const TileLayout t = tile_layout(shape, numel, avail, font * 15.0f, font);
    // Cells have a least size: a picture wider than the pane scrolls sideways
    // rather than being cut off at its right edge.
    const bool scroll = t.size().x > avail;
    if (scroll)
        ImGui::BeginChild(("kview_scroll:" + name).c_str(), ImVec2(0, t.size().y + ImGui::GetStyle().ScrollbarSize + 4), false,
                          ImGuiWindowFlags_HorizontalScrollbar);
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
    if (scroll) {
        ImGui::EndChild();
        ui.note_item("kview_scroll:" + name);
    }
    if (fault && (fault->index < 0 || fault->index >= numel)) draw_outside_index(ui, name, *fault, numel);
    if (fault && fault->kind == emu::FaultKind::SharedRace) draw_race_caption(ui, launch, *fault);
    if (!hovered || !pointer_moved()) return;
    const ImVec2 mp = ImGui::GetIO().MousePos;
    const int64_t index = t.index_at(ImVec2(mp.x - origin.x, mp.y - origin.y));
    if (index < 0) return;
    std::string tip = ui.t(msg::gui_kview_cell, {{"name", name}, {"coords", coords_text(unravel_index(index, shape))}, {"index", std::to_string(index)}});
    const auto it = marks.find(index);
    const int m = it == marks.end() ? 0 : it->second;
    if (m & 1) tip += "\n" + ui.t(msg::gui_kview_cell_read);
    if (m & 2) tip += "\n" + ui.t(msg::gui_kview_cell_written);
    if ((m & 12) && !(m & 3)) tip += "\n" + ui.t(msg::gui_kview_cell_block);
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
            items.push_back({e.order, ui.t(msg::gui_kview_read_at, {{"name", t.buffer}, {"coords", coords_text(e.coords)}, {"line", std::to_string(e.line)}})});
        for (const ElementTouch& e : t.writes)
            items.push_back({e.order, ui.t(msg::gui_kview_wrote_at, {{"name", t.buffer}, {"coords", coords_text(e.coords)}, {"line", std::to_string(e.line)}})});
    }
    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.order < b.order; });
    constexpr size_t kShown = 12;
    std::string text = ui.t(msg::gui_kview_order);
    for (size_t i = 0; i < items.size() && i < kShown; ++i) text += (i ? " → " : " ") + items[i].text;
    if (items.size() > kShown) text += " " + ui.t(msg::gui_kview_more, {{"n", format_count(static_cast<int64_t>(items.size() - kShown), ui.session.lang())}});
    wrapped(text);
    ui.note_item("kview_order");
}

// The colours of the tensor layouts, as chips: read at a glance, the legend's
// sentences stay folded.
void draw_tensor_swatches(Ui& ui) {
    const float h = ImGui::GetFontSize();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const std::pair<ImU32, MessageKey> chips[] = {{kWritten, msg::gui_kview_swatch_written}, {kRead, msg::gui_kview_swatch_read},
                                                   {kBoth, msg::gui_kview_swatch_both},      {kBlockRead, msg::gui_kview_swatch_block}};
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

}  // namespace

void draw_selected_thread(Ui& ui, const emu::LaunchReport& launch) {
    CudaKernelView& v = ui.cuda_kernel;
    const unsigned t = static_cast<unsigned>(v.thread);
    const unsigned bx = std::max(launch.block.x, 1u), by = std::max(launch.block.y, 1u);
    const bool open = section(ui, ui.t(msg::gui_kview_thread_title, {{"thread", std::to_string(t)},
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
    legend(ui, ui.t(msg::gui_kview_tensors_legend), "tensors");
    // A block past the access log's end: no access shown is not "no access".
    const BlockFootprint* block = selected_footprint(v);
    const bool unrecorded = block && !block->recorded;
    if (v.thread_touches.empty()) wrapped(ui.t(unrecorded ? msg::gui_kview_thread_unrecorded : msg::gui_kview_thread_none));
    else {
        if (unrecorded) disabled_wrapped(ui.t(msg::gui_kview_thread_partly_recorded));
        draw_access_order(ui, v.thread_touches);
    }
    // The access that stopped the launch was refused, so the trace lacks it: say it.
    const emu::Fault& f = launch.fault;
    if (f.kind == emu::FaultKind::OutOfBounds && linear_block(f.block, launch.grid) == static_cast<uint64_t>(v.block) && linear_thread(f.thread, launch.block) == t) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(IM_COL32(255, 120, 110, 255)));
        ImGui::TextWrapped("%s", ui.t(f.is_write ? msg::gui_kview_fault_write : msg::gui_kview_fault_read,
                                      {{"name", f.buffer}, {"index", std::to_string(f.index)}, {"size", format_count(f.size, ui.session.lang())}, {"line", std::to_string(f.line)}})
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
        MessageKey title = unrecorded && v.thread_touches.empty() ? msg::gui_kview_buffer_title_unrecorded : msg::gui_kview_buffer_title;
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
        ImGui::TextUnformatted(ui.t(msg::gui_kview_shared_title, {{"name", t2.buffer}, {"reads", format_count(reads, ui.session.lang())},
                                                               {"writes", format_count(writes, ui.session.lang())}})
                                   .c_str());
        draw_buffer_layout(ui, t2.buffer, MemorySpace::Shared, {}, launch);
    }
    // The faulting shared array even when the log has no access of this block to it.
    if (!fault_array_drawn && fault_on(launch, v.block, f.buffer, MemorySpace::Shared)) {
        ImGui::TextUnformatted(ui.t(msg::gui_kview_shared_title, {{"name", f.buffer}, {"reads", "0"}, {"writes", "0"}}).c_str());
        draw_buffer_layout(ui, f.buffer, MemorySpace::Shared, {}, launch);
    }
}

}  // namespace attnlab::gui::learner_kernels
