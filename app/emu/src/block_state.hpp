#pragma once
// What the emulator's scheduler keeps per emulated thread, warp, launch and
// OS thread (Worker), and the fiber switches between emulated threads: shared
// by the block runner, the barrier and warp operations, and the faults.
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include "counting_pipeline.hpp"
#include "thread_state.hpp"
#include "attnlab/emu/warp_requests.hpp"

namespace attnlab::emu::detail {

namespace ctx = boost::context;

enum class RunState : uint8_t { Runnable, AtBarrier, AtWarpOp, Done };

// One emulated thread as the scheduler sees it.
struct FiberThread : ThreadState {
    RunState state = RunState::Runnable;
    int wait_line = 0;
    ctx::fiber fiber;       // the thread, while it is suspended
    ctx::stack_context stack;  // the stack its fiber runs on (given back to the pool without unwinding)
    WarpOp op = WarpOp::Sync;
    uint64_t value = 0, result = 0;
    int arg = 0, width = 32;
};

// A warp operation some lanes of its mask have reached.
struct PendingWarpOp {
    unsigned mask = 0;
    unsigned arrived = 0;  // lanes waiting at it
    WarpOp op = WarpOp::Sync;
};

struct WarpState {
    unsigned existing = 0;  // lanes that exist in this (possibly partial) warp
    unsigned done = 0;      // lanes that returned
    uint32_t syncs = 0;     // __syncwarp epoch: a fresh value after each one
    // Lane groups with disjoint masks may each be inside their own operation
    // (Volta's independent thread scheduling): one entry per group.
    std::vector<PendingWarpOp> pending;
};

// Stacks are reused across blocks and launches: mmap with a guard page once.
struct StackPool {
    size_t size = 0;
    unsigned made = 0;
    std::vector<ctx::stack_context> free;
    ~StackPool() { clear(); }
    void clear() {
        ctx::protected_fixedsize_stack alloc(size ? size : ctx::stack_traits::default_size());
        for (ctx::stack_context& sc : free) alloc.deallocate(sc);
        free.clear();
    }
};

struct PooledStack {
    StackPool* pool;
    ctx::stack_context* given = nullptr;  // where to note the stack handed out
    ctx::stack_context allocate() {
        ctx::stack_context sc = take();
        if (given) *given = sc;
        return sc;
    }
    ctx::stack_context take() {
        if (!pool->free.empty()) {
            ctx::stack_context sc = pool->free.back();
            pool->free.pop_back();
            return sc;
        }
        // Room to take every stack back first: deallocate() must not allocate.
        pool->free.reserve(pool->made + 1);
        ctx::stack_context sc = ctx::protected_fixedsize_stack(pool->size).allocate();
        // Stagger the stack tops: page-aligned tops all fall in the same
        // cache sets, and every fiber switch touches its stack top.
        const size_t stagger = (pool->made++ % 61) * 64;
        sc.sp = static_cast<char*>(sc.sp) - stagger;
        sc.size -= stagger;
        return sc;
    }
    void deallocate(ctx::stack_context& sc) noexcept { pool->free.push_back(sc); }
};

// Everything one launch shares between the OS threads that run its blocks.
struct Launch {
    const char* name = "";
    Dim3 grid, block;
    uint64_t smem = 0;
    std::function<void()> body;
    std::function<void()> unchecked_body;  // the kernel's uninstrumented copy (empty: none)
    LaunchOptions options;
    uint64_t nblocks = 0;
    std::atomic<bool> abort{false};
    std::mutex m;
    Fault fault;
    LaunchCounters counters;
    SectorSet loaded, stored;   // the distinct global sectors of every block, for the cache model
    std::vector<AccessEvent> trace;
    bool trace_truncated = false;
};

// A shared read of an element no thread of the block had written yet.
struct UnwrittenRead {
    const SharedRegion* region;
    int64_t index;
    unsigned thread;
    int line;
};

// Per OS thread: reused across blocks and launches.
struct Worker {
    std::vector<UnwrittenRead> unwritten_reads;  // this barrier interval's
    uint32_t epoch = 0;
    // The running launch's blocks in the order they ran: (block serial, linear
    // block id), so a global-memory race can name the other block.
    uint32_t launch_first_epoch = 0;
    std::vector<std::pair<uint32_t, uint64_t>> block_serials;
    StackPool stacks;
    std::vector<std::unique_ptr<FiberThread>> threads;
    std::vector<WarpState> warps;
    unsigned nthreads = 0;
    // How many threads of the running block are in each waiting state.
    unsigned at_barrier = 0, at_warp = 0, done = 0;
    int barrier_line = 0;
    bool barrier_lines_differ = false;
    std::vector<int> released_barrier_lines;  // of the running block, each once
    Launch* launch = nullptr;
    const std::function<void()>* body = nullptr;  // what the running block's threads run: checked or not
    bool block_fault = false;
    LaunchCounters counters;
    CountingPipeline counting;  // closed warps' logs -> counters (access requests, pages, footprints)
    SectorSet loaded, stored;  // the distinct global sectors of the blocks this worker ran in the launch
    std::vector<AccessEvent> trace;
    uint64_t block_linear = 0;       // the running block, for trace events
    // __syncthreads_count/and/or: the votes of barrier generation g are in
    // barrier_votes[g & 1]; a slot is cleared only when the barrier after the
    // next one is released, by which time every thread has read it.
    int64_t barrier_votes[2] = {0, 0};
    unsigned barrier_generation = 0;
    // Fibers pass control straight to the next runnable fiber of the sweep
    // (one switch per thread per sweep instead of two); the last one returns
    // to the scheduler. Whoever is resumed stores the continuation of the
    // context that resumed it in `suspending`'s slot.
    ctx::fiber scheduler;              // the scheduler, while a fiber runs
    FiberThread* suspending = nullptr; // who switched away last (nullptr: the scheduler)
};

// Defined in block_runner.cpp; one per OS thread, reused across blocks and launches.
extern thread_local Worker worker;

inline FiberThread* current() { return static_cast<FiberThread*>(current_thread); }

// Store the continuation of the context that just resumed us.
inline void park(Worker& w, ctx::fiber&& from) {
    if (w.suspending) w.suspending->fiber = std::move(from);
    else w.scheduler = std::move(from);
}

// The next runnable thread of this sweep after thread `after` (-1: from the start).
inline FiberThread* next_runnable(Worker& w, int after) {
    for (unsigned i = unsigned(after + 1); i < w.nthreads; ++i)
        if (w.threads[i]->state == RunState::Runnable) return w.threads[i].get();
    return nullptr;
}

// Switch from `self` (nullptr: the scheduler) to `target` (nullptr: the
// scheduler); returns when something switches back to `self`.
inline void switch_to(Worker& w, FiberThread* self, FiberThread* target) {
    current_thread = target;
    if (target) threadIdx = target->idx;
    w.suspending = self;
    ctx::fiber& handle = target ? target->fiber : w.scheduler;
    ctx::fiber from = std::move(handle).resume();
    park(w, std::move(from));
}

// A blocked thread hands control to the next runnable one, or back to the
// scheduler at the end of the sweep.
inline void yield(FiberThread* ft) {
    Worker& w = worker;
    switch_to(w, ft, w.block_fault ? nullptr : next_runnable(w, int(ft->linear)));
}

inline Dim3 unlinear(uint64_t i, Dim3 dims) {
    return {unsigned(i % dims.x), unsigned(i / dims.x % dims.y), unsigned(i / (uint64_t(dims.x) * dims.y))};
}

inline Dim3 to_dim(const dim3& d) { return {d.x, d.y, d.z}; }

// ------------------------------------------------------------- faults.cpp

// Record the first fault of the launch and tell every block to stop.
void record_fault(Fault f);
[[noreturn]] void abort_thread(Fault f);  // record_fault, then stop the running fiber for good (never resumed, never unwound)
// Initcheck at a barrier or the block's end; true when it stopped the block.
bool report_unwritten_reads(Worker& w);
// Nothing can run: say who waits where and who is missing.
void stuck_block_fault(Worker& w, bool warp_waiting, bool any_done);
// Lanes that reached different warp operations: each waiting group with the
// line it waits at, then this lane's own line. Lanes of one group that wait
// on different lines (one operation reached from two places) are split.
std::vector<ThreadGroup> mismatched_groups(const Worker& w, const WarpState& ws, const FiberThread& me, unsigned mask, int line);

// ------------------------------------------------------- block_runner.cpp

// Turn one warp's logs into requests (the warp's lanes are at one program point).
void close_warp(Worker& w, unsigned warp);
// Runs the blocks of L on the calling OS thread, one after another.
void run_blocks(Launch& L);

}  // namespace attnlab::emu::detail
