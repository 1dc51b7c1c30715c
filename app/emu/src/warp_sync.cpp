// __syncthreads (and its votes) and the warp operations (__shfl_*_sync,
// __syncwarp, __ballot_sync, __all_sync, __any_sync) as device code calls
// them: the calling fiber waits until its block's or its lanes' last thread
// arrives, which completes the operation for all of them.
#include <algorithm>

#include "block_state.hpp"

namespace attnlab::emu::detail {

void block_barrier(int line) {
    FiberThread* ft = current();
    if (!ft) return;
    ft->state = RunState::AtBarrier;
    ft->wait_line = line;
    Worker& w = worker;
    if (w.at_barrier++ == 0) w.barrier_line = line;
    else if (line != w.barrier_line) w.barrier_lines_differ = true;
    yield(ft);
}

int block_barrier_vote(int predicate, int line) {
    if (!current()) return predicate != 0;
    Worker& w = worker;
    const unsigned generation = w.barrier_generation;
    w.barrier_votes[generation & 1] += predicate != 0;
    block_barrier(line);
    return static_cast<int>(w.barrier_votes[generation & 1]);
}

namespace {

uint64_t warp_result(const FiberThread& t, FiberThread* const* lanes, unsigned arrived) {
    const int w = t.width, lane = int(t.lane), base = lane & ~(w - 1), in_segment = lane & (w - 1);
    int src = -1;
    switch (t.op) {
    case WarpOp::Shfl: src = base + (t.arg & (w - 1)); break;
    case WarpOp::ShflUp: src = in_segment >= t.arg ? lane - t.arg : -1; break;
    case WarpOp::ShflDown: src = in_segment + t.arg < w ? lane + t.arg : -1; break;
    // A lane may read from an earlier group of `width`, never from a later one.
    case WarpOp::ShflXor: src = (lane ^ t.arg) <= base + w - 1 ? lane ^ t.arg : -1; break;
    case WarpOp::Sync: return 0;
    case WarpOp::Ballot:
    case WarpOp::All:
    case WarpOp::Any: {
        unsigned votes = 0;
        for (int l = 0; l < 32; ++l)
            if ((arrived >> l & 1) && lanes[l]->value) votes |= 1u << l;
        if (t.op == WarpOp::Ballot) return votes;
        if (t.op == WarpOp::All) return votes == arrived;
        return votes != 0;
    }
    }
    if (src < 0 || src >= 32 || !(arrived >> src & 1)) return t.value;  // undefined in CUDA: own value
    return lanes[src]->value;
}

}  // namespace

uint64_t warp_op(WarpOp op, unsigned mask, uint64_t value, int arg, int width, int line) {
    FiberThread* ft = current();
    if (!ft) return value;
    Worker& w = worker;
    WarpState& ws = w.warps[ft->warp];
    const unsigned needed = mask & ws.existing;
    const bool bad_width = width < 1 || width > 32 || (width & (width - 1));
    size_t group = ws.pending.size();
    bool mismatched = false;
    for (size_t g = 0; g < ws.pending.size(); ++g) {
        const PendingWarpOp& p = ws.pending[g];
        if (!(p.mask & mask)) continue;  // a disjoint lane group: independent
        if (p.mask == mask && p.op == op) group = g;
        else mismatched = true;
    }
    if (!(needed >> ft->lane & 1) || bad_width || mismatched) {
        Fault f;
        f.kind = FaultKind::WarpDivergence;
        f.line = line;
        f.detail = bad_width ? "bad_width" : !(needed >> ft->lane & 1) ? "lane_not_in_mask" : "mismatched_ops";
        if (mismatched) f.groups = mismatched_groups(w, ws, *ft, mask, line);
        abort_thread(std::move(f));
    }
    if (group == ws.pending.size()) ws.pending.push_back({mask, 0, op});
    ft->op = op;
    ft->value = value;
    ft->arg = arg;
    ft->width = width;
    ft->wait_line = line;
    ws.pending[group].arrived |= 1u << ft->lane;
    count_step(*ft, line);
    if (ws.pending[group].arrived != needed) {
        ft->state = RunState::AtWarpOp;
        ++w.at_warp;
        yield(ft);
        return ft->result;
    }
    // Last lane in: every lane gets its result, the waiting ones wake up.
    FiberThread* lanes[32] = {nullptr};
    const unsigned first = ft->warp * 32;
    for (unsigned l = 0; l < 32 && first + l < w.nthreads; ++l) lanes[l] = w.threads[first + l].get();
    const unsigned arrived = ws.pending[group].arrived;
    ws.pending.erase(ws.pending.begin() + std::ptrdiff_t(group));
    for (unsigned l = 0; l < 32; ++l)
        if (arrived >> l & 1) lanes[l]->result = warp_result(*lanes[l], lanes, arrived);
    for (unsigned l = 0; l < 32; ++l)
        if ((arrived >> l & 1) && lanes[l] != ft) {
            lanes[l]->state = RunState::Runnable;
            --w.at_warp;
        }
    ++w.counters.warp_syncs;
    if (arrived == ws.existing) close_warp(w, ft->warp);  // the whole warp is here: its logs are complete
    if (op == WarpOp::Sync) ws.syncs = ++w.epoch;  // orders the lanes' shared accesses
    return ft->result;
}

}  // namespace attnlab::emu::detail

namespace attnlab::emu::raw {
void count_tensor_flops(int64_t flops) {
    if (detail::current_thread && !detail::current_thread->checks) return;  // a sampled launch counts its checked blocks alone
    detail::worker.counters.tensor_flops += flops;
}
bool block_checked() { return !detail::current_thread || detail::current_thread->checks; }
}  // namespace attnlab::emu::raw
