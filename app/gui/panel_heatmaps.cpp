// Attention heatmaps: one small multiple per head, in columns
// yours · Eigen reference · CUDA kernel · yours − reference (the CUDA column
// when the reference op has a kernel in this build). Textures are uploaded once per
// (check result, case, stage), so 12 heads × T = 512 stays interactive.
// Hover for values, click to enlarge a head, right-click or the button to
// export PNGs.
#include <stb_image_write.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "attnlab/core/text/report.hpp"
#include "attnlab/core/base/util.hpp"
#include "attnlab/core/text/number_format.hpp"
#include "heatmap_picture.hpp"
#include "label_before.hpp"
#include "ui.hpp"

namespace attnlab::gui {

const CaseOutcome* view_case(const Ui& ui) {
    const CheckResult* r = ui.session.last_result();
    if (!r || r->cases.empty()) return nullptr;
    int k = ui.heatmaps.case_index;
    if (k < 0 || k >= static_cast<int>(r->cases.size())) {
        // The failing case; after a pass, the largest one (more to look at
        // than a 2×2 hand-checkable case).
        k = r->failed_case;
        if (k < 0) {
            k = 0;
            int64_t best = -1;
            for (const auto& c : r->cases) {
                const int64_t size = c.expected.kind == ValueKind::Tensor ? c.expected.tensor.numel() : 0;
                if (size > best) best = size, k = c.index;
            }
        }
    }
    return &r->cases[static_cast<size_t>(k)];
}

namespace {

// Column ids (stable: they name widgets "heatmap:<head>:<id>"); drawn in the
// order yours · reference · CUDA · difference.
enum Column { kYours = 0, kReference = 1, kDifference = 2, kCuda = 3 };

std::vector<int> shown_columns(const HeatmapSet& set) {
    std::vector<int> cols;
    for (int c : {kYours, kReference, kCuda, kDifference}) {
        if ((c == kYours || c == kDifference) && set.learner.empty()) continue;
        if (c == kCuda && set.cuda.empty()) continue;
        cols.push_back(c);
    }
    return cols;
}

MessageKey column_title(int column) {
    switch (column) {
        case kYours: return msg::gui_heatmap_yours;
        case kReference: return msg::gui_heatmap_reference;
        case kCuda: return msg::gui_heatmap_cuda;
        default: return msg::gui_heatmap_difference;
    }
}

// A column's heading: the learner's column says where their tensor came from.
std::string column_heading(const Ui& ui, const HeatmapSet& set, int column) {
    if (column == kYours && set.learner_from_output) return ui.t(msg::gui_heatmaps_from_output);
    if (column == kYours && set.learner_line > 0) return ui.t(msg::gui_heatmap_yours_line, {{"line", std::to_string(set.learner_line)}});
    return ui.t(column_title(column));
}

void release_all(Ui& ui) {
    HeatmapView& v = ui.heatmaps;
    for (auto* list : {&v.learner, &v.reference, &v.difference, &v.cuda}) {
        if (ui.textures)
            for (ImTextureID id : *list)
                if (id) ui.textures->release(id);
        list->clear();
    }
}

// Textures are made when a head first scrolls into view, then kept until
// the data changes: a 12-head grid costs only what is on screen.
void prepare_slots(Ui& ui) {
    HeatmapView& v = ui.heatmaps;
    if (!v.set) return;
    v.learner.assign(v.set->learner.size(), ImTextureID{});
    v.reference.assign(v.set->reference.size(), ImTextureID{});
    v.difference.assign(v.set->difference.size(), ImTextureID{});
    v.cuda.assign(v.set->cuda.size(), ImTextureID{});
}

const std::vector<HeadMatrix>& matrices_of(const HeatmapSet& set, int column) {
    return column == kYours ? set.learner : column == kReference ? set.reference : column == kCuda ? set.cuda : set.difference;
}

ImTextureID texture_for(Ui& ui, int column, int head) {
    HeatmapView& v = ui.heatmaps;
    std::vector<ImTextureID>& slots = column == kYours ? v.learner : column == kReference ? v.reference : column == kCuda ? v.cuda : v.difference;
    if (head >= static_cast<int>(slots.size()) || !ui.textures || !v.set) return ImTextureID{};
    ImTextureID& id = slots[static_cast<size_t>(head)];
    if (!id) {
        const auto& list = matrices_of(*v.set, column);
        const HeadMatrix& m = list[static_cast<size_t>(head)];
        if (ui.textures->colors_on_gpu()) {
            id = ui.textures->upload_values(m);  // the shader colours it
        } else {
            static thread_local std::vector<uint8_t> pixels;
            rasterize(m, column == kDifference ? v.set->difference_scale : v.set->value_scale, pixels);
            id = ui.textures->upload(m.cols, m.rows, pixels.data());
        }
        ++v.uploads;
    }
    return id;
}

// One heatmap image: coloured by the GPU's shader where there is one.
void heatmap_image(Ui& ui, ImTextureID id, ImVec2 size, const HeatmapSet& set, int column) {
    if (ui.textures && ui.textures->colors_on_gpu()) ui.textures->image(id, size, column == kDifference ? set.difference_scale : set.value_scale);
    else ImGui::Image(id, size);
}

std::string token_suffix(const std::vector<std::string>& tokens, int i) {
    return i < static_cast<int>(tokens.size()) ? " \"" + tokens[static_cast<size_t>(i)] + "\"" : "";
}

std::string value_text(float v, Lang lang) {
    if (std::isinf(v) && v < 0) return "-inf";
    return format_number(v, lang);
}

void hover_tooltip(Ui& ui, const HeatmapSet& set, int head, int rows, int cols) {
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    const ImVec2 m = ImGui::GetIO().MousePos;
    const int j = std::clamp(static_cast<int>((m.x - a.x) / (b.x - a.x) * static_cast<float>(cols)), 0, cols - 1);
    const int i = std::clamp(static_cast<int>((m.y - a.y) / (b.y - a.y) * static_cast<float>(rows)), 0, rows - 1);
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(ui.t(msg::gui_heatmap_hover, {{"h", std::to_string(head)}, {"i", std::to_string(i)}, {"j", std::to_string(j)},
                                                      {"qt", token_suffix(set.tokens, i)}, {"kt", token_suffix(set.tokens, j)}})
                               .c_str());
    const float ref = set.reference[static_cast<size_t>(head)].at(i, j);
    if (!set.learner.empty()) {
        const float mine = set.learner[static_cast<size_t>(head)].at(i, j);
        ImGui::Text("%s: %s", ui.t(msg::gui_heatmap_yours).c_str(), value_text(mine, ui.session.lang()).c_str());
        ImGui::Text("%s: %s", ui.t(msg::gui_heatmap_reference).c_str(), value_text(ref, ui.session.lang()).c_str());
        const float d = set.difference[static_cast<size_t>(head)].at(i, j);
        if (std::isinf(d) && d < 0) ImGui::TextDisabled("%s", ui.t(msg::gui_heatmap_masked).c_str());
        else ImGui::Text("|%s| = %s", ui.t(msg::gui_heatmap_difference).c_str(), std::isnan(d) ? "∞" : format_number(std::fabs(d), ui.session.lang()).c_str());
    } else {
        ImGui::Text("%s: %s", ui.t(msg::gui_heatmap_reference).c_str(), value_text(ref, ui.session.lang()).c_str());
    }
    if (head < static_cast<int>(set.cuda.size()))
        ImGui::Text("%s: %s", ui.t(msg::gui_heatmap_cuda).c_str(), value_text(set.cuda[static_cast<size_t>(head)].at(i, j), ui.session.lang()).c_str());
    if (set.reference[static_cast<size_t>(head)].masked(i, j)) ImGui::TextDisabled("%s", ui.t(msg::gui_heatmap_masked).c_str());
    ImGui::EndTooltip();
}

bool any_masked(const std::vector<HeadMatrix>& heads) {
    for (const HeadMatrix& m : heads)
        if (std::find(m.mask.begin(), m.mask.end(), 1) != m.mask.end()) return true;
    return false;
}

void export_png(Ui& ui, int head, int column) {
    HeatmapView& v = ui.heatmaps;
    if (!v.set || !ui.session.current()) return;
    const fs::path dir = ui.session.exports_dir();
    std::error_code ec;
    fs::create_directories(dir, ec);
    std::string name = ui.session.current()->id + "-case" + std::to_string(v.built_case + 1) + "-" + v.set->stage;
    if (head >= 0) name += "-head" + std::to_string(head);
    if (column >= 0) name += column == kYours ? "-yours" : column == kReference ? "-reference" : column == kCuda ? "-cuda" : "-difference";
    const fs::path file = dir / (name + ".png");
    const HeatmapPicture img = draw_heatmap_picture(heatmap_picture_spec(ui, head, column), ui.fonts.ui);
    stbi_flip_vertically_on_write(0);
    if (stbi_write_png(file.c_str(), img.w, img.h, 4, img.px.data(), img.w * 4)) v.last_export = file.string();
    else ui.session.add_notice(ui.t(msg::gui_heatmap_export_failed, {{"file", file.string()}}));
}

void legend(Ui& ui, const ColorScale& scale, const char* id, bool show_masked) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetFontSize() * 8, h = ImGui::GetFontSize() * 0.8f;
    const int steps = 32;
    for (int s = 0; s < steps; ++s) {
        const Rgba c = map_color(scale.map, (s + 0.5) / steps);
        dl->AddRectFilled(ImVec2(p.x + w * s / steps, p.y), ImVec2(p.x + w * (s + 1) / steps, p.y + h), IM_COL32(c[0], c[1], c[2], 255));
    }
    ImGui::Dummy(ImVec2(w, h));
    ImGui::SameLine();
    ImGui::TextDisabled("%s", ui.t(msg::gui_heatmap_range, {{"lo", format_number(scale.lo, ui.session.lang())}, {"hi", format_number(scale.hi, ui.session.lang())}}).c_str());
    if (show_masked) {
        ImGui::SameLine();
        const ImVec2 q = ImGui::GetCursorScreenPos();
        dl->AddRectFilled(q, ImVec2(q.x + h, q.y + h), IM_COL32(kMaskedColor[0], kMaskedColor[1], kMaskedColor[2], 255));
        ImGui::Dummy(ImVec2(h, h));
        ImGui::SameLine();
        ImGui::TextDisabled("%s", ui.t(msg::gui_heatmap_masked).c_str());
    }
    (void)id;
}

// Axis labels of an enlarged head: the case's tokens, else positions, on
// both axes (queries down the left, keys along the bottom), thinned so they
// never overlap, and the axes named.
void draw_axes_labels(Ui& ui, const std::vector<std::string>& tokens, ImVec2 origin, float size, int n) {
    if (n <= 0) return;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float step = size / static_cast<float>(n);
    const ImU32 col = ImGui::GetColorU32(ImGuiCol_Text);
    const float line = ImGui::GetTextLineHeight();
    const int every = std::max(1, static_cast<int>(std::ceil(line / std::max(step, 1.0f))));
    auto label = [&](int i) { return i < static_cast<int>(tokens.size()) ? tokens[static_cast<size_t>(i)] : std::to_string(i); };
    const float max_w = ImGui::GetFontSize() * 4.5f;
    for (int i = 0; i < n; i += every) {
        const std::string t = label(i);
        const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
        if (ts.x <= max_w) dl->AddText(ImVec2(origin.x - ts.x - 4, origin.y + step * (static_cast<float>(i) + 0.5f) - ts.y / 2), col, t.c_str());  // query rows
    }
    // Key columns: as many as fit side by side.
    float widest = 0;
    for (int i = 0; i < n; ++i) widest = std::max(widest, ImGui::CalcTextSize(label(i).c_str()).x);
    const int every_key = std::max(1, static_cast<int>(std::ceil((widest + 6) / std::max(step, 1.0f))));
    for (int i = 0; i < n; i += every_key) {
        const std::string t = label(i);
        const ImVec2 ts = ImGui::CalcTextSize(t.c_str());
        dl->AddText(ImVec2(origin.x + step * (static_cast<float>(i) + 0.5f) - ts.x / 2, origin.y + size + 2), col, t.c_str());
    }
    const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const std::string keys = ui.t(msg::gui_heatmap_axis_keys), queries = ui.t(msg::gui_heatmap_axis_queries);
    dl->AddText(ImVec2(origin.x + size / 2 - ImGui::CalcTextSize(keys.c_str()).x / 2, origin.y + size + 2 + line), dim, keys.c_str());
    dl->AddText(ImVec2(origin.x - ImGui::CalcTextSize(queries.c_str()).x - 4, origin.y - line - 2), dim, queries.c_str());
}

}  // namespace

namespace {

// The legend, the difference summary and the CUDA note above the grid.
void draw_heatmap_header(Ui& ui, const CaseOutcome& c, const HeatmapSet& set) {
    HeatmapView& v = ui.heatmaps;
    const std::string export_label = ui.t(msg::gui_heatmap_export_grid);
    same_line_if_room(ImGui::CalcTextSize(export_label.c_str()).x + ImGui::GetStyle().FramePadding.x * 2);
    if (ImGui::Button(export_label.c_str())) export_png(ui, -1, -1);
    ui.note_item("export_grid");
    legend(ui, set.value_scale, "values", true);
    const bool have_learner = !set.learner.empty();
    if (have_learner) {
        const std::string max_diff = ui.t(msg::gui_heatmap_max_diff, {{"value", format_number(set.max_abs_difference, ui.session.lang())}});
        if (set.max_abs_difference > 0) {
            legend(ui, set.difference_scale, "diff", false);
            same_line_if_room(ImGui::CalcTextSize(max_diff.c_str()).x);
        }
        ImGui::TextDisabled("%s", max_diff.c_str());
        if (set.non_finite_differences > 0) {
            // Magenta cells: one side is -inf (masked) or NaN and the other is not.
            const ImVec2 q = ImGui::GetCursorScreenPos();
            const float sw = ImGui::GetFontSize() * 0.8f;
            ImGui::GetWindowDrawList()->AddRectFilled(q, ImVec2(q.x + sw, q.y + sw),
                                                      IM_COL32(kMissingColor[0], kMissingColor[1], kMissingColor[2], 255));
            ImGui::Dummy(ImVec2(sw, sw));
            ImGui::SameLine();
            ImGui::TextColored(verdict_color(Verdict::WrongAnswer), "%s",
                               ui.t(msg::gui_heatmap_non_finite, {{"count", std::to_string(set.non_finite_differences)}}).c_str());
        }
    } else if (!set.learner_problem.empty()) {
        ImGui::TextColored(verdict_color(Verdict::WrongShape), "%s", ui.t(msg::gui_heatmap_problem, {{"problem", set.learner_problem}}).c_str());
    } else {
        ImGui::TextWrapped("%s", ui.t(msg::gui_heatmap_not_recorded, {{"stage", set.stage}}).c_str());
    }
    if (!set.cuda.empty()) {
        const std::string backend = c.reference_kernel ? cuda_backend_text(*c.reference_kernel, ui.session.lang()) : kernel_backend_code(set.cuda_backend);
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s", ui.t(msg::gui_heatmap_cuda_note, {{"backend", backend}, {"value", format_number(set.cuda_max_abs_difference, ui.session.lang())}}).c_str());
        ImGui::PopStyleColor();
        ui.note_item("heatmap_cuda_note");
    } else if (c.reference_kernel && c.reference_kernel->ok) {
        ImGui::TextDisabled("%s", ui.t(msg::gui_heatmap_cuda_missing, {{"stage", set.stage}}).c_str());
    }
    if (!v.last_export.empty()) ImGui::TextDisabled("%s", ui.t(msg::gui_heatmap_exported, {{"file", v.last_export}}).c_str());
    ImGui::TextDisabled("%s", ui.t(msg::gui_heatmap_click).c_str());

}

// The grid: one row per head, one column per source (yours, reference, CUDA, difference).
void draw_heatmap_rows(Ui& ui, const HeatmapSet& set, const std::vector<int>& columns) {
    HeatmapView& v = ui.heatmaps;
    const int ncols = static_cast<int>(columns.size());
    const float label_w = ImGui::CalcTextSize("head 00").x + ImGui::GetStyle().ItemSpacing.x;
    const float avail = ImGui::GetContentRegionAvail().x - label_w - ImGui::GetStyle().ScrollbarSize;
    const float size = std::clamp(avail / static_cast<float>(ncols) - ImGui::GetStyle().ItemSpacing.x, 48.0f, 220.0f);
    ImGui::BeginChild("heatmap_grid", ImVec2(0, 0), false);
    ImGui::Dummy(ImVec2(label_w - ImGui::GetStyle().ItemSpacing.x, 0));
    for (size_t pos = 0; pos < columns.size(); ++pos) {
        ImGui::SameLine(label_w + static_cast<float>(pos) * (size + ImGui::GetStyle().ItemSpacing.x));
        ImGui::TextUnformatted(column_heading(ui, set, columns[pos]).c_str());
    }
    ImGuiListClipper clipper;  // only visible heads cost anything
    clipper.Begin(set.heads, size + ImGui::GetStyle().ItemSpacing.y);
    while (clipper.Step()) {
        for (int h = clipper.DisplayStart; h < clipper.DisplayEnd; ++h) {
            ImGui::PushID(h);
            ImGui::AlignTextToFramePadding();
            ImGui::TextUnformatted(ui.t(msg::gui_heatmap_head, {{"h", std::to_string(h)}}).c_str());
            for (size_t pos = 0; pos < columns.size(); ++pos) {
                const int col = columns[pos];
                ImGui::SameLine(label_w + static_cast<float>(pos) * (size + ImGui::GetStyle().ItemSpacing.x));
                ImGui::PushID(col);
                if (ImTextureID id = texture_for(ui, col, h)) heatmap_image(ui, id, ImVec2(size, size), set, col);
                else ImGui::Dummy(ImVec2(size, size));
                ui.note_item("heatmap:" + std::to_string(h) + ":" + std::to_string(col));
                if (ImGui::IsItemHovered() && pointer_moved()) hover_tooltip(ui, set, h, set.rows, set.cols);
                if (ImGui::IsItemClicked(ImGuiMouseButton_Left)) v.enlarged = h;
                if (ImGui::BeginPopupContextItem("export")) {
                    if (ImGui::MenuItem(ui.t(msg::gui_heatmap_export_one).c_str())) export_png(ui, h, col);
                    ImGui::EndPopup();
                }
                ImGui::PopID();
            }
            ImGui::PopID();
        }
    }
    ImGui::EndChild();

}

// The enlarged head, with token labels on the axes when the case has them.
void draw_enlarged_head(Ui& ui, const HeatmapSet& set, const std::vector<int>& columns) {
    HeatmapView& v = ui.heatmaps;
    if (v.enlarged >= 0) ImGui::OpenPopup("enlarged_head");
    if (ImGui::BeginPopupModal("enlarged_head", nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoTitleBar)) {
        const int h = std::clamp(v.enlarged, 0, set.heads - 1);
        ImGui::PushFont(ui.fonts.bold);
        ImGui::TextUnformatted((ui.t(msg::gui_heatmap_head, {{"h", std::to_string(h)}}) + " · " + set.stage).c_str());
        ImGui::PopFont();
        const float big = std::min(ImGui::GetMainViewport()->WorkSize.y * 0.6f, 480.0f);
        const float margin = ImGui::GetFontSize() * 5;
        const float shrink = columns.size() > 3 ? 2.1f : columns.size() > 1 ? 1.6f : 1.0f;
        for (size_t pos = 0; pos < columns.size(); ++pos) {
            const int col = columns[pos];
            if (pos > 0) ImGui::SameLine();
            ImGui::BeginGroup();
            ImGui::TextUnformatted(column_heading(ui, set, col).c_str());
            ImGui::Dummy(ImVec2(0, ImGui::GetTextLineHeight()));  // room for the query axis' name
            ImGui::Dummy(ImVec2(margin, 0));
            ImGui::SameLine(0, 0);
            const ImVec2 origin = ImGui::GetCursorScreenPos();
            if (ImTextureID id = texture_for(ui, col, h)) heatmap_image(ui, id, ImVec2(big / shrink, big / shrink), set, col);
            if (ImGui::IsItemHovered() && pointer_moved()) hover_tooltip(ui, set, h, set.rows, set.cols);
            draw_axes_labels(ui, set.tokens, origin, big / shrink, set.rows);
            ImGui::Dummy(ImVec2(0, ImGui::GetTextLineHeight() * 2 + 6));
            ImGui::EndGroup();
        }
        if (ImGui::Button(ui.t(msg::gui_heatmap_close).c_str()) || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape))) {
            v.enlarged = -1;
            ImGui::CloseCurrentPopup();
        }
        ui.note_item("enlarged_close");
        ImGui::EndPopup();
    }
}

}  // namespace

void draw_heatmap_grid(Ui& ui, const CaseOutcome& c, int generation, const std::vector<std::string>& dims) {
    (void)dims;
    HeatmapView& v = ui.heatmaps;
    const std::vector<std::string> stages = heatmap_stages(c);
    if (stages.empty()) {
        ImGui::TextWrapped("%s", ui.t(msg::gui_heatmap_none).c_str());
        return;
    }
    if (std::find(stages.begin(), stages.end(), v.stage) == stages.end()) {
        // Default to the weights, the picture of attention itself, when the
        // learner has them; else to a stage of theirs (their return value);
        // else the weights anyway (with the offer to probe them).
        auto has = [&](const std::string& name) { return std::find(stages.begin(), stages.end(), name) != stages.end(); };
        std::string mine;
        for (const LearnerStage& l : learner_stages(c))
            if (has(l.name) && (mine.empty() || l.name == "weights")) mine = l.name;
        v.stage = mine == "weights" || (mine.empty() && has("weights")) ? "weights" : !mine.empty() ? mine : stages.front();
    }
    const std::string stage_label = ui.t(msg::gui_views_stage);
    same_line_if_room(ImGui::CalcTextSize(stage_label.c_str()).x + ImGui::GetStyle().ItemSpacing.x + ImGui::GetFontSize() * 9);
    label_before(stage_label);
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 9);
    if (ImGui::BeginCombo("##stage", v.stage.c_str())) {
        for (const auto& s : stages)
            if (ImGui::Selectable(s.c_str(), s == v.stage)) v.stage = s;
        ImGui::EndCombo();
    }
    ui.note_item("heatmap_stage");

    // Rebuild and upload only when what is shown changed.
    if (v.built_generation != generation || v.built_case != c.index || v.built_stage != v.stage || v.built_from != &c) {
        release_all(ui);
        v.set.reset();  // before the build: two sets' differences never live at once
        v.set = build_heatmaps(c, v.stage);
        v.built_from = &c;
        v.built_generation = generation;
        v.built_case = c.index;
        v.built_stage = v.stage;
        v.enlarged = -1;
        prepare_slots(ui);
    }
    if (!v.set) return;
    const HeatmapSet& set = *v.set;
    draw_heatmap_header(ui, c, set);
    const std::vector<int> columns = shown_columns(set);
    draw_heatmap_rows(ui, set, columns);
    draw_enlarged_head(ui, set, columns);
}

void draw_heatmaps_panel(Ui& ui) {
    const CheckResult* r = ui.session.last_result();
    const Exercise* e = ui.session.current();
    if (!r || !e || r->cases.empty() || r->verdict == Verdict::CompileError || r->verdict == Verdict::MissingEntry) {
        draw_no_result(ui);
        return;
    }
    const CaseOutcome* c = view_case(ui);
    label_before(ui.t(msg::gui_views_case));
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    const std::string current = std::to_string(c->index + 1) + ". " + c->name.get(ui.session.lang());
    if (ImGui::BeginCombo("##case", current.c_str())) {
        for (const auto& k : r->cases) {
            const std::string label = std::to_string(k.index + 1) + ". " + k.name.get(ui.session.lang()) + "  (" + verdict_title(k.verdict, ui.session.lang()) + ")";
            if (ImGui::Selectable(label.c_str(), k.index == c->index)) ui.heatmaps.case_index = k.index;
        }
        ImGui::EndCombo();
    }
    ui.note_item("heatmap_case");
    draw_heatmap_grid(ui, *c, ui.session.result_generation(), e->returns.dims);
}

PictureSpec heatmap_picture_spec(const Ui& ui, int head, int column) {
    PictureSpec spec;
    const HeatmapView& v = ui.heatmaps;
    const CheckResult* r = ui.session.last_result();
    if (!v.set || !r || v.built_case < 0 || v.built_case >= static_cast<int>(r->cases.size()) || !ui.session.current()) return spec;
    const HeatmapSet& set = *v.set;
    const Lang lang = ui.session.lang();
    const CaseOutcome& c = r->cases[static_cast<size_t>(v.built_case)];
    spec.title = ui.t(msg::gui_heatmap_export_title, {{"exercise", ui.session.current()->title.get(lang)},
                                                   {"case", std::to_string(c.index + 1)},
                                                   {"name", c.name.get(lang)},
                                                   {"stage", set.stage}});
    spec.rows = set.rows;
    spec.cols = set.cols;
    bool values = false, differences = false;
    for (int col : shown_columns(set)) {
        if (column >= 0 && col != column) continue;
        const bool difference = col == kDifference;
        spec.columns.push_back({&matrices_of(set, col), difference ? &set.difference_scale : &set.value_scale, ui.t(column_title(col))});
        (difference ? differences : values) = true;
    }
    for (int h = 0; h < set.heads; ++h) {
        if (head >= 0 && h != head) continue;
        spec.heads.push_back(h);
        spec.head_labels.push_back(ui.t(msg::gui_heatmap_head, {{"h", std::to_string(h)}}));
    }
    const auto range = [&](const ColorScale& scale) {
        return ui.t(msg::gui_heatmap_range, {{"lo", format_number(scale.lo, lang)}, {"hi", format_number(scale.hi, lang)}});
    };
    if (values) spec.scales.push_back({&set.value_scale, range(set.value_scale)});
    if (differences) spec.scales.push_back({&set.difference_scale, ui.t(msg::gui_heatmap_difference) + ": " + range(set.difference_scale)});
    if (any_masked(set.reference)) spec.masked = ui.t(msg::gui_heatmap_masked);
    return spec;
}

}  // namespace attnlab::gui
