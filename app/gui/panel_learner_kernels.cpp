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
// The views are one file each (panel_learner_kernels.hpp lists them); this
// one lays them out.
#include "attnlab/core/text/report.hpp"
#include "panel_learner_kernels.hpp"

namespace attnlab::gui::learner_kernels {

namespace {

void draw_left(Ui& ui, const CheckResult& r, const CaseOutcome& c) {
    CudaKernelView& v = ui.cuda_kernel;
    const emu::LaunchReport& launch = shown_launch(ui, c);
    const KernelBuffer& out = v.buffers.front();
    int64_t numel = 1;
    for (int64_t d : out.shape) numel *= d;
    draw_launch_selector(ui, r, c);
    if (section(ui, ui.t(msg::gui_kview_grid_title, {{"kernel", launch.kernel}, {"out", out.name}}), "blocks")) draw_blocks(ui, launch, out, numel);
    if (section(ui, ui.t(msg::gui_kview_threads_title, {{"block", std::to_string(v.block)}}), "threads")) {
        legend(ui, ui.t(msg::gui_kview_threads_legend), "threads");
        draw_threads(ui, launch);
    }
}

}  // namespace

}  // namespace attnlab::gui::learner_kernels

namespace attnlab::gui {

void draw_learner_kernels_panel(Ui& ui) {
    using namespace learner_kernels;
    const CheckResult* r = ui.session.last_result();
    const Exercise* e = ui.session.current();
    const CaseOutcome* c = r && !r->cases.empty() ? view_case(ui) : nullptr;
    if (!r || !e || !c) {
        draw_no_result(ui);
        draw_resources(ui, r);
        return;
    }
    if (c->kernels.launches.empty()) {
        // "Launched no kernel" only where the case ran to its end; a timeout
        // or a crash leaves no record of what was launched.
        const bool finished = c->has_output() || c->verdict == Verdict::KernelRule || c->verdict == Verdict::KernelFault;
        if (finished) wrapped(ui.t(msg::gui_kview_no_launches));
        else wrapped(ui.t(msg::gui_kview_no_launches_recorded, {{"verdict", verdict_title(c->verdict, ui.session.lang())}}));
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
        draw_selected_thread(ui, launch);
        if (draw_request_list(ui)) draw_request_detail(ui);
        draw_resources(ui, r);
        draw_roofline(ui, r);
        draw_versions(ui, r);
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
    draw_versions(ui, r);
    ImGui::EndChild();
    ImGui::TableNextColumn();
    ImGui::BeginChild("kview_right", ImVec2(0, ImGui::GetContentRegionAvail().y), false);
    draw_selected_thread(ui, launch);
    if (draw_request_list(ui)) draw_request_detail(ui);
    ImGui::EndChild();
    ImGui::EndTable();
}

}  // namespace attnlab::gui
