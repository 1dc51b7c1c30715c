// The learner's Kernel tab: which case and which of its launches the views
// show, the launch's counts, and the fault that stopped it.
#include <algorithm>

#include "attnlab/core/text/launch_words.hpp"
#include "attnlab/core/text/number_format.hpp"
#include "attnlab/core/text/report.hpp"
#include "label_before.hpp"
#include "panel_learner_kernels.hpp"

namespace attnlab::gui::learner_kernels {

namespace {

std::string dim_text(const emu::Dim3& d) { return std::to_string(d.x) + "×" + std::to_string(d.y) + "×" + std::to_string(d.z); }

std::string launch_line(Ui& ui, const emu::LaunchReport& l) {
    std::string s = ui.t(msg::gui_kview_launch_line, {{"kernel", l.kernel}, {"grid", dim_text(l.grid)}, {"block", dim_text(l.block)}});
    if (l.dynamic_shared_bytes) s += ", " + ui.t(msg::gui_kview_launch_smem, {{"bytes", format_count(l.dynamic_shared_bytes, ui.session.lang())}});
    if (!l.ok()) s += " (" + ui.t(msg::gui_kview_launch_fault, {{"code", fault_name(emu::fault_code(l.fault.kind), ui.session.lang())}}) + ")";
    return s;
}

}  // namespace

void draw_launch_selector(Ui& ui, const CheckResult& r, const CaseOutcome& c) {
    CudaKernelView& v = ui.cuda_kernel;
    const std::string current = std::to_string(c.index + 1) + ". " + c.name.get(ui.session.lang());
    // As wide as the case's name, within the pane (its label before it).
    label_before(ui.t(msg::gui_views_case));
    ImGui::SetNextItemWidth(std::min(ImGui::CalcTextSize(current.c_str()).x + ImGui::GetFrameHeight() * 2,
                                     std::max(ImGui::GetFontSize() * 8, ImGui::GetContentRegionAvail().x)));
    if (ImGui::BeginCombo("##kview_case", current.c_str())) {
        for (const auto& k : r.cases) {
            const std::string label = std::to_string(k.index + 1) + ". " + k.name.get(ui.session.lang()) + "  (" + verdict_title(k.verdict, ui.session.lang()) + ")";
            if (ImGui::Selectable(label.c_str(), k.index == c.index)) ui.heatmaps.case_index = k.index;
        }
        ImGui::EndCombo();
    }
    ui.note_item("kview_case");
    ImGui::TextUnformatted(ui.t(msg::gui_kview_launches, {{"case", std::to_string(c.index + 1)}}).c_str());
    const emu::LaunchReport& launch = c.kernels.launches[static_cast<size_t>(v.launch)];
    ImGui::SetNextItemWidth(-1);
    if (ImGui::BeginCombo("##kview_launch", (std::to_string(v.launch + 1) + ". " + launch_line(ui, launch)).c_str())) {
        for (size_t i = 0; i < c.kernels.launches.size(); ++i)
            if (ImGui::Selectable((std::to_string(i + 1) + ". " + launch_line(ui, c.kernels.launches[i]) + "##l" + std::to_string(i)).c_str(),
                                  static_cast<int>(i) == v.launch))
                v.launch = static_cast<int>(i);
        ImGui::EndCombo();
    }
    if (ImGui::IsItemHovered() && pointer_moved()) wrapped_tooltip(std::to_string(v.launch + 1) + ". " + launch_line(ui, launch));
    ui.note_item("kview_launch");
    const emu::LaunchCounters& k = launch.counters;
    const Lang lang = ui.session.lang();
    wrapped(ui.t(msg::gui_kview_summary, {{"blocks", format_count(static_cast<int64_t>(launch.grid.count()), lang)},
                                       {"threads", format_count(static_cast<int64_t>(launch.block.count()), lang)},
                                       {"loads", format_count(k.global_load_requests, lang)},
                                       {"sectors", format_fixed(k.sectors_per_load_request(), 2, lang)},
                                       {"stores", format_count(k.global_store_requests, lang)},
                                       {"shared_loads", format_count(k.shared_load_requests, lang)},
                                       {"conflicts", format_count(k.shared_bank_conflicts, lang)}}));
    if (launch.ok()) return;
    const std::string code = fault_name(emu::fault_code(launch.fault.kind), ui.session.lang());
    const std::string text = fault_has_block(launch.fault)
                                 ? ui.t(msg::gui_kview_fault, {{"code", code},
                                                            {"block", std::to_string(linear_block(launch.fault.block, launch.grid))},
                                                            {"thread", std::to_string(linear_thread(launch.fault.thread, launch.block))},
                                                            {"line", std::to_string(launch.fault.line)}})
                                 : ui.t(msg::gui_kview_launch_error, {{"code", code}});
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(IM_COL32(255, 120, 110, 255)));
    wrapped(text);
    ImGui::PopStyleColor();
    ui.note_item("kview_fault");
}

}  // namespace attnlab::gui::learner_kernels
