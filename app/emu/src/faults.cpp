// The faults that stop a launch: recorded once per launch (the first wins),
// the faulting fiber unwound, and the threads involved named (who waits
// where, who raced with whom, who read what no thread wrote).
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <stdexcept>

#include "block_state.hpp"

namespace attnlab::emu::detail {

void record_fault(Fault f) {
    Worker& w = worker;
    w.block_fault = true;
    f.block = to_dim(blockIdx);
    Launch& L = *w.launch;
    std::lock_guard<std::mutex> lock(L.m);
    if (L.fault.kind == FaultKind::None) L.fault = std::move(f);
    L.abort = true;
}

// The faulting thread stops where it stands: it switches to the scheduler and
// is never resumed, and its frames are never unwound (release_fibers() takes
// its stack back). No exception passes through the learner's frames: g++
// marks the sanitizer's hooks (and the functions that only call them)
// nothrow, and an exception through such a call site ends the program
// (std::terminate) instead of stopping the launch.
[[noreturn]] void abort_thread(Fault f) {
    FiberThread* ft = current();
    if (!ft) std::abort();  // callers check: a fault outside a kernel is the host's (host_fault)
    f.thread = to_dim(ft->idx);
    record_fault(std::move(f));
    Worker& w = worker;
    ft->state = RunState::Done;
    ++w.done;
    switch_to(w, ft, nullptr);
    std::abort();  // never resumed
}

void raise_fault(Fault f) { abort_thread(std::move(f)); }

}  // namespace attnlab::emu::detail

namespace attnlab::emu {
namespace {
std::atomic<HostFaultHandler> host_fault_handler{nullptr};
}  // namespace

void set_host_fault_handler(HostFaultHandler handler) { host_fault_handler = handler; }

void host_fault(const char* type, const std::string& what) {
    if (HostFaultHandler handler = host_fault_handler.load()) {
        handler(type, what);
        std::abort();  // a handler never returns
    }
    if (std::string(type) == "std::invalid_argument") throw std::invalid_argument(what);
    throw HostAccessError(what);
}

}  // namespace attnlab::emu

namespace attnlab::emu::detail {

// ---------------------------------------------------------- diagnostics

namespace {

ThreadGroup group_of(Worker& w, RunState state, ThreadActivity what, int line_filter, bool by_line) {
    ThreadGroup g;
    g.what = what;
    for (unsigned i = 0; i < w.nthreads; ++i) {
        const FiberThread& t = *w.threads[i];
        if (t.state != state) continue;
        if (by_line && t.wait_line != line_filter) continue;
        g.threads.push_back(i);
        g.line = t.wait_line;
    }
    return g;
}


}  // namespace

// Reads of never-written shared elements that no other thread's write turned
// into a race before the barrier: initcheck. True when one was reported.
bool report_unwritten_reads(Worker& w) {
    for (const UnwrittenRead& u : w.unwritten_reads) {
        // Every entry read garbage, even if a thread wrote the element later
        // (a later write without ordering already stopped the block as a race).
        Fault f;
        f.kind = FaultKind::UninitializedRead;
        f.space = MemorySpace::Shared;
        f.buffer = u.region->name;
        f.index = u.index;
        f.size = u.region->count;
        f.element_type = u.region->type;
        f.line = u.line;
        f.thread = to_dim(w.threads[u.thread]->idx);
        record_fault(std::move(f));
        return true;
    }
    w.unwritten_reads.clear();
    return false;
}

// Nothing can run: say who waits where and who is missing.
void stuck_block_fault(Worker& w, bool warp_waiting, bool any_done) {
    Fault f;
    f.kind = warp_waiting ? FaultKind::WarpDivergence : FaultKind::BarrierDivergence;
    std::vector<int> lines;
    const RunState waiting = warp_waiting ? RunState::AtWarpOp : RunState::AtBarrier;
    for (unsigned i = 0; i < w.nthreads; ++i)
        if (w.threads[i]->state == waiting &&
            std::find(lines.begin(), lines.end(), w.threads[i]->wait_line) == lines.end())
            lines.push_back(w.threads[i]->wait_line);
    for (int line : lines) f.groups.push_back(group_of(w, waiting, ThreadActivity::Waiting, line, true));
    if (warp_waiting) {
        ThreadGroup at_barrier = group_of(w, RunState::AtBarrier, ThreadActivity::AtBarrier, 0, false);
        if (!at_barrier.threads.empty()) f.groups.push_back(at_barrier);
    }
    if (any_done) f.groups.push_back(group_of(w, RunState::Done, ThreadActivity::Exited, 0, false));
    f.line = f.groups.front().line;
    const unsigned first = f.groups.front().threads.front();
    f.thread = to_dim(w.threads[first]->idx);
    record_fault(std::move(f));
}

std::vector<ThreadGroup> mismatched_groups(const Worker& w, const WarpState& ws, const FiberThread& me, unsigned mask, int line) {
    std::vector<ThreadGroup> groups;
    const unsigned first = me.warp * 32;
    for (const PendingWarpOp& p : ws.pending) {
        if (!(p.mask & mask)) continue;
        for (unsigned l = 0; l < 32; ++l) {
            if (!(p.arrived >> l & 1) || first + l >= w.nthreads) continue;
            const int at = w.threads[first + l]->wait_line;
            auto g = std::find_if(groups.begin(), groups.end(), [&](const ThreadGroup& x) { return x.line == at; });
            if (g == groups.end()) g = groups.insert(groups.end(), ThreadGroup{ThreadActivity::Waiting, at, {}});
            g->threads.push_back(first + l);
        }
    }
    groups.push_back(ThreadGroup{ThreadActivity::Waiting, line, {me.linear}});
    return groups;
}

// ---------------------------------------------- raised by device-side code

Fault access_fault(FaultKind kind, MemorySpace space, bool write, const std::string& buffer, int64_t index,
                   int64_t size, const char* type, int line) {
    Fault f;
    f.kind = kind;
    f.space = space;
    f.is_write = write;
    f.buffer = buffer;
    f.index = index;
    f.size = size;
    f.element_type = type;
    f.line = line;
    return f;
}

void fault_access(FaultKind kind, MemorySpace space, bool write, const std::string& buffer,
                  int64_t index, int64_t size, const char* type, int line) {
    abort_thread(access_fault(kind, space, write, buffer, index, size, type, line));
}

bool loop_wraparound(bool write, bool other_write, int line, int other_line) {
    if (write == other_write) return false;
    const int w_line = write ? line : other_line, r_line = write ? other_line : line;
    if (w_line <= 0 || w_line >= r_line) return false;
    for (int b : worker.released_barrier_lines)
        if (b > w_line && b < r_line) return true;
    return false;
}

void fault_race(const SharedRegion& r, int64_t index, bool write, int other_thread, bool other_write,
                int other_line, int line, const char* detail) {
    Fault f;
    if (detail) f.detail = detail;
    else if (loop_wraparound(write, other_write, line, other_line)) f.detail = "loop_wraparound";
    f.other_block = to_dim(blockIdx);  // a shared race is always within one block
    f.kind = FaultKind::SharedRace;
    f.space = MemorySpace::Shared;
    f.is_write = write;
    f.buffer = r.name;
    f.index = index;
    f.size = r.count;
    f.element_type = r.type;
    f.line = line;
    f.other_thread = to_dim(worker.threads[other_thread]->idx);
    f.other_is_write = other_write;
    f.other_line = other_line;
    abort_thread(std::move(f));
}

void note_unwritten_shared_read(const SharedRegion& r, int64_t index, int line) {
    worker.unwritten_reads.push_back({&r, index, current_thread->linear, line});
}

void fault_step_limit(int line) {
    Fault f;
    f.kind = FaultKind::StepLimit;
    f.line = line;
    abort_thread(std::move(f));
}

}  // namespace attnlab::emu::detail
