// The learner's Kernel tab: the selections (launch, block, thread, warp
// request) kept valid, and the data derived from the trace for them, rebuilt
// only when what they depend on changes.
#include <algorithm>

#include "panel_learner_kernels.hpp"

namespace attnlab::gui::learner_kernels {

namespace {

// The first launch that faulted, else the first.
int default_launch(const CaseOutcome& c) {
    for (size_t i = 0; i < c.kernels.launches.size(); ++i)
        if (!c.kernels.launches[i].ok()) return static_cast<int>(i);
    return 0;
}

// Per buffer, per element: 1 = read by the thread, 2 = written by it,
// 4 = read by the block, 8 = written by the block. Built when the selection
// changes, not per frame (a block may have made a hundred thousand accesses).
std::map<std::string, std::map<int64_t, int>> touch_marks(const std::vector<BufferTouches>& thread, const std::vector<BufferTouches>& block) {
    std::map<std::string, std::map<int64_t, int>> marks;
    for (const BufferTouches& t : block) {
        std::map<int64_t, int>& m = marks[marks_key(t.space, t.buffer)];
        for (const ElementTouch& e : t.reads) m[e.index] |= 4;
        for (const ElementTouch& e : t.writes) m[e.index] |= 8;
    }
    for (const BufferTouches& t : thread) {
        std::map<int64_t, int>& m = marks[marks_key(t.space, t.buffer)];
        for (const ElementTouch& e : t.reads) m[e.index] |= 1;
        for (const ElementTouch& e : t.writes) m[e.index] |= 2;
    }
    return marks;
}

// A new result or another case: every selection starts again.
void follow_case(Ui& ui, const Exercise& e, const CaseOutcome& c) {
    CudaKernelView& v = ui.cuda_kernel;
    const int generation = ui.session.result_generation();
    if (v.built_generation == generation && v.built_case == c.index) return;
    v.launch = -1;
    v.built_launch = -1;
    v.buffers = kernel_buffers(e, c);
    v.built_generation = generation;
    v.built_case = c.index;
}

// The selected launch (the faulted one unless chosen) and its blocks.
void follow_launch(Ui& ui, const CaseOutcome& c) {
    CudaKernelView& v = ui.cuda_kernel;
    if (v.launch < 0 || v.launch >= static_cast<int>(c.kernels.launches.size())) v.launch = default_launch(c);
    const emu::LaunchReport& checked = c.kernels.launches[static_cast<size_t>(v.launch)];
    const int recordings = ui.session.recordings_generation();
    if (v.built_launch == v.launch && v.built_recordings == recordings) return;
    // A block recorded after the check arrived: its accesses join the
    // views, and the selection stays where the learner put it.
    const std::vector<BlockRecording>& recorded = ui.session.recorded_blocks();
    const size_t index = static_cast<size_t>(v.launch);
    v.spliced.reset();
    if (std::any_of(recorded.begin(), recorded.end(), [&](const BlockRecording& r) { return recording_matches(r, checked, c.index, index); }))
        v.spliced = with_recorded_blocks(checked, c.index, index, recorded);
    v.blocks = block_footprints(checked, v.buffers, c.index, index, recorded);
    if (v.built_launch != v.launch) v.block = v.thread = -1;
    v.built_launch = v.launch;
    v.built_recordings = recordings;
    v.built_block = -1;
}

// The selected block (the faulted one, else the first that wrote output) and
// its threads, accesses and warp requests; a new block selects the thread
// the fault names, if any.
void follow_block(CudaKernelView& v, const emu::LaunchReport& launch) {
    const long blocks = static_cast<long>(std::min<uint64_t>(launch.grid.count(), 1u << 30));
    if (v.block < 0 || v.block >= blocks) {
        v.block = 0;
        if (fault_has_block(launch.fault)) v.block = static_cast<long>(linear_block(launch.fault.block, launch.grid));
        else
            for (const BlockFootprint& f : v.blocks)
                if (f.wrote_output()) {
                    v.block = static_cast<long>(f.block);
                    break;
                }
        v.block = std::clamp(v.block, 0L, std::max(blocks - 1, 0L));
    }
    if (v.built_block == v.block) return;
    v.threads = thread_activity(launch, static_cast<uint64_t>(v.block));
    v.block_touches = block_accesses(launch, v.buffers, static_cast<uint64_t>(v.block));
    v.requests = warp_requests(launch, static_cast<uint64_t>(v.block));
    v.built_block = v.block;
    v.built_thread = -1;
    v.request = -1;
    const bool fault_here = fault_has_block(launch.fault) && linear_block(launch.fault.block, launch.grid) == static_cast<uint64_t>(v.block);
    v.thread = fault_here ? static_cast<long>(linear_thread(launch.fault.thread, launch.block)) : -1;
}

// The selected thread (else the block's first active one) and its accesses.
void follow_thread(CudaKernelView& v, const emu::LaunchReport& launch) {
    const long threads = static_cast<long>(v.threads.size());
    if (v.thread < 0 || v.thread >= threads) {
        v.thread = 0;
        for (long t = 0; t < threads; ++t)
            if (v.threads[static_cast<size_t>(t)].active()) {
                v.thread = t;
                break;
            }
    }
    if (v.built_thread == v.thread) return;
    v.thread_touches = thread_accesses(launch, v.buffers, static_cast<uint64_t>(v.block), static_cast<unsigned>(v.thread));
    v.marks = touch_marks(v.thread_touches, v.block_touches);
    v.built_thread = v.thread;
    v.request = -1;  // the requests follow the thread's warp
}

// The selected warp request: by default the first global load of the
// selected thread's warp (the coalescing question).
void follow_request(CudaKernelView& v) {
    if (v.request >= 0 && v.request < static_cast<int>(v.requests.size())) return;
    v.request = v.requests.empty() ? -1 : 0;
    for (size_t i = 0; i < v.requests.size(); ++i)
        if (v.requests[i].warp == static_cast<unsigned>(v.thread / 32) && v.requests[i].space == MemorySpace::Global && !v.requests[i].is_write) {
            v.request = static_cast<int>(i);
            break;
        }
}

}  // namespace

std::string marks_key(MemorySpace space, const std::string& buffer) { return (space == MemorySpace::Shared ? "s:" : "g:") + buffer; }

void refresh(Ui& ui, const Exercise& e, const CaseOutcome& c) {
    follow_case(ui, e, c);
    follow_launch(ui, c);
    CudaKernelView& v = ui.cuda_kernel;
    const emu::LaunchReport& launch = shown_launch(ui, c);
    follow_block(v, launch);
    follow_thread(v, launch);
    follow_request(v);
}

const BlockFootprint* selected_footprint(const CudaKernelView& v) {
    return v.block >= 0 && v.block < static_cast<long>(v.blocks.size()) ? &v.blocks[static_cast<size_t>(v.block)] : nullptr;
}

const emu::LaunchReport& shown_launch(Ui& ui, const CaseOutcome& c) {
    const CudaKernelView& v = ui.cuda_kernel;
    return v.spliced ? *v.spliced : c.kernels.launches[static_cast<size_t>(v.launch)];
}

}  // namespace attnlab::gui::learner_kernels
