// The learner's Kernel tab: the selected block's warp requests and, for the
// selected one, its lanes' addresses and the sectors (or banks) they touched.
#include <algorithm>

#include "panel_learner_kernels.hpp"

namespace attnlab::gui::learner_kernels {

namespace {

// Distinguishable colours for items (sectors, banks, words): the Okabe–Ito
// palette, told apart with the common colour-vision deficiencies, repeating
// after eight (the labels beside them keep repeats apart). No red first:
// the first item is often a broadcast, which is no error.
ImU32 item_color(size_t i, size_t n, float value = 1.0f) {
    (void)n;
    static const ImU32 kOkabeIto[] = {
        IM_COL32(86, 180, 233, 255),  IM_COL32(230, 159, 0, 255),   IM_COL32(0, 158, 115, 255),  IM_COL32(240, 228, 66, 255),
        IM_COL32(0, 114, 178, 255),   IM_COL32(204, 121, 167, 255), IM_COL32(153, 153, 153, 255), IM_COL32(213, 94, 0, 255),
    };
    ImVec4 c = ImGui::ColorConvertU32ToFloat4(kOkabeIto[i % 8]);
    c.x *= value, c.y *= value, c.z *= value;
    return ImGui::GetColorU32(c);
}

std::string request_what(Ui& ui, const WarpRequest& r) {
    if (r.space == MemorySpace::Shared) return ui.t(r.is_write ? msg::gui_kview_shared_store : msg::gui_kview_shared_load);
    return ui.t(r.is_write ? msg::gui_kview_global_store : msg::gui_kview_global_load, {{"name", r.buffer()}});
}

std::string request_cost(const WarpRequest& r) {
    return r.space == MemorySpace::Global ? std::to_string(r.sectors.size()) : std::to_string(r.wavefronts);
}

// Lanes as boxes coloured by the sector (or bank) they touched, then the
// distinct sectors in the same colours.
void draw_lane_strip(Ui& ui, const WarpRequest& r) {
    const bool global = r.space == MemorySpace::Global;
    std::vector<uint64_t> keys;  // distinct sectors (per buffer, in r.sectors order) or banks
    if (global)
        for (const auto& s : r.sectors) keys.push_back(s.second);
    else
        for (const LaneAccess& l : r.lanes)
            if (std::find(keys.begin(), keys.end(), l.sector) == keys.end()) keys.push_back(l.sector);
    if (!global) std::sort(keys.begin(), keys.end());
    auto key_of = [&](const LaneAccess& l) -> size_t {
        if (global) {
            const auto it = std::find(r.sectors.begin(), r.sectors.end(), std::make_pair(l.buffer, l.sector));
            return static_cast<size_t>(it - r.sectors.begin());
        }
        return static_cast<size_t>(std::find(keys.begin(), keys.end(), l.sector) - keys.begin());
    };
    const float avail = ImGui::GetContentRegionAvail().x;
    const float box = std::clamp(avail / 32.0f - 2.0f, 8.0f, ImGui::GetFontSize() * 1.6f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImVec2 p = ImGui::GetCursorScreenPos();
    const bool numbers = box >= ImGui::CalcTextSize("00").x + 2;
    for (const LaneAccess& l : r.lanes) {
        const ImVec2 a(p.x + static_cast<float>(l.lane) * (box + 2), p.y);
        dl->AddRectFilled(a, ImVec2(a.x + box, a.y + box), item_color(key_of(l), keys.size()));
        if (numbers) dl->AddText(ImVec2(a.x + 1, a.y + (box - ImGui::GetFontSize()) / 2), kDarkText, std::to_string(l.lane).c_str());
    }
    ImGui::Dummy(ImVec2(32 * (box + 2), box + 4));
    ui.note_item("kview_lanes");
    // The sectors / banks themselves, as labelled chips.
    p = ImGui::GetCursorScreenPos();
    float x = p.x;
    const float chip_h = ImGui::GetFontSize() + 4;
    float y = p.y;
    for (size_t i = 0; i < keys.size(); ++i) {
        const std::string label = (global ? r.sectors[i].first + ":" : "") + std::to_string(keys[i]);
        const float w = ImGui::CalcTextSize(label.c_str()).x + 8;
        if (x + w > p.x + avail && x > p.x) {
            x = p.x;
            y += chip_h + 2;
        }
        dl->AddRectFilled(ImVec2(x, y), ImVec2(x + w, y + chip_h), item_color(i, keys.size()), 3.0f);
        dl->AddText(ImVec2(x + 4, y + 2), kDarkText, label.c_str());
        x += w + 3;
    }
    ImGui::Dummy(ImVec2(avail, y - p.y + chip_h + 2));
}

}  // namespace

bool draw_request_list(Ui& ui) {
    CudaKernelView& v = ui.cuda_kernel;
    if (!section(ui, ui.t(msg::gui_kview_requests_title, {{"block", std::to_string(v.block)}, {"n", std::to_string(v.requests.size())}}), "requests")) return false;
    legend(ui, ui.t(msg::gui_kview_requests_legend), "requests");
    if (v.requests.empty()) {
        wrapped(ui.t(msg::gui_kview_requests_none));
        return false;
    }
    const float row_h = ImGui::GetTextLineHeightWithSpacing();
    const float h = row_h * static_cast<float>(std::min<size_t>(v.requests.size(), 12) + 1) + 6;
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("kview_requests", 6, flags, ImVec2(0, h))) return false;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("#", ImGuiTableColumnFlags_WidthStretch, 0.4f);
    for (MessageKey k : {msg::gui_kview_col_warp, msg::gui_kview_col_access, msg::gui_kview_col_line, msg::gui_kview_col_lanes, msg::gui_kview_col_cost})
        ImGui::TableSetupColumn(ui.t(k).c_str(), ImGuiTableColumnFlags_WidthStretch, k == msg::gui_kview_col_access ? 2.0f : 0.8f);
    ImGui::TableHeadersRow();
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(v.requests.size()));
    while (clipper.Step())
        for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
            const WarpRequest& r = v.requests[static_cast<size_t>(i)];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            if (ImGui::Selectable((std::to_string(i + 1) + "##req" + std::to_string(i)).c_str(), i == v.request, ImGuiSelectableFlags_SpanAllColumns))
                v.request = i;
            if (i < 64) ui.note_item("kview_request:" + std::to_string(i));
            ImGui::TableNextColumn();
            ImGui::Text("%u", r.warp);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(request_what(ui, r).c_str());
            ImGui::TableNextColumn();
            ImGui::Text("%d", r.line);
            ImGui::TableNextColumn();
            ImGui::Text("%zu/%u", r.lanes.size(), r.warp_lanes);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(request_cost(r).c_str());
        }
    ImGui::EndTable();
    ui.note_item("kview_requests");
    return true;
}

void draw_request_detail(Ui& ui) {
    CudaKernelView& v = ui.cuda_kernel;
    if (v.request < 0 || v.request >= static_cast<int>(v.requests.size())) return;
    const WarpRequest& r = v.requests[static_cast<size_t>(v.request)];
    const bool global = r.space == MemorySpace::Global;
    ImGui::TextUnformatted(ui.t(msg::gui_kview_request_title, {{"n", std::to_string(v.request + 1)}, {"warp", std::to_string(r.warp)},
                                                            {"line", std::to_string(r.line)}, {"what", request_what(ui, r)}})
                               .c_str());
    ui.note_item("kview_request");
    const std::string lanes = std::to_string(r.lanes.size());
    ImGui::TextWrapped("%s", global ? ui.t(msg::gui_kview_request_sectors, {{"lanes", lanes}, {"sectors", std::to_string(r.sectors.size())}}).c_str()
                                    : ui.t(msg::gui_kview_request_banks, {{"lanes", lanes}, {"wavefronts", std::to_string(r.wavefronts)},
                                                                        {"conflicts", std::to_string(r.bank_conflicts)}})
                                          .c_str());
    if (r.partial())
        wrapped(ui.t(msg::gui_kview_request_partial, {{"lanes", lanes}, {"warp_lanes", std::to_string(r.warp_lanes)}}));
    draw_lane_strip(ui, r);
    const KernelBuffer* b = global ? find_buffer(v.buffers, r.buffer()) : nullptr;
    const float h = ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(std::min<size_t>(r.lanes.size(), 12) + 1) + 6;
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("kview_lane_table", 4, flags, ImVec2(0, h))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    for (MessageKey k : {msg::gui_kview_col_lane, msg::gui_kview_col_element, msg::gui_kview_col_bytes, global ? msg::gui_kview_col_sector : msg::gui_kview_col_bank})
        ImGui::TableSetupColumn(ui.t(k).c_str());
    ImGui::TableHeadersRow();
    for (const LaneAccess& l : r.lanes) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("%u", l.lane);
        ImGui::TableNextColumn();
        const std::string element = l.buffer + "[" + coords_text(unravel_index(l.index, b ? b->shape : Shape{})) + "]";
        ImGui::TextUnformatted(element.c_str());
        ImGui::TableNextColumn();
        ImGui::Text("%lld", static_cast<long long>(l.byte_address));
        ImGui::TableNextColumn();
        ImGui::Text("%llu", static_cast<unsigned long long>(l.sector));
    }
    ImGui::EndTable();
}

}  // namespace attnlab::gui::learner_kernels
