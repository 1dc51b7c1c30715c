// The emulator's scheduler: a launch's blocks run one after another on the
// launching OS thread; each block's threads are boost.context fibers run
// round-robin.
//
// One "sweep" runs every runnable fiber once; a fiber runs until it blocks
// at __syncthreads, at a warp operation whose lanes have not all arrived, or
// until it returns. After a sweep with nothing runnable left, either every
// live thread waits at the same barrier (release it: a new barrier interval)
// or the block cannot go on (synccheck fault). A warp operation completes in
// the fiber of its last arriving lane, which wakes the others. A blocked
// fiber switches directly to the next runnable one of the sweep; the last one
// switches back to the scheduler.
//
// This file: a block from start to end (block_state.hpp holds what it keeps),
// and a launch's blocks in turn: the checked ones, then any that run the
// kernel's unchecked copy (a sampled case: LaunchOptions::checked_blocks).
#include <algorithm>
#include <utility>

#include "block_state.hpp"
#include "raw_heap.hpp"

namespace attnlab::emu::detail {

thread_local Worker worker;

bool block_of_epoch(uint32_t epoch, Dim3& block) {
    const auto& serials = worker.block_serials;
    auto it = std::upper_bound(serials.begin(), serials.end(), epoch,
                               [](uint32_t e, const std::pair<uint32_t, uint64_t>& p) { return e < p.first; });
    if (it == serials.begin() || !worker.launch) return false;
    block = unlinear(std::prev(it)->second, worker.launch->grid);
    return true;
}

unsigned active_lanes() {
    FiberThread* ft = current();
    if (!ft) return 0;
    Worker& w = worker;
    const unsigned first = ft->warp * 32;
    unsigned mask = 0;
    for (unsigned l = 0; l < 32 && first + l < w.nthreads; ++l)
        if (w.threads[first + l]->state != RunState::Done) mask |= 1u << l;
    return mask;
}

Dim3 thread_of_linear(unsigned linear) { return unlinear(linear, {blockDim.x, blockDim.y, blockDim.z}); }

// ---------------------------------------------------------- counters

// Hand one warp's logs over to be turned into requests, which empties them.
// Called when every lane of the warp is at one program point: a barrier, a
// completed warp operation, the end.
void close_warp(Worker& w, unsigned warp) {
    const unsigned first = warp * 32;
    ThreadState* lanes[32];
    const int count = int(std::min(32u, w.nthreads - first));
    for (int l = 0; l < count; ++l) lanes[l] = w.threads[first + unsigned(l)].get();
    w.counting.hand_over(lanes, count);
}

namespace {

// End of a barrier interval (or of the block): turn the logs into requests.
void close_interval(Worker& w) {
    for (unsigned warp = 0; warp * 32 < w.nthreads; ++warp) close_warp(w, warp);
    for (unsigned i = 0; i < w.nthreads; ++i) {
        FiberThread& t = *w.threads[i];
        ++t.interval_index;
        std::fill(std::begin(t.trace_k), std::end(t.trace_k), 0u);
    }
}

// -------------------------------------------------------- running blocks

// The emulated thread: runs the kernel body, turns an exception of the
// learner's that escapes it into a fault, and returns to the scheduler. (The
// emulator's own faults never unwind: abort_thread().)
ctx::fiber make_fiber(Worker& w, FiberThread* ft) {
    return ctx::fiber(std::allocator_arg, PooledStack{&w.stacks, &ft->stack}, [ft](ctx::fiber&& from) -> ctx::fiber {
        park(worker, std::move(from));
        Fault f;
        try {
            (*worker.body)();
        } catch (const ctx::detail::forced_unwind&) {
            throw;
        } catch (const std::exception& e) {
            f.kind = FaultKind::KernelException;
            f.detail = e.what();
        } catch (...) {
            f.kind = FaultKind::KernelException;
            f.detail = "unknown exception";
        }
        if (f.kind != FaultKind::None) {
            f.thread = to_dim(ft->idx);
            record_fault(std::move(f));
        }
        Worker& w = worker;
        ft->state = RunState::Done;
        ++w.done;
        WarpState& ws = w.warps[ft->warp];
        ws.done |= 1u << ft->lane;
        if (ws.done == ws.existing) close_warp(w, ft->warp);  // its logs are complete: counted while the next warps run
        // Hand over like yield() does; this fiber's own slot receives nothing.
        FiberThread* next = w.block_fault ? nullptr : next_runnable(w, int(ft->linear));
        current_thread = next;
        if (next) threadIdx = next->idx;
        w.suspending = ft;
        return next ? std::move(next->fiber) : std::move(w.scheduler);
    });
}

void start_threads(Worker& w, Launch& L, bool checked) {
    const unsigned n = unsigned(L.block.count());
    while (w.threads.size() < n) w.threads.push_back(std::make_unique<FiberThread>());
    w.nthreads = n;
    if (w.stacks.size != L.options.stack_bytes) {
        w.stacks.clear();
        w.stacks.size = L.options.stack_bytes;
    }
    w.warps.assign((n + 31) / 32, WarpState{});
    w.at_barrier = w.at_warp = w.done = 0;
    w.barrier_lines_differ = false;
    for (unsigned i = 0; i < n; ++i) {
        FiberThread* ft = w.threads[i].get();
        const Dim3 id = unlinear(i, L.block);
        ft->idx = dim3(id.x, id.y, id.z);
        ft->linear = i;
        ft->lane = i % 32;
        ft->warp = i / 32;
        w.warps[ft->warp].existing |= 1u << ft->lane;
        ft->warp_sync = &w.warps[ft->warp].syncs;
        ft->checks = checked && L.options.checks;
        ft->counters = checked && L.options.counters;
        ft->steps = 0;
        ft->step_limit = L.options.max_steps_per_thread;
        ft->bytes_read = ft->bytes_written = ft->atomics = ft->reloaded_bytes = 0;
        ft->global_loads.clear();
        ft->global_stores.clear();
        ft->shared_loads.clear();
        ft->shared_stores.clear();
        ft->interval_index = 0;
        ft->pending_copies.clear();
        ft->committed_groups = 0;
        ft->issuing_copy = false;
        std::fill(std::begin(ft->trace_k), std::end(ft->trace_k), 0u);
        ft->state = RunState::Runnable;
        ft->fiber = make_fiber(w, ft);
    }
}

// Release a barrier every live thread waits at: one pass over the threads,
// then the warps that logged accesses turn them into requests.
bool release_barrier(Worker& w) {
    ++w.barrier_generation;
    w.barrier_votes[w.barrier_generation & 1] = 0;
    bool dirty[32] = {false};
    for (unsigned i = 0; i < w.nthreads; ++i) {
        FiberThread& t = *w.threads[i];
        t.state = RunState::Runnable;
        ++t.interval_index;
        std::fill(std::begin(t.trace_k), std::end(t.trace_k), 0u);
        if (!t.global_loads.empty() || !t.global_stores.empty() || !t.shared_loads.empty() ||
            !t.shared_stores.empty())
            dirty[t.warp] = true;
        if (++t.steps > t.step_limit) {  // a barrier inside an endless loop
            Fault f;
            f.kind = FaultKind::StepLimit;
            f.thread = to_dim(t.idx);
            f.line = t.wait_line;
            record_fault(std::move(f));
            return false;
        }
    }
    for (unsigned warp = 0; warp * 32 < w.nthreads; ++warp)
        if (dirty[warp]) close_warp(w, warp);
    if (std::find(w.released_barrier_lines.begin(), w.released_barrier_lines.end(), w.barrier_line) ==
        w.released_barrier_lines.end())
        w.released_barrier_lines.push_back(w.barrier_line);
    w.at_barrier = 0;
    w.barrier_lines_differ = false;
    clock.interval = ++w.epoch;
    ++w.counters.barriers;
    return true;
}

// After a sweep: release a barrier, finish, or report why the block is stuck.
// Returns false when the block is over (done or faulted).
bool after_sweep(Worker& w) {
    if (w.at_barrier + w.at_warp + w.done < w.nthreads) return true;  // someone can run
    if (w.done == w.nthreads) {  // every thread returned
        report_unwritten_reads(w);
        return false;
    }
    if (w.at_warp || w.done || w.barrier_lines_differ) {
        stuck_block_fault(w, w.at_warp > 0, w.done > 0);
        return false;
    }
    if (report_unwritten_reads(w)) return false;
    return release_barrier(w);
}

// A suspended fiber's handle dropped without its destructor, which would
// unwind the fiber's frames (see abort_thread()).
void forget(ctx::fiber&& fiber) noexcept {
    union Slot {
        ctx::fiber kept;
        Slot() {}
        ~Slot() {}
    } slot;
    new (&slot.kept) ctx::fiber(std::move(fiber));
}

// The fibers still suspended when the block stopped (a fault, an abort, a
// failure of the scheduler itself): their stacks go back to the pool and
// their frames are left as they are. What a stopped thread had allocated is
// not freed: a fault ends the case's launches anyway.
void release_fibers(Worker& w) noexcept {
    for (unsigned i = 0; i < w.nthreads && i < w.threads.size(); ++i) {
        FiberThread* ft = w.threads[i].get();
        if (!ft->fiber) continue;
        forget(std::move(ft->fiber));
        w.stacks.free.push_back(ft->stack);  // room reserved when the stack was made
    }
    current_thread = nullptr;
}

// Something the scheduler itself did threw (outside every fiber), e.g. no
// memory for the emulated threads' stacks: a fault of the launch, never an
// exception out of a pool thread (std::terminate) or out of launch().
void scheduler_failed(Worker& w, Launch& L, const char* what) noexcept {
    current_thread = nullptr;
    release_fibers(w);
    try {
        Fault f;
        f.kind = FaultKind::KernelException;
        f.detail = what;
        record_fault(std::move(f));
    } catch (...) {  // not even the fault's text fits: stop the launch all the same
        w.block_fault = true;
        L.abort = true;
    }
}

void run_block(Worker& w, Launch& L, uint64_t b, bool checked) {
    const Dim3 bid = unlinear(b, L.grid);
    blockIdx = dim3(bid.x, bid.y, bid.z);
    blockDim = dim3(L.block.x, L.block.y, L.block.z);
    gridDim = dim3(L.grid.x, L.grid.y, L.grid.z);
    clock.block_serial = clock.interval = ++w.epoch;
    clock.block_id = next_block_id.fetch_add(1, std::memory_order_relaxed) + 1;
    w.block_serials.emplace_back(clock.block_serial, b);
    w.released_barrier_lines.clear();
    w.block_fault = false;
    w.unwritten_reads.clear();
    w.counting.start_block();
    w.body = checked ? &L.body : &L.unchecked_body;
    start_threads(w, L, checked);
    w.barrier_votes[0] = w.barrier_votes[1] = 0;
    w.barrier_generation = 0;
    const bool traced = checked && L.options.trace && (L.options.trace_all_blocks || bid == L.options.trace_block);
    w.block_linear = b;
    for (unsigned i = 0; i < w.nthreads; ++i) w.threads[i]->trace = traced ? &w.trace : nullptr;

    bool going = true;
    while (going) {
        if (FiberThread* first = next_runnable(w, -1)) switch_to(w, nullptr, first);  // one sweep
        current_thread = nullptr;
        going = !w.block_fault && !L.abort && after_sweep(w);
    }
    release_fibers(w);
    close_interval(w);
    w.counting.end_block();
    LaunchCounters& c = w.counters;
    c.blocks += 1;
    c.unchecked_blocks += checked ? 0 : 1;
    c.threads += w.nthreads;
    c.warps += (w.nthreads + 31) / 32;
    for (unsigned i = 0; i < w.nthreads; ++i) {
        const FiberThread& t = *w.threads[i];
        c.global_bytes_read += t.bytes_read;
        c.global_reloaded_bytes += t.reloaded_bytes;
        c.global_bytes_written += t.bytes_written;
        c.global_atomics += t.atomics;
        w.threads[i]->trace = nullptr;
    }
}

// Whether block b runs the checked kernel: every block does, unless the
// launch has an unchecked copy and its options ask for a sample. A block
// traced on its own (the Kernel tab's "Record this block") is checked too:
// its accesses are what the recording is for.
bool checked_block(const Launch& L, uint64_t b) {
    if (!L.unchecked_body) return true;
    if (L.options.trace && !L.options.trace_all_blocks && unlinear(b, L.grid) == L.options.trace_block) return true;
    return block_in_sample(L.options.checked_blocks, b, L.nblocks);
}

void run_block_or_fail(Worker& w, Launch& L, uint64_t b, bool checked) {
    try {
        run_block(w, L, b, checked);
    } catch (const std::bad_alloc&) {
        scheduler_failed(w, L, "cannot allocate emulated thread stacks");
    } catch (const std::exception& e) {
        scheduler_failed(w, L, e.what());
    } catch (...) {
        scheduler_failed(w, L, "unknown exception in the emulator's scheduler");
    }
}

// The checked blocks first, so none of them reads what an unchecked block
// wrote in this launch (no hook saw those writes); then the others, whose
// changes to device memory are marked written afterwards.
void run_all_blocks(Worker& w, Launch& L) {
    bool sampled = false;
    for (uint64_t b = 0; b < L.nblocks && !L.abort; ++b) {
        if (checked_block(L, b)) run_block_or_fail(w, L, b, true);
        else sampled = true;
    }
    if (!sampled || L.abort) return;
    const raw::UncheckedWrites writes;
    for (uint64_t b = 0; b < L.nblocks && !L.abort; ++b)
        if (!checked_block(L, b)) run_block_or_fail(w, L, b, false);
    writes.mark_changed_bytes();
}

}  // namespace

void run_blocks(Launch& L) {
    Worker& w = worker;
    w.launch = &L;
    w.launch_first_epoch = w.epoch + 1;
    running_launch = {L.smem, w.launch_first_epoch};
    w.block_serials.clear();
    w.counters = LaunchCounters{};
    w.counting.set_beside(L.options.count_beside);
    w.loaded.clear();
    w.stored.clear();
    w.trace.clear();
    run_all_blocks(w, L);
    const std::string counting_failed = w.counting.take(w.counters, w.loaded, w.stored);
    if (!counting_failed.empty()) scheduler_failed(w, L, counting_failed.c_str());  // the counters are incomplete
    std::lock_guard<std::mutex> lock(L.m);
    L.counters.add(w.counters);
    for (auto [mine, launch] : {std::pair{&w.loaded, &L.loaded}, std::pair{&w.stored, &L.stored}}) {
        if (launch->size() == 0) launch->swap(*mine);  // (the Launch's sets are empty: one worker runs every block)
        else for (uint64_t k : mine->keys()) launch->insert(k);
    }
    if (!w.trace.empty()) {
        L.trace.insert(L.trace.end(), std::make_move_iterator(w.trace.begin()), std::make_move_iterator(w.trace.end()));
        w.trace.clear();
        if (L.trace.size() > L.options.trace_limit) {
            L.trace_truncated = true;
            L.trace.resize(L.options.trace_limit);
        }
    }
    w.launch = nullptr;
    running_launch = {};
}

}  // namespace attnlab::emu::detail

namespace attnlab::emu {

void leave_state_to_exit() {
    using namespace detail;
    Worker& w = worker;
    // Moved into objects never freed: the vectors left behind are empty, so
    // the Worker's destructor has nothing to give back.
    new std::vector<std::unique_ptr<FiberThread>>(std::move(w.threads));
    w.threads.clear();
    new std::vector<ctx::stack_context>(std::move(w.stacks.free));
    w.stacks.free.clear();
    w.counting.leave_spares_to_exit();
}

}  // namespace attnlab::emu
