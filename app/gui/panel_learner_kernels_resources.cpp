// The learner's Kernel tab: the resource panel. NVRTC's registers, shared
// memory and spills per kernel, and the occupancy of the learner's block
// size, for a chosen architecture (gpu_resources.hpp does the counting).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>

#include "attnlab/core/check/launch_shapes.hpp"
#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/core/text/number_format.hpp"
#include "attnlab/core/text/report.hpp"
#include "label_before.hpp"
#include "panel_learner_kernels.hpp"

namespace attnlab::gui::learner_kernels {

namespace {

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
    ImGui::TextUnformatted(ui.t(msg::gui_kview_arch).c_str());
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
        const std::string computing = ui.t(msg::gui_kview_computing, {{"arch", current}});
        same_line_if_room(ImGui::CalcTextSize(computing.c_str()).x);
        ImGui::TextDisabled("%s", computing.c_str());
    }
}

// One column per kernel, one row per figure (narrow panes stay readable),
// then each launched kernel's occupancy in words.
void draw_resource_table(Ui& ui, const ResourceReport& report, const CheckResult* r) {
    if (report.kernels.empty()) {
        wrapped(ui.t(msg::gui_kview_no_kernels));
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
    ImGui::TableSetupColumn(ui.t(msg::gui_kview_col_kernel).c_str());
    for (int i = 0; i < n; ++i) ImGui::TableSetupColumn(cols[static_cast<size_t>(i)].kernel->kernel.c_str());
    ImGui::TableHeadersRow();
    auto row = [&](MessageKey key, const std::function<std::string(const Column&)>& value) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(ui.t(key).c_str());
        for (int i = 0; i < n; ++i) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(value(cols[static_cast<size_t>(i)]).c_str());
        }
    };
    auto bytes = [&](int64_t b) { return ui.t(msg::gui_kview_bytes, {{"n", format_count(b, ui.session.lang())}}); };
    row(msg::gui_kview_col_registers, [](const Column& k) { return std::to_string(k.kernel->registers); });
    row(msg::gui_kview_col_static_shared, [&](const Column& k) { return bytes(k.kernel->shared_bytes); });
    row(msg::gui_kview_col_spills, [&](const Column& k) { return bytes(k.kernel->spill_bytes()); });
    row(msg::gui_kview_col_block, [&](const Column& k) {
        return k.shape ? ui.t(msg::gui_kview_threads_smem, {{"threads", format_count(k.shape->threads_per_block, ui.session.lang())},
                                                         {"bytes", format_count(k.shape->dynamic_shared_bytes, ui.session.lang())}})
                       : ui.t(msg::gui_kview_not_launched);
    });
    row(msg::gui_kview_col_case, [&](const Column& k) { return k.shape && k.shape->case_index >= 0 ? std::to_string(k.shape->case_index + 1) : std::string("—"); });
    row(msg::gui_kview_col_occupancy, [](const Column& k) {
        if (!k.occupancy) return std::string("—");
        char pct[16];
        std::snprintf(pct, sizeof pct, "%.0f%%", k.occupancy->fraction * 100.0);
        return std::string(pct);
    });
    row(msg::gui_kview_col_limit, [&](const Column& k) { return k.occupancy ? ui.t(built_key(std::string("gui.kview.limit.") + occupancy_limit_code(k.occupancy->limited_by))) : std::string("—"); });
    ImGui::EndTable();
    ui.note_item("kview_resources");
    // The figures are of the largest launch over the cases, which need not be the case the tab shows.
    disabled_wrapped(ui.t(msg::gui_kview_resources_case));
    ui.note_item("kview_resources_case");
    for (const Column& k : cols)
        if (k.occupancy)
            wrapped(ui.t(msg::gui_kview_occupancy_of, {{"kernel", k.kernel->kernel}, {"threads", std::to_string(k.shape->threads_per_block)}}) + " " +
                    describe_occupancy(*k.occupancy, ui.session.lang()));
}

}  // namespace

void draw_resources(Ui& ui, const CheckResult* r) {
    const std::shared_ptr<const ResourceReport> report = ui.session.resources();
    if (!section(ui, ui.t(msg::gui_kview_resources_title, {{"arch", report ? report->arch : ui.session.gpu_arch()}}), "resources")) return;
    draw_arch_selector(ui);
    if (!report) {
        disabled_wrapped(ui.t(msg::gui_kview_resources_none));
        return;
    }
    switch (report->status) {
        case ResourceReport::Status::Unavailable:
            wrapped(ui.t(msg::gui_kview_unavailable));
            ui.note_item("kview_resources_unavailable");
            break;
        case ResourceReport::Status::CompileError:
            wrapped(ui.t(msg::gui_kview_compile_error, {{"arch", report->arch}}));
            for (const Diagnostic& d : report->diagnostics)
                if (d.severity == "error" || d.severity == "fatal error")
                    ImGui::TextWrapped("%s:%d: %s", d.file.c_str(), d.line, d.message.c_str());
            ui.note_item("kview_resources_error");
            break;
        case ResourceReport::Status::Ok: draw_resource_table(ui, *report, r); break;
    }
}

}  // namespace attnlab::gui::learner_kernels
