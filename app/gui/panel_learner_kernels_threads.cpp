// The learner's Kernel tab: the selected block's threads, one row of squares
// per warp (a click selects one), the warp request's lanes and the threads a
// fault names ringed.
#include <algorithm>

#include "panel_learner_kernels.hpp"

namespace attnlab::gui::learner_kernels {

void draw_threads(Ui& ui, const emu::LaunchReport& launch) {
    CudaKernelView& v = ui.cuda_kernel;
    const long threads = static_cast<long>(v.threads.size());
    if (threads == 0) return;
    if (const BlockFootprint* block = selected_footprint(v); block && !block->recorded) {
        disabled_wrapped(ui.t(msg::gui_kview_threads_unrecorded));  // dark squares here mean "not recorded", not idle
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

}  // namespace attnlab::gui::learner_kernels
