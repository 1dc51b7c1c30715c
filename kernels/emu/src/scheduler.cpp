// The emulator's scheduler: a pool of OS threads takes blocks; each block's
// threads are boost.context fibers run round-robin on one OS thread.
//
// One "sweep" runs every runnable fiber once; a fiber runs until it blocks
// at __syncthreads, at a warp operation whose lanes have not all arrived, or
// until it returns. After a sweep with nothing runnable left, either every
// live thread waits at the same barrier (release it: a new barrier interval)
// or the block cannot go on (synccheck fault). A warp operation completes in
// the fiber of its last arriving lane, which wakes the others. A blocked
// fiber switches directly to the next runnable one of the sweep; the last one
// switches back to the scheduler.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_set>

#include <boost/context/fiber.hpp>
#include <boost/context/protected_fixedsize_stack.hpp>

#include "attnlab/cuda_emu.hpp"

namespace attnlab::emu {

namespace ctx = boost::context;

LaunchOptions& launch_options() {
    static thread_local LaunchOptions options;
    return options;
}

namespace detail {

// ------------------------------------------------------------ buffers

constexpr size_t kBufferAlignment = 4096;

BufferStorage::BufferStorage(std::string n, const char* t, size_t c, size_t es)
    : name(std::move(n)), type(t), count(c), elem_size(es) {
    // Page-aligned, as cudaMalloc's: the pages a kernel touches (a counter)
    // then do not depend on where the host allocator put the buffer.
    const size_t bytes = std::max<size_t>(256, (c * es + 255) / 256 * 256);
    data = static_cast<unsigned char*>(::operator new(bytes, std::align_val_t(kBufferAlignment)));
    std::memset(data, 0xff, bytes);  // NaN for floats: garbage that shows
    written.reset(new std::atomic<uint8_t>[c ? c : 1]);
    for (size_t i = 0; i < c; ++i) written[i].store(0, std::memory_order_relaxed);
}

BufferStorage::~BufferStorage() { ::operator delete(data, std::align_val_t(kBufferAlignment)); }

namespace {
std::atomic<bool> host_access_refused{false};
}

void refuse_host_access(bool refuse) { host_access_refused.store(refuse); }

void host_bounds_check(const BufferStorage& s, int64_t e) {
    if (host_access_refused.load(std::memory_order_relaxed))
        throw HostAccessError("device buffer '" + s.name + "' element " + std::to_string(e) +
                              " read or written by host code (outside any kernel)");
    if (e < 0 || static_cast<uint64_t>(e) >= s.count)
        throw std::out_of_range("device buffer '" + s.name + "': index " + std::to_string(e) +
                                " outside 0.." + std::to_string(s.count));
}

namespace {

struct KernelAbort {};  // unwinds a faulting fiber back to its entry

enum class RunState : uint8_t { Runnable, AtBarrier, AtWarpOp, Done };

// One emulated thread as the scheduler sees it.
struct FiberThread : ThreadState {
    RunState state = RunState::Runnable;
    bool abandoned = false;  // stopped where it could not unwind (a failed assert): never resumed
    int wait_line = 0;
    ctx::fiber fiber;       // the thread, while it is suspended
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
    ctx::stack_context allocate() {
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
    LaunchOptions options;
    uint64_t nblocks = 0;
    std::atomic<uint64_t> next_block{0};
    std::atomic<bool> abort{false};
    std::mutex m;
    Fault fault;
    LaunchCounters counters;
    std::vector<AccessEvent> trace;
    bool trace_truncated = false;
};

struct DynamicView {
    size_t elem_size = 0;
    const char* type = "";
    std::vector<Shadow> shadow;
    SharedRegion region;
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
    bool block_fault = false;
    LaunchCounters counters;
    std::vector<AccessEvent> trace;
    uint64_t block_linear = 0;       // the running block, for trace events
    // __syncthreads_count/and/or: the votes of barrier generation g are in
    // barrier_votes[g & 1]; a slot is cleared only when the barrier after the
    // next one is released, by which time every thread has read it.
    int64_t barrier_votes[2] = {0, 0};
    unsigned barrier_generation = 0;
    unsigned char* arena = nullptr;  // dynamic shared memory, 128-byte aligned
    size_t arena_bytes = 0;
    std::deque<DynamicView> views;  // deque: regions handed out never move
    // Fibers pass control straight to the next runnable fiber of the sweep
    // (one switch per thread per sweep instead of two); the last one returns
    // to the scheduler. Whoever is resumed stores the continuation of the
    // context that resumed it in `suspending`'s slot.
    ctx::fiber scheduler;              // the scheduler, while a fiber runs
    FiberThread* suspending = nullptr; // who switched away last (nullptr: the scheduler)
    ~Worker() { if (arena) ::operator delete(arena, std::align_val_t(128)); }
};

thread_local Worker worker;

FiberThread* current() { return static_cast<FiberThread*>(current_thread); }

// Store the continuation of the context that just resumed us.
void park(Worker& w, ctx::fiber&& from) {
    if (w.suspending) w.suspending->fiber = std::move(from);
    else w.scheduler = std::move(from);
}

// The next runnable thread of this sweep after thread `after` (-1: from the start).
FiberThread* next_runnable(Worker& w, int after) {
    for (unsigned i = unsigned(after + 1); i < w.nthreads; ++i)
        if (w.threads[i]->state == RunState::Runnable) return w.threads[i].get();
    return nullptr;
}

// Switch from `self` (nullptr: the scheduler) to `target` (nullptr: the
// scheduler); returns when something switches back to `self`.
void switch_to(Worker& w, FiberThread* self, FiberThread* target) {
    current_thread = target;
    if (target) threadIdx = target->idx;
    w.suspending = self;
    ctx::fiber& handle = target ? target->fiber : w.scheduler;
    ctx::fiber from = std::move(handle).resume();
    park(w, std::move(from));
}

// A blocked thread hands control to the next runnable one, or back to the
// scheduler at the end of the sweep.
void yield(FiberThread* ft) {
    Worker& w = worker;
    switch_to(w, ft, w.block_fault ? nullptr : next_runnable(w, int(ft->linear)));
}

Dim3 unlinear(uint64_t i, Dim3 dims) {
    return {unsigned(i % dims.x), unsigned(i / dims.x % dims.y), unsigned(i / (uint64_t(dims.x) * dims.y))};
}

Dim3 to_dim(const dim3& d) { return {d.x, d.y, d.z}; }

// Record the first fault of the launch and tell every block to stop.
void record_fault(Fault f) {
    Worker& w = worker;
    w.block_fault = true;
    f.block = to_dim(blockIdx);
    Launch& L = *w.launch;
    std::lock_guard<std::mutex> lock(L.m);
    if (L.fault.kind == FaultKind::None) L.fault = std::move(f);
    L.abort = true;
}

[[noreturn]] void abort_thread(Fault f) {
    if (FiberThread* ft = current()) f.thread = to_dim(ft->idx);
    record_fault(std::move(f));
    throw KernelAbort{};
}

}  // namespace

void raise_fault(Fault f) { abort_thread(std::move(f)); }

// A fault raised where no exception may pass (inside a noexcept function such
// as the C library's __assert_fail): the thread is left suspended for ever
// instead of unwound.
void abandon_thread(Fault f) {
    FiberThread* ft = current();
    if (!ft) std::abort();
    f.thread = to_dim(ft->idx);
    record_fault(std::move(f));
    Worker& w = worker;
    ft->state = RunState::Done;
    ft->abandoned = true;
    ++w.done;
    switch_to(w, ft, nullptr);
    std::abort();  // never resumed
}

uint64_t running_dynamic_shared_bytes() { return worker.launch ? worker.launch->smem : 0; }

uint32_t running_launch_first_epoch() { return worker.launch_first_epoch; }

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

namespace {

// ---------------------------------------------------------- counters

// Sorts a handful of values (at most 32) in place and returns how many differ.
int distinct(uint64_t* v, int n) {
    if (!std::is_sorted(v, v + n)) std::sort(v, v + n);  // lane order is often address order
    return int(std::unique(v, v + n) - v);
}

// Where the logged accesses of one warp go: request, unit and partial counts.
struct RequestTally {
    int64_t& requests;
    int64_t& units;     // sectors or wavefronts
    int64_t& partial;   // requests with some lanes absent
    int64_t* wasted = nullptr;  // global requests: sectors beyond what the lanes' bytes fill
    void add(int64_t n_units, int lanes, uint64_t key) {
        ++requests;
        units += n_units;
        if (!wasted) return;
        const int64_t packed = (int64_t(lanes) * (4 << log_width_class(key)) + 31) / 32;
        if (n_units > packed) *wasted += n_units - packed;
    }
};

using LaneLogs = const std::vector<uint64_t>* const*;

// True when every lane made the same accesses line by line (no divergence):
// then the k-th entries already form the requests.
bool same_lines(LaneLogs logs, int nlanes) {
    const std::vector<uint64_t>& first = *logs[0];
    for (int l = 1; l < nlanes; ++l) {
        const std::vector<uint64_t>& other = *logs[l];
        if (other.size() != first.size()) return false;
        for (size_t k = 0; k < first.size(); ++k)
            if ((other[k] >> kLogLineShift) != (first[k] >> kLogLineShift)) return false;
    }
    return true;
}

// Lanes diverged (a causal loop runs a different number of rounds per lane,
// a strided loop a different number of rows): replay the warp as a GPU runs
// it. Each round issues one instruction (site) for the lanes waiting at it:
// the one earliest in the program among the lanes that may go, where a lane
// that jumps back (a loop's next iteration) waits for the lanes still between
// its target and where it was (the rest of the current iteration), as lanes
// that left a loop early wait at its end for the others. Structured loops and
// branches then pair exactly as on a GPU; at worst (nothing may go) the
// earliest lanes go.
template <class Measure>
void diverged_requests(LaneLogs logs, int nlanes, RequestTally t, Measure measure) {
    size_t at[32] = {};
    uint64_t last[32], next[32], key[32];
    bool started[32] = {};
    uint64_t cached_key = ~uint64_t(0), cached_position = 0;
    auto position = [&](uint64_t k) {
        if (k != cached_key) cached_key = k, cached_position = log_program_position(k);
        return cached_position;
    };
    uint64_t v[32];
    for (;;) {
        int active = 0;
        for (int l = 0; l < nlanes; ++l) {
            if (at[l] == logs[l]->size()) continue;
            ++active;
            key[l] = (*logs[l])[at[l]] >> kLogLineShift;
            next[l] = position(key[l]);
        }
        if (active == 0) break;
        uint64_t waiting_at[32];  // the distinct sites lanes wait at (usually one to three)
        int sites = 0;
        for (int l = 0; l < nlanes; ++l)
            if (at[l] < logs[l]->size() && std::find(waiting_at, waiting_at + sites, next[l]) == waiting_at + sites)
                waiting_at[sites++] = next[l];
        auto may_go = [&](int l) {
            if (!started[l] || next[l] > last[l]) return true;  // forward
            for (int i = 0; i < sites; ++i)
                if (waiting_at[i] > next[l] && waiting_at[i] <= last[l]) return false;  // a lane still in this iteration
            return true;
        };
        int chosen = -1;
        for (int pass = 0; pass < 2 && chosen < 0; ++pass)
            for (int l = 0; l < nlanes; ++l)
                if (at[l] < logs[l]->size() && (chosen < 0 || next[l] < next[chosen]) && (pass == 1 || may_go(l))) chosen = l;
        const uint64_t k = key[chosen];
        const bool forced = !may_go(chosen);
        int n = 0;
        for (int l = 0; l < nlanes; ++l) {
            if (at[l] == logs[l]->size() || key[l] != k || (!forced && !may_go(l))) continue;
            v[n++] = (*logs[l])[at[l]++] & kLogAddressMask;
            last[l] = next[l];
            started[l] = true;
        }
        if (n < nlanes) ++t.partial;
        t.add(measure(v, n, k), n, k);
    }
}

// Group the k-th access of each lane at one source line into one warp-wide
// request, measure it (sectors or wavefronts), and empty the logs.
template <class Measure>
void warp_requests(FiberThread* const* lanes, int nlanes, std::vector<uint64_t> ThreadState::*log,
                   RequestTally t, Measure measure) {
    const std::vector<uint64_t>* logs[32];
    bool any = false;
    for (int l = 0; l < nlanes; ++l) {
        logs[l] = &(lanes[l]->*log);
        any = any || !logs[l]->empty();
    }
    if (!any) return;
    if (same_lines(logs, nlanes)) {
        uint64_t v[32];
        for (size_t k = 0; k < logs[0]->size(); ++k) {
            for (int l = 0; l < nlanes; ++l) v[l] = (*logs[l])[k] & kLogAddressMask;
            const uint64_t key = (*logs[0])[k] >> kLogLineShift;
            t.add(measure(v, nlanes, key), nlanes, key);
        }
    } else {
        diverged_requests(logs, nlanes, t, measure);
    }
    for (int l = 0; l < nlanes; ++l) (lanes[l]->*log).clear();
}

// The 4 KiB pages the running block touched (global memory), for locality.
struct PageSet {
    std::unordered_set<uint64_t> pages;
    uint64_t last = ~uint64_t(0);
    void add(uint64_t page) {
        if (page == last) return;
        last = page;
        pages.insert(page);
    }
    void clear() {
        pages.clear();
        last = ~uint64_t(0);
    }
};
thread_local PageSet block_pages;

constexpr int kSectorsPerPageShift = 7;  // 4096 / 32

int64_t sectors_of(uint64_t* v, int n, uint64_t /*key*/) {
    bool same = true;
    for (int i = 1; i < n && same; ++i) same = v[i] == v[0];
    const int d = same ? 1 : distinct(v, n);  // v[0..d) are now the distinct sectors
    for (int i = 0; i < d; ++i) block_pages.add(v[i] >> kSectorsPerPageShift);
    return d;
}

// Wavefronts of one shared request of 4-byte accesses: the most distinct
// words that fall in one bank. Same word in one bank = broadcast, one pass.
int64_t wavefronts_of_words(uint64_t* v, int n) {
    bool one_row = true;  // all words in one 128-byte row: every bank at most once
    for (int i = 1; i < n && one_row; ++i) one_row = (v[i] >> 5) == (v[0] >> 5);
    if (one_row) return 1;
    const int d = distinct(v, n);
    int per_bank[32] = {0};
    int most = 0;
    for (int i = 0; i < d; ++i) most = std::max(most, ++per_bank[v[i] & 31]);
    return most;
}

// 8- and 16-byte accesses are served in phases of 16 or 8 lanes, as on a GPU
// (a warp's 64- or 128-bit request moves 256 or 512 bytes: two or four
// passes at best); each lane covers 2 or 4 consecutive words.
int64_t wavefronts_of(uint64_t* v, int n, uint64_t key) {
    const unsigned words = 1u << log_width_class(key);  // 1, 2 or 4 words per lane
    if (words == 1) return wavefronts_of_words(v, n);
    const int lanes_per_phase = int(32 / words);
    int64_t total = 0;
    for (int first = 0; first < n; first += lanes_per_phase) {
        uint64_t phase[32];
        int m = 0;
        for (int l = first; l < n && l < first + lanes_per_phase; ++l)
            for (unsigned k = 0; k < words; ++k) phase[m++] = v[l] + k;
        total += wavefronts_of_words(phase, m);
    }
    return total;
}

// Turn one warp's logs into requests. Called when every lane of the warp is
// at one program point: a barrier, a completed warp operation, the end.
void close_warp(Worker& w, unsigned warp) {
    LaunchCounters& c = w.counters;
    const unsigned first = warp * 32;
    FiberThread* lanes[32];
    const int n = int(std::min(32u, w.nthreads - first));
    for (int l = 0; l < n; ++l) lanes[l] = w.threads[first + l].get();
    int64_t shared_loads = 0, shared_stores = 0, wavefronts = 0;
    warp_requests(lanes, n, &ThreadState::global_loads,
                  {c.global_load_requests, c.global_load_sectors, c.partial_requests, &c.global_load_wasted_sectors}, sectors_of);
    warp_requests(lanes, n, &ThreadState::global_stores,
                  {c.global_store_requests, c.global_store_sectors, c.partial_requests, &c.global_store_wasted_sectors}, sectors_of);
    warp_requests(lanes, n, &ThreadState::shared_loads, {shared_loads, wavefronts, c.partial_requests},
                  wavefronts_of);
    warp_requests(lanes, n, &ThreadState::shared_stores, {shared_stores, wavefronts, c.partial_requests},
                  wavefronts_of);
    c.shared_load_requests += shared_loads;
    c.shared_store_requests += shared_stores;
    c.shared_wavefronts += wavefronts;
    c.shared_bank_conflicts += wavefronts - shared_loads - shared_stores;
}

// End of a barrier interval (or of the block): turn the logs into requests.
void close_interval(Worker& w) {
    for (unsigned warp = 0; warp * 32 < w.nthreads; ++warp) close_warp(w, warp);
    for (unsigned i = 0; i < w.nthreads; ++i) {
        FiberThread& t = *w.threads[i];
        ++t.interval_index;
        std::fill(std::begin(t.trace_k), std::end(t.trace_k), 0u);
    }
}

// ---------------------------------------------------------- diagnostics

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

// -------------------------------------------------------- running blocks


// The emulated thread: runs the kernel body, turns whatever escapes it into
// a fault (except boost's forced unwind, which must pass), and returns to the
// scheduler.
ctx::fiber make_fiber(Worker& w, Launch& L, FiberThread* ft) {
    return ctx::fiber(std::allocator_arg, PooledStack{&w.stacks}, [ft, &L](ctx::fiber&& from) -> ctx::fiber {
        park(worker, std::move(from));
        Fault f;
        try {
            L.body();
        } catch (const KernelAbort&) {
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
        // Hand over like yield() does; this fiber's own slot receives nothing.
        FiberThread* next = w.block_fault ? nullptr : next_runnable(w, int(ft->linear));
        current_thread = next;
        if (next) threadIdx = next->idx;
        w.suspending = ft;
        return next ? std::move(next->fiber) : std::move(w.scheduler);
    });
}

void start_threads(Worker& w, Launch& L) {
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
        ft->checks = L.options.checks;
        ft->counters = L.options.counters;
        ft->steps = 0;
        ft->step_limit = L.options.max_steps_per_thread;
        ft->bytes_read = ft->bytes_written = ft->atomics = ft->reloaded_bytes = 0;
        ft->global_loads.clear();
        ft->global_stores.clear();
        ft->shared_loads.clear();
        ft->shared_stores.clear();
        ft->interval_index = 0;
        std::fill(std::begin(ft->trace_k), std::end(ft->trace_k), 0u);
        ft->state = RunState::Runnable;
        ft->fiber = make_fiber(w, L, ft);
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

// Unwind the fibers still suspended (after a fault, an abort or a failure of
// the scheduler itself).
void unwind_fibers(Worker& w) noexcept {
    for (unsigned i = 0; i < w.nthreads && i < w.threads.size(); ++i) {
        FiberThread* ft = w.threads[i].get();
        if (ft->abandoned) {  // its frames cannot be unwound: keep its stack for ever (one per stopped launch)
            static auto* kept = new std::vector<ctx::fiber>;
            kept->push_back(std::move(ft->fiber));
            ft->abandoned = false;
            continue;
        }
        current_thread = ft;
        ft->fiber = ctx::fiber();
        current_thread = nullptr;
    }
}

// Something the scheduler itself did threw (outside every fiber), e.g. no
// memory for the emulated threads' stacks: a fault of the launch, never an
// exception out of a pool thread (std::terminate) or out of launch().
void scheduler_failed(Worker& w, Launch& L, const char* what) noexcept {
    current_thread = nullptr;
    unwind_fibers(w);
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

void run_block(Worker& w, Launch& L, uint64_t b) {
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
    block_pages.clear();
    start_threads(w, L);
    w.barrier_votes[0] = w.barrier_votes[1] = 0;
    w.barrier_generation = 0;
    const bool traced = L.options.trace && (L.options.trace_all_blocks || bid == L.options.trace_block);
    w.block_linear = b;
    for (unsigned i = 0; i < w.nthreads; ++i) w.threads[i]->trace = traced ? &w.trace : nullptr;

    bool going = true;
    while (going) {
        if (FiberThread* first = next_runnable(w, -1)) switch_to(w, nullptr, first);  // one sweep
        current_thread = nullptr;
        going = !w.block_fault && !L.abort && after_sweep(w);
    }
    unwind_fibers(w);
    close_interval(w);
    LaunchCounters& c = w.counters;
    c.global_pages += int64_t(block_pages.pages.size());
    block_pages.clear();
    c.blocks += 1;
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

void run_blocks(Launch& L) {
    Worker& w = worker;
    w.launch = &L;
    w.launch_first_epoch = w.epoch + 1;
    w.block_serials.clear();
    w.counters = LaunchCounters{};
    w.trace.clear();
    for (;;) {
        if (L.abort) break;
        const uint64_t b = L.next_block.fetch_add(1);
        if (b >= L.nblocks) break;
        try {
            run_block(w, L, b);
        } catch (const std::bad_alloc&) {
            scheduler_failed(w, L, "cannot allocate emulated thread stacks");
        } catch (const std::exception& e) {
            scheduler_failed(w, L, e.what());
        } catch (...) {
            scheduler_failed(w, L, "unknown exception in the emulator's scheduler");
        }
    }
    std::lock_guard<std::mutex> lock(L.m);
    L.counters.add(w.counters);
    if (!w.trace.empty()) {  // several workers may have traced blocks (trace_all_blocks)
        L.trace.insert(L.trace.end(), std::make_move_iterator(w.trace.begin()), std::make_move_iterator(w.trace.end()));
        w.trace.clear();
        if (L.trace.size() > L.options.trace_limit) {
            L.trace_truncated = true;
            L.trace.resize(L.options.trace_limit);
        }
    }
    w.launch = nullptr;
}

// ------------------------------------------------------------ the pool

class Pool {
public:
    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(m_);
            stop_ = true;
        }
        work_.notify_all();
        for (std::thread& t : threads_) t.join();
    }

    // Runs L's blocks on `helpers` pool threads plus the calling thread.
    void run(Launch& L, unsigned helpers) {
        std::lock_guard<std::mutex> one_launch(launch_m_);
        if (helpers == 0) {  // this thread alone: no pool thread woken, no condition variable touched
            run_blocks(L);   // (a forked child, whose copy of it names the parent's waiters, could hang in it)
            return;
        }
        {
            std::unique_lock<std::mutex> lock(m_);
            try {
                while (threads_.size() < helpers) {
                    const unsigned id = unsigned(threads_.size());
                    threads_.emplace_back([this, id] { loop(id); });
                }
            } catch (...) {  // no more OS threads: run with the ones there are
                helpers = unsigned(threads_.size());
            }
            job_ = &L;
            wanted_ = helpers;
            acked_ = 0;
            ++generation_;
        }
        work_.notify_all();
        run_blocks(L);
        std::unique_lock<std::mutex> lock(m_);
        done_.wait(lock, [&] { return acked_ == wanted_; });
        job_ = nullptr;
    }

private:
    void loop(unsigned id) {
        uint64_t seen = 0;
        std::unique_lock<std::mutex> lock(m_);
        for (;;) {
            work_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_) return;
            seen = generation_;
            if (id >= wanted_) continue;
            Launch* job = job_;
            lock.unlock();
            run_blocks(*job);
            lock.lock();
            if (++acked_ == wanted_) done_.notify_all();
        }
    }

    std::mutex launch_m_, m_;
    std::condition_variable work_, done_;
    std::vector<std::thread> threads_;
    Launch* job_ = nullptr;
    uint64_t generation_ = 0;
    unsigned wanted_ = 0, acked_ = 0;
    bool stop_ = false;
};

Pool& pool() {
    static Pool p;
    return p;
}

unsigned default_threads() {
    if (const char* env = std::getenv("ATTNLAB_EMU_THREADS")) {
        const int n = std::atoi(env);
        if (n > 0) return unsigned(n);
    }
    return std::max(1u, std::thread::hardware_concurrency());
}

// A launch the hardware would refuse: a stable code for the message layer,
// with the offending number in `size` (and the limit in `index`).
bool launch_error(const Launch& L, Fault& f) {
    const Dim3 b = L.block, g = L.grid;
    f.kind = FaultKind::InvalidLaunch;
    if (b.count() == 0 || g.count() == 0) {
        f.detail = "empty_launch";
    } else if (b.x > LaunchLimits::max_block_xy || b.y > LaunchLimits::max_block_xy || b.z > LaunchLimits::max_block_z ||
               b.count() > LaunchLimits::max_threads_per_block) {
        f.detail = "block_too_large";
        f.size = int64_t(b.count());
        f.index = LaunchLimits::max_threads_per_block;
    } else if (g.y > LaunchLimits::max_grid_yz || g.z > LaunchLimits::max_grid_yz) {
        f.detail = "grid_too_large";
        f.size = std::max(g.y, g.z);
        f.index = LaunchLimits::max_grid_yz;
    } else if (L.smem > L.options.max_dynamic_shared) {
        f.detail = "shared_too_large";
        f.size = int64_t(L.smem);
        f.index = int64_t(L.options.max_dynamic_shared);
    } else if (current_thread) {
        f.detail = "nested_launch";
    } else {
        f.kind = FaultKind::None;
        return false;
    }
    return true;
}

}  // namespace

// ------------------------------------------------- device-side entry points

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

namespace {
// Lanes that reached different warp operations: each waiting group with the
// line it waits at, then this lane's own line. Lanes of one group that wait
// on different lines (one operation reached from two places) are split.
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

SharedRegion* dynamic_shared_region(size_t elem_size, const char* type) {
    Worker& w = worker;
    const uint64_t bytes = w.launch ? w.launch->smem : 0;
    if (w.arena_bytes < bytes) {
        if (w.arena) ::operator delete(w.arena, std::align_val_t(128));
        w.arena = static_cast<unsigned char*>(::operator new(bytes, std::align_val_t(128)));
        w.arena_bytes = bytes;
        for (DynamicView& v : w.views) v.region.data = w.arena;
    }
    for (DynamicView& v : w.views)
        if (v.elem_size == elem_size && v.type == type) {
            v.region.count = int64_t(bytes / elem_size);
            if (v.shadow.size() < size_t(v.region.count)) v.shadow.resize(v.region.count);
            v.region.shadow = v.shadow.data();
            v.region.data = w.arena;
            return &v.region;
        }
    w.views.emplace_back();
    DynamicView& v = w.views.back();
    v.elem_size = elem_size;
    v.type = type;
    v.region.count = int64_t(bytes / elem_size);
    v.shadow.resize(std::max<int64_t>(1, v.region.count));
    v.region.data = w.arena;
    v.region.shadow = v.shadow.data();
    v.region.elem_size = elem_size;
    v.region.type = type;
    v.region.name = "dynamic shared memory";
    return &v.region;
}

void fault_access(FaultKind kind, MemorySpace space, bool write, const std::string& buffer,
                  int64_t index, int64_t size, const char* type, int line) {
    Fault f;
    f.kind = kind;
    f.space = space;
    f.is_write = write;
    f.buffer = buffer;
    f.index = index;
    f.size = size;
    f.element_type = type;
    f.line = line;
    abort_thread(std::move(f));
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
                int other_line, int line) {
    Fault f;
    if (loop_wraparound(write, other_write, line, other_line)) f.detail = "loop_wraparound";
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

void null_access(bool write, int line) {
    if (!current_thread) throw std::invalid_argument("access through a null device pointer");
    fault_access(FaultKind::OutOfBounds, MemorySpace::Global, write, "", 0, 0, "", line);
}

void fault_step_limit(int line) {
    Fault f;
    f.kind = FaultKind::StepLimit;
    f.line = line;
    abort_thread(std::move(f));
}

void trace_access(ThreadState& ts, MemorySpace space, bool write, const char* buffer, int64_t index,
                  uint64_t sector, int line) {
    if (ts.trace->size() > worker.launch->options.trace_limit) return;
    const int kind = (space == MemorySpace::Shared ? 2 : 0) + (write ? 1 : 0);
    AccessEvent e;
    e.block = worker.block_linear;
    e.thread = ts.linear;
    e.space = space;
    e.is_write = write;
    e.buffer = buffer;
    e.index = index;
    e.sector = sector;
    e.interval = ts.interval_index;
    e.k = ts.trace_k[kind]++;
    e.line = line;
    ts.trace->push_back(std::move(e));
}

void global_atomic_begin(BufferStorage* s, int64_t e, const char* type, int line) {
    ThreadState* ts = current_thread;
    if (!s) null_access(true, line);
    if (!ts) { host_bounds_check(*s, e); return; }
    if (e < 0 || static_cast<uint64_t>(e) >= s->count)
        fault_access(FaultKind::OutOfBounds, MemorySpace::Global, true, s->name, e, int64_t(s->count), type, line);
    if (ts->checks && !s->written[e].load(std::memory_order_relaxed))
        fault_access(FaultKind::UninitializedRead, MemorySpace::Global, false, s->name, e, int64_t(s->count), type, line);
    count_step(*ts, line);
    ++ts->atomics;
}

void shared_atomic_begin(SharedRegion* r, int64_t e, int line) {
    ThreadState* ts = current_thread;
    if (e < 0 || e >= r->count) {
        if (!ts) throw std::out_of_range("shared memory index out of range");
        fault_access(FaultKind::OutOfBounds, MemorySpace::Shared, true, r->name, e, r->count, r->type, line);
    }
    if (!ts) return;
    if (ts->checks && r->shadow[e].written_in_block != clock.block_serial)
        fault_access(FaultKind::UninitializedRead, MemorySpace::Shared, false, r->name, e, r->count, r->type, line);
    count_step(*ts, line);
}

}  // namespace detail

LaunchReport launch_function(const char* kernel_name, Dim3 grid, Dim3 block, uint64_t dynamic_smem,
                             std::function<void()> body) {
    using namespace detail;
    const auto start = std::chrono::steady_clock::now();
    Launch L;
    L.name = kernel_name;
    L.grid = grid;
    L.block = block;
    L.smem = dynamic_smem;
    L.body = std::move(body);
    L.options = launch_options();
    L.nblocks = grid.count();

    LaunchReport report;
    report.kernel = kernel_name;
    report.grid = grid;
    report.block = block;
    report.dynamic_shared_bytes = dynamic_smem;
    if (launch_error(L, report.fault)) return report;
    const unsigned threads = L.options.threads ? L.options.threads : default_threads();
    const unsigned helpers = unsigned(std::min<uint64_t>(threads, L.nblocks)) - 1;
    pool().run(L, helpers);

    report.fault = std::move(L.fault);
    report.counters = L.counters;
    report.trace = std::move(L.trace);
    report.trace_truncated = L.trace_truncated;
    raw::resolve_lines(report);
    Fault& f = report.fault;  // (the running block's barriers are this thread's when blocks ran here)
    if ((f.kind == FaultKind::SharedRace || f.kind == FaultKind::GlobalRace) && f.detail.empty() &&
        detail::loop_wraparound(f.is_write, f.other_is_write, f.line, f.other_line))
        f.detail = "loop_wraparound";
    report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
}

unsigned pool_threads() { return detail::default_threads(); }

}  // namespace attnlab::emu
