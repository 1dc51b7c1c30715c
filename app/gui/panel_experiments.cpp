// Experiments: model-size arithmetic for ANDREA-120M, ANDREA-12M (labelled
// assumptions) or a custom config, and a live measurement on this CPU of the
// Q/K/V projections done per head versus fused.
#include <chrono>

#include "attnlab/core/text/number_format.hpp"
#include "attnlab/core/base/util.hpp"
#include "label_before.hpp"
#include "ui.hpp"

namespace attnlab::gui {

namespace {

void row(const std::string& label, const std::string& value) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(label.c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(value.c_str());
}

}  // namespace

namespace {

// A preset (ANDREA-120M, ANDREA-12M) or the learner's own sizes.
ModelConfig choose_config(Ui& ui, ExperimentsView& v) {
    const std::vector<ModelConfig> presets = preset_configs();
    const int custom_index = static_cast<int>(presets.size());
    v.preset = std::clamp(v.preset, 0, custom_index);
    const std::string current = v.preset < custom_index ? presets[static_cast<size_t>(v.preset)].name : ui.t(msg::gui_exp_custom);
    label_before(ui.t(msg::gui_exp_config));
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10);
    if (ImGui::BeginCombo("##exp_config", current.c_str())) {
        for (int i = 0; i < custom_index; ++i)
            if (ImGui::Selectable(presets[static_cast<size_t>(i)].name.c_str(), v.preset == i)) v.preset = i;
        if (ImGui::Selectable(ui.t(msg::gui_exp_custom).c_str(), v.preset == custom_index)) v.preset = custom_index;
        ImGui::EndCombo();
    }
    ui.note_item("exp_preset");
    ModelConfig cfg = v.preset < custom_index ? presets[static_cast<size_t>(v.preset)] : v.custom;
    if (v.preset == custom_index) {
        int d = static_cast<int>(v.custom.d_model), h = static_cast<int>(v.custom.heads), l = static_cast<int>(v.custom.layers);
        const float w = ImGui::GetFontSize() * 6;
        ImGui::SetNextItemWidth(w);
        ImGui::InputInt(ui.t(msg::gui_exp_d_model).c_str(), &d, 16, 64);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(w);
        ImGui::InputInt(ui.t(msg::gui_exp_heads).c_str(), &h, 1, 4);
        ImGui::SameLine();
        ImGui::SetNextItemWidth(w);
        ImGui::InputInt(ui.t(msg::gui_exp_layers).c_str(), &l, 1, 4);
        v.custom.d_model = std::clamp(d, 1, 16384);
        v.custom.heads = std::clamp(h, 1, 256);
        v.custom.layers = std::clamp(l, 1, 512);
        cfg = v.custom;
    }
    return cfg;
}

}  // namespace

void draw_experiments_panel(Ui& ui) {
    ExperimentsView& v = ui.experiments;
    const ModelConfig cfg = choose_config(ui, v);
    if (cfg.assumed) ImGui::TextColored(ImVec4(0.95f, 0.75f, 0.3f, 1), "%s", ui.t(msg::gui_exp_assumed, {{"what", cfg.assumption}}).c_str());

    const ModelFigures f = model_figures(cfg);
    if (ImGui::BeginTable("figures", 2, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp)) {
        const Lang lang = ui.session.lang();
        row(ui.t(msg::gui_exp_shape_row), format_count(cfg.d_model, lang) + " · " + format_count(cfg.heads, lang) + " · " + format_count(cfg.layers, lang));
        row(ui.t(msg::gui_exp_head_dim), f.divides ? format_count(f.head_dim, lang) : ui.t(msg::gui_layout_invalid));
        row(ui.t(msg::gui_exp_tiles), f.fills_tensor_core_tiles ? ui.t(msg::gui_exp_tiles_yes, {{"n", format_count(f.tiles_per_head, lang)}})
                                                             : ui.t(msg::gui_exp_tiles_no, {{"hd", format_count(f.head_dim, lang)}}));
        row(ui.t(msg::gui_exp_params_layer), format_count(f.attention_params_per_layer, lang));
        row(ui.t(msg::gui_exp_params_total), format_count(f.attention_params_total, lang));
        row(ui.t(msg::gui_exp_matmuls_per_head), format_count(f.matmuls_per_head_projection, lang));
        row(ui.t(msg::gui_exp_matmuls_fused), format_count(f.matmuls_fused_qkv, lang));
        ImGui::EndTable();
    }

    // Live measurement: a core job, so the UI never freezes.
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
    ImGui::InputInt(ui.t(msg::gui_exp_tokens).c_str(), &v.tokens, 32, 128);
    v.tokens = std::clamp(v.tokens, 1, 2048);
    ImGui::SameLine();
    Session& s = ui.session;
    if (s.measuring_projections()) {
        ImGui::TextDisabled("%s", ui.t(msg::gui_exp_measuring).c_str());
    } else if (ImGui::Button(ui.t(msg::gui_exp_measure, {{"t", format_count(v.tokens, ui.session.lang())}}).c_str()) && f.divides) {
        // Capped for a quick measurement, and kept divisible by the head count.
        const int heads = static_cast<int>(cfg.heads);
        const int d_model = static_cast<int>(std::min<int64_t>(cfg.d_model, 2048 / heads * heads));
        s.measure_projections(v.tokens, d_model, heads);
    }
    if (s.projection_timing_failed()) ImGui::TextColored(verdict_color(Verdict::InternalError), "%s", ui.t(msg::gui_exp_failed).c_str());
    ui.note_item("exp_measure");
    if (const auto& timing = s.projection_timing()) {
        const auto& tm = *timing;
        const double top = std::max({tm.per_head_ms, tm.fused_ms, 1e-6});
        const float width = ImGui::GetContentRegionAvail().x * 0.6f, bar_h = ImGui::GetFontSize() * 1.2f;
        ImDrawList* dl = ImGui::GetWindowDrawList();
        auto bar = [&](const std::string& label, double ms, ImU32 color) {
            const ImVec2 p = ImGui::GetCursorScreenPos();
            dl->AddRectFilled(p, ImVec2(p.x + static_cast<float>(ms / top) * width, p.y + bar_h), color, 3.0f);
            ImGui::Dummy(ImVec2(width, bar_h));
            ImGui::SameLine();
            ImGui::Text("%s  %s ms", label.c_str(), format_number(ms, ui.session.lang()).c_str());
        };
        bar(ui.t(msg::gui_exp_per_head, {{"n", format_count(tm.per_head_matmuls, ui.session.lang())}}), tm.per_head_ms, IM_COL32(230, 159, 0, 255));
        bar(ui.t(msg::gui_exp_fused), tm.fused_ms, IM_COL32(86, 180, 233, 255));
        const std::string ratio = format_fixed(tm.per_head_ms / std::max(tm.fused_ms, 1e-9), 1, ui.session.lang());
        ImGui::TextUnformatted(ui.t(msg::gui_exp_ratio, {{"ratio", ratio}}).c_str());
        // Why the figure is what it is (the lesson promises a gain a small CPU run does not show).
        const Lang lang = ui.session.lang();
        const std::string why = ui.t(timing_explanation_key(tm), {{"t", format_count(tm.tokens, lang)}, {"d", format_count(tm.d_model, lang)},
                                                                  {"h", format_count(tm.heads, lang)},
                                                                  {"hd", format_count(tm.heads > 0 ? tm.d_model / tm.heads : 0, lang)},
                                                                  {"n", format_count(tm.per_head_matmuls, lang)}});
        ImGui::PushTextWrapPos(0);
        ImGui::TextDisabled("%s", why.c_str());
        ImGui::PopTextWrapPos();
        ui.note_item("exp_why");
    }
}

}  // namespace attnlab::gui
