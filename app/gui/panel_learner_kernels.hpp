#pragma once
// What the files of the learner's Kernel tab share (private to app/gui): the
// tab is drawn by panel_learner_kernels.cpp from one file per view
// (_launches: the launch selector; _blocks: the grid of blocks; _threads: the
// selected block's threads; _tensors: the selected thread over the tensors;
// _requests: the warp requests and their lanes; _resources: NVRTC's figures
// and the occupancy), the selections they follow (_selection) and the
// helpers they all draw with (_common).
#include <map>
#include <string>
#include <vector>

#include "ui.hpp"

namespace attnlab::gui::learner_kernels {

using emu::MemorySpace;

// ---- panel_learner_kernels_common.cpp: how every view writes and marks ----

// A section that collapses: the header names it (the part of the title
// before ": "), the rest of the title (what to do there) is its first line.
// A header too wide for the pane shows its whole title on hover. Returns
// whether the section is open.
bool section(Ui& ui, const std::string& title, const char* id, bool open_by_default = true);
// An explanation a learner reads once: folded under "How to read this", so
// the figures keep the room.
void legend(Ui& ui, const std::string& text, const char* id);
// Text that wraps without breaking a number ("3." / "00").
void wrapped(const std::string& text);
// Greyed text that wraps (TextDisabled does not).
void disabled_wrapped(const std::string& text);
std::string coords_text(const std::vector<int64_t>& c);
unsigned linear_thread(const emu::Dim3& t, const emu::Dim3& block);
// A white cross over a faulting cell: a shape, so the fault stands out with
// any colour vision (red next to brown is one colour to many eyes).
void mark_cross(ImDrawList* dl, ImVec2 lo, ImVec2 hi);

inline constexpr ImU32 kFault = IM_COL32(205, 55, 55, 255);
inline constexpr ImU32 kDarkText = IM_COL32(12, 12, 12, 255);

// ---- panel_learner_kernels_selection.cpp: the selections and what follows from them ----

// Keeps selections valid and the derived data in step with them.
void refresh(Ui& ui, const Exercise& e, const CaseOutcome& c);
// The selected block's footprint (nullptr when the grid is too large to have them).
const BlockFootprint* selected_footprint(const CudaKernelView& v);
// The selected launch as the views draw it: the check's, with any blocks
// recorded since spliced in (refresh() keeps it current).
const emu::LaunchReport& shown_launch(Ui& ui, const CaseOutcome& c);
// The key of a buffer in CudaKernelView::marks ("g:out", "s:shared").
std::string marks_key(MemorySpace space, const std::string& buffer);

// ---- the views, one file each ----

// _launches: the case and launch selectors, the launch's counts and its fault.
void draw_launch_selector(Ui& ui, const CheckResult& r, const CaseOutcome& c);
// _blocks: the grid of blocks, each labelled with the slice of the output it
// wrote, then the selected block in words and its recording after the check.
void draw_blocks(Ui& ui, const emu::LaunchReport& launch, const KernelBuffer& out, int64_t numel);
// _threads: the selected block's threads as squares, one row per warp.
void draw_threads(Ui& ui, const emu::LaunchReport& launch);
// _tensors: what the selected thread read and wrote, over each tensor's layout.
void draw_selected_thread(Ui& ui, const emu::LaunchReport& launch);
// _requests: the block's warp requests; returns whether the list is shown,
// and then the selected request's lanes and the sectors (or banks) they touched.
bool draw_request_list(Ui& ui);
void draw_request_detail(Ui& ui);
// _resources: NVRTC's registers, shared memory and spills, and the occupancy
// of the learner's block size, for a chosen architecture.
void draw_resources(Ui& ui, const CheckResult* r);

}  // namespace attnlab::gui::learner_kernels
