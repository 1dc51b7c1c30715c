// Shapes and memory layout: the split-heads pipeline with shape and strides
// at each step, the learner's tensors beside the reference's, and a memory
// strip showing the same buffer before and after the transpose, coloured by
// head, so one sees each head's slice become contiguous.
#include "attnlab/core/base/util.hpp"
#include "attnlab/core/text/number_format.hpp"
#include "ui.hpp"

namespace attnlab::gui {

namespace {

// Okabe–Ito, then a few more: distinguishable with colour-vision deficiencies.
ImU32 head_color(int64_t h) {
    static const ImU32 palette[] = {IM_COL32(230, 159, 0, 255),   IM_COL32(86, 180, 233, 255),  IM_COL32(0, 158, 115, 255),
                                    IM_COL32(240, 228, 66, 255),  IM_COL32(0, 114, 178, 255),   IM_COL32(213, 94, 0, 255),
                                    IM_COL32(204, 121, 167, 255), IM_COL32(170, 170, 170, 255), IM_COL32(120, 80, 40, 255),
                                    IM_COL32(90, 60, 160, 255),   IM_COL32(40, 120, 60, 255),   IM_COL32(160, 40, 60, 255)};
    return palette[static_cast<size_t>(h) % (sizeof palette / sizeof palette[0])];
}

// Start from the current case: its first tensor input and an int named n_heads.
void initialise_from_case(Ui& ui) {
    LayoutView& v = ui.layout;
    v.initialised = true;
    const Exercise* e = ui.session.current();
    if (!e || e->cases.empty()) return;
    const Case& c = e->cases.front();
    int64_t heads = 0;
    const TensorData* x = nullptr;
    for (size_t i = 0; i < e->params.size() && i < c.args.size(); ++i) {
        if (e->params[i].kind == ValueKind::Int && e->params[i].name == "n_heads") heads = c.args[i].int_value;
        if (e->params[i].kind == ValueKind::Tensor && !x) x = &c.args[i].tensor;
    }
    if (!x || heads <= 0) return;
    if (x->shape.size() == 2) {
        v.batch = 0;
        v.tokens = static_cast<int>(x->shape[0]);
        v.d_model = static_cast<int>(x->shape[1]);
    } else if (x->shape.size() == 3) {
        v.batch = static_cast<int>(x->shape[0]);
        v.tokens = static_cast<int>(x->shape[1]);
        v.d_model = static_cast<int>(x->shape[2]);
    } else {
        return;
    }
    v.heads = static_cast<int>(heads);
}

void memory_strip(Ui& ui, const char* id, const std::vector<MemoryCell>& cells, int per_row, bool batched) {
    const size_t max_cells = 512;
    const size_t n = std::min(cells.size(), max_cells);
    const float avail = ImGui::GetContentRegionAvail().x;
    const float cell = std::clamp(avail / static_cast<float>(std::max(per_row, 1)) - 1.0f, 6.0f, 26.0f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const int rows = static_cast<int>((n + static_cast<size_t>(per_row) - 1) / static_cast<size_t>(per_row));
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    int hovered = -1;
    for (size_t k = 0; k < n; ++k) {
        const float x = origin.x + static_cast<float>(k % static_cast<size_t>(per_row)) * (cell + 1);
        const float y = origin.y + static_cast<float>(k / static_cast<size_t>(per_row)) * (cell + 1);
        dl->AddRectFilled(ImVec2(x, y), ImVec2(x + cell, y + cell), head_color(cells[k].head));
        if (cell >= 14) {
            const std::string t = std::to_string(cells[k].token);
            dl->AddText(ImVec2(x + 2, y + 1), IM_COL32(0, 0, 0, 200), t.c_str());
        }
        if (mouse.x >= x && mouse.x < x + cell && mouse.y >= y && mouse.y < y + cell) hovered = static_cast<int>(k);
    }
    ImGui::Dummy(ImVec2(static_cast<float>(per_row) * (cell + 1), static_cast<float>(rows) * (cell + 1)));
    ui.note_item(id);
    if (hovered >= 0 && ImGui::IsItemHovered()) {
        const MemoryCell& c = cells[static_cast<size_t>(hovered)];
        const std::map<std::string, std::string> args = {{"offset", std::to_string(c.offset)}, {"b", std::to_string(c.batch)},
                                                         {"t", std::to_string(c.token)},   {"h", std::to_string(c.head)},
                                                         {"j", std::to_string(c.j)}};
        wrapped_tooltip(ui.t(batched ? msg::gui_layout_cell_batch : msg::gui_layout_cell, args));
    }
    if (cells.size() > max_cells)
        ImGui::TextDisabled("%s", ui.t(msg::gui_layout_truncated, {{"n", format_count(max_cells, ui.session.lang())}, {"total", format_count(static_cast<int64_t>(cells.size()), ui.session.lang())}}).c_str());
}

}  // namespace

namespace {

// (T, D) -> reshape -> transpose -> contiguous, with shape and strides at each step.
void draw_pipeline(Ui& ui, const LayoutView& v) {
    ImGui::PushFont(ui.fonts.bold);
    ImGui::TextUnformatted(ui.t(msg::gui_layout_pipeline).c_str());
    ImGui::PopFont();
    const auto stages = split_heads_pipeline(v.batch, v.tokens, v.d_model, v.heads);
    if (ImGui::BeginTable("pipeline", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn(ui.t(msg::gui_layout_step).c_str());
        ImGui::TableSetupColumn(ui.t(msg::gui_layout_shape).c_str());
        ImGui::TableSetupColumn(ui.t(msg::gui_layout_strides).c_str());
        ImGui::TableSetupColumn(ui.t(msg::gui_layout_contiguous).c_str());
        ImGui::TableHeadersRow();
        for (const auto& s : stages) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::PushFont(ui.fonts.mono);
            ImGui::TextUnformatted(s.label.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(shape_to_string(s.shape).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(shape_to_string(s.strides).c_str());
            ImGui::PopFont();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted((ui.t(s.contiguous ? msg::gui_layout_yes : msg::gui_layout_no) + " · " +
                                    ui.t(s.copies ? msg::gui_layout_copies : msg::gui_layout_view))
                                       .c_str());
        }
        ImGui::EndTable();
    }

}

// The learner's tensors beside the reference's (shapes), first mismatch highlighted.
void draw_learner_shapes(Ui& ui) {
    const CaseOutcome* c = view_case(ui);
    const Exercise* e = ui.session.current();
    if (!c || !e) return;
    const std::vector<StageComparison> cmp = compare_stages(*c, e->tolerance);
    bool any = false;
    for (const auto& s : cmp) any |= s.learner_shape.has_value();
    if (!any) return;
    ImGui::Separator();
    ImGui::PushFont(ui.fonts.bold);
    ImGui::TextUnformatted(ui.t(msg::gui_layout_yours).c_str());
    ImGui::PopFont();
    int first_shape = -1;
    for (size_t i = 0; i < cmp.size(); ++i)
        if (cmp[i].status == StageStatus::ShapeMismatch) {
            first_shape = static_cast<int>(i);
            break;
        }
    if (first_shape >= 0)
        ImGui::TextColored(verdict_color(Verdict::WrongShape), "%s", ui.t(msg::gui_layout_first_shape_mismatch, {{"stage", cmp[static_cast<size_t>(first_shape)].name}}).c_str());
    if (ImGui::BeginTable("your_shapes", 3, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp)) {
        ImGui::TableSetupColumn(ui.t(msg::gui_stages_stage).c_str());
        ImGui::TableSetupColumn(ui.t(msg::gui_stages_reference_shape).c_str());
        ImGui::TableSetupColumn(ui.t(msg::gui_stages_your_shape).c_str());
        ImGui::TableHeadersRow();
        for (size_t i = 0; i < cmp.size(); ++i) {
            ImGui::TableNextRow();
            if (static_cast<int>(i) == first_shape) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, IM_COL32(150, 40, 40, 110));
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(cmp[i].name.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(cmp[i].reference_shape.empty() ? "—" : shape_to_string(cmp[i].reference_shape).c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(cmp[i].learner_shape ? shape_to_string(*cmp[i].learner_shape).c_str() : "—");
        }
        ImGui::EndTable();
    }
}

}  // namespace

void draw_layout_panel(Ui& ui) {
    LayoutView& v = ui.layout;
    if (!v.initialised) initialise_from_case(ui);
    const float w = ImGui::GetFontSize() * 7;
    ImGui::SetNextItemWidth(w);
    ImGui::SliderInt(ui.t(msg::gui_layout_batch).c_str(), &v.batch, 0, 4);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(w);
    ImGui::SliderInt("T", &v.tokens, 1, 16);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(w);
    ImGui::SliderInt("D", &v.d_model, 1, 64);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(w);
    ImGui::SliderInt("H", &v.heads, 1, 16);
    if (v.heads < 1 || v.d_model % v.heads != 0) {
        ImGui::TextColored(verdict_color(Verdict::WrongShape), "%s", ui.t(msg::gui_layout_invalid).c_str());
        return;
    }

    draw_pipeline(ui, v);
    const int hd = v.d_model / v.heads;
    ImGui::TextUnformatted(ui.t(msg::gui_layout_before).c_str());
    memory_strip(ui, "memory_before", memory_before(v.batch, v.tokens, v.d_model, v.heads), v.d_model, v.batch > 0);
    ImGui::TextUnformatted(ui.t(msg::gui_layout_after).c_str());
    memory_strip(ui, "memory_after", memory_after(v.batch, v.tokens, v.d_model, v.heads), v.tokens * hd <= 64 ? v.tokens * hd : v.d_model, v.batch > 0);

    draw_learner_shapes(ui);
}

}  // namespace attnlab::gui
