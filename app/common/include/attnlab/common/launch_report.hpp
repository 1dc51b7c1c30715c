#pragma once
// What one emulated kernel launch reports: plain data (no emulator types), so
// the core, the CLI's JSON and the GUI can keep it, copy it and translate it.
// It lives in common, below the emulator that fills it and the wire protocol
// that carries it; the words for it are the core's (core/launch_words.hpp).
//
// A launch either completes (fault.kind == FaultKind::None) or is stopped at
// its first fault. The four fault families carry the names of NVIDIA's
// compute-sanitizer tools, which need a GPU; the emulator gives them anywhere:
//   synccheck  barrier divergence at __syncthreads, a warp operation
//              (__shfl_*_sync, __syncwarp) that some named lanes never reach
//   memcheck   an out-of-bounds global or shared access
//   racecheck  two threads touch one shared address between two barriers
//              and at least one of them writes
//   initcheck  a read of device memory (global or shared) never written
// Counters are structural (exact, independent of any hardware model) and use
// Nsight Compute's vocabulary (sectors per request, bank conflicts).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/common/dim3.hpp"
#include "attnlab/common/fault_kind.hpp"

namespace attnlab::emu {

// CUDA's launch limits (every architecture since compute capability 3.0): the
// emulator refuses a launch past them, and the words for that refusal quote them.
struct LaunchLimits {
    static constexpr unsigned max_threads_per_block = 1024;
    static constexpr unsigned max_block_xy = 1024;  // blockDim.x and blockDim.y
    static constexpr unsigned max_block_z = 64;
    static constexpr unsigned max_grid_yz = 65535;   // gridDim.y and gridDim.z
    static constexpr unsigned warp_size = 32;
    // Not CUDA's: the stack of one emulated thread (a fiber's, virtual and
    // touched lazily), which deep recursion or a big local array overflows.
    static constexpr size_t emulated_thread_stack_bytes = 256 * 1024;
};


// Local: a thread's own array (`float acc[32]`), checked where the compiler
// knows its bounds (indexing the array itself, not a pointer into it).
enum class MemorySpace { Global, Shared, Local };

// "synccheck", "memcheck", "racecheck", "initcheck" or "launch".
// (Inline: the core and the learner runtime name faults without the emulator.)
inline const char* sanitizer_tool(FaultKind kind) {
    switch (kind) {
    case FaultKind::BarrierDivergence:
    case FaultKind::WarpDivergence: return "synccheck";
    case FaultKind::OutOfBounds: return "memcheck";
    case FaultKind::SharedRace: return "racecheck";
    case FaultKind::UninitializedRead: return "initcheck";
    case FaultKind::GlobalRace: return "racecheck";
    case FaultKind::MisalignedAddress: return "memcheck";
    case FaultKind::None: return "";
    default: return "launch";
    }
}

inline const char* fault_code(FaultKind kind) {  // stable: JSON, message keys, fixtures
    switch (kind) {
    case FaultKind::None: return "none";
    case FaultKind::BarrierDivergence: return "barrier_divergence";
    case FaultKind::WarpDivergence: return "warp_divergence";
    case FaultKind::OutOfBounds: return "out_of_bounds";
    case FaultKind::SharedRace: return "shared_race";
    case FaultKind::UninitializedRead: return "uninitialized_read";
    case FaultKind::InvalidLaunch: return "invalid_launch";
    case FaultKind::StepLimit: return "step_limit";
    case FaultKind::KernelException: return "kernel_exception";
    case FaultKind::GlobalRace: return "global_race";
    case FaultKind::MisalignedAddress: return "misaligned_address";
    case FaultKind::DeviceAssert: return "device_assert";
    }
    return "unknown";
}


// What a group of a block's threads was doing when a synccheck fault stopped it.
enum class ThreadActivity {
    Waiting,    // at the barrier or warp operation the fault is about
    AtBarrier,  // at a __syncthreads (while others wait at a warp operation)
    Exited,     // already left the kernel
};

inline const char* thread_activity_code(ThreadActivity what) {  // stable: the wire protocol
    switch (what) {
    case ThreadActivity::Waiting: return "waiting";
    case ThreadActivity::AtBarrier: return "at_barrier";
    case ThreadActivity::Exited: return "exited";
    }
    return "waiting";
}

// False for a code thread_activity_code never gives.
inline bool parse_thread_activity(const std::string& code, ThreadActivity& out) {
    for (ThreadActivity a : {ThreadActivity::Waiting, ThreadActivity::AtBarrier, ThreadActivity::Exited})
        if (code == thread_activity_code(a)) {
            out = a;
            return true;
        }
    return false;
}

// A set of threads of one block described for a person: linear thread ids
// grouped in ranges ("0-15, 32") plus what they were doing.
struct ThreadGroup {
    ThreadActivity what = ThreadActivity::Waiting;
    int line = 0;                // source line of the barrier or warp op they wait at (0: n/a)
    std::vector<unsigned> threads;  // linear thread ids (x + y·bx + z·bx·by), ascending
};

struct Fault {
    FaultKind kind = FaultKind::None;
    Dim3 block{0, 0, 0};         // the block the fault happened in
    Dim3 thread{0, 0, 0};        // the thread that made the faulting access / arrived last
    int line = 0;                // kernel source line of the access or operation (0 if unknown)

    // memcheck / initcheck / racecheck
    MemorySpace space = MemorySpace::Global;
    bool is_write = false;       // the faulting thread's access
    std::string buffer;          // DeviceBuffer name, or "shared array" / "dynamic shared memory"
    int64_t index = 0;           // element index inside the buffer or shared array
    int64_t size = 0;            // buffer / array length in elements
    std::string element_type;    // "float", "int", ...; "" when the emulator cannot tell

    // racecheck: the earlier access of the pair (other_block differs from
    // block only in a global-memory race between two blocks)
    Dim3 other_block{0, 0, 0};
    Dim3 other_thread{0, 0, 0};
    bool other_is_write = false;
    int other_line = 0;

    // synccheck: who waits where, and who is missing
    std::vector<ThreadGroup> groups;

    std::string detail;          // launch errors and escaped exceptions: the raw message
};

// Per launch, summed over every block that ran. "Request" = one instruction of
// a warp between two barriers (same space, same direction) over the lanes
// active in that round (diverged lanes are replayed as a warp runs them; see
// kernels/README.md, "Counters"). Global addresses are cudaMalloc-like
// (256-byte aligned buffers), so sector counts match a GPU's.
struct LaunchCounters {
    int64_t blocks = 0, threads = 0, warps = 0;
    int64_t barriers = 0;                  // __syncthreads completed, summed over blocks
    int64_t global_load_requests = 0, global_load_sectors = 0;
    int64_t global_store_requests = 0, global_store_sectors = 0;
    int64_t global_bytes_read = 0, global_bytes_written = 0;
    int64_t global_atomics = 0;
    // Distinct 4 KiB pages of global memory each block touched, summed over
    // blocks: locality that sectors/request cannot show. A head's (T, hd)
    // slice is T·hd·4 contiguous bytes in (B, H, T, hd) but T rows D·4 bytes
    // apart in (B, T, H, hd): the same sectors, many more pages.
    int64_t global_pages = 0;
    int64_t shared_load_requests = 0, shared_store_requests = 0;
    int64_t shared_wavefronts = 0;         // passes the banks need for all shared requests
    int64_t shared_bank_conflicts = 0;     // wavefronts beyond one per request
    int64_t partial_requests = 0;          // warp requests with some lanes absent (divergence sign)
    int64_t warp_syncs = 0;                // shuffles / __syncwarp / votes completed per warp
    // Sectors a request moves beyond what its lanes' bytes would fill if
    // packed: max(0, sectors - ceil(lanes * bytes / 32)) per request. A
    // coalesced or broadcast request wastes none, so extra cheap loads can
    // never lower the total (unlike the average sectors per request).
    int64_t global_load_wasted_sectors = 0, global_store_wasted_sectors = 0;
    // Global bytes a block loaded again after it had loaded them once (4-byte
    // granules, checks on): a tile that is reloaded, a row read per query.
    int64_t global_reloaded_bytes = 0;
    // Static __shared__ bytes the launch's kernel touched (learners' plain
    // CUDA), beside LaunchReport::dynamic_shared_bytes: per block.
    int64_t static_shared_bytes = 0;
    // For the performance report's cache model (core/check/performance.hpp):
    // the distinct sectors each block loaded, summed over blocks (a block's
    // loads beyond them are re-reads its SM's L1 may serve), and the distinct
    // sectors the whole launch loaded and stored (what L2 must fetch from
    // DRAM or write back at least).
    int64_t global_load_block_sectors = 0;
    int64_t global_load_unique_sectors = 0, global_store_unique_sectors = 0;
    // FLOPs done on tensor cores: 2·16·16·16 per warp-wide wmma::mma_sync.
    int64_t tensor_flops = 0;
    // Blocks that ran the kernel's unchecked copy (a sampled case: only the
    // grid's first and last block are checked and counted). Every counter
    // above but blocks, threads, warps and barriers is then the checked
    // blocks' alone.
    int64_t unchecked_blocks = 0;

    double sectors_per_load_request() const {
        return global_load_requests ? double(global_load_sectors) / global_load_requests : 0;
    }
    double sectors_per_store_request() const {
        return global_store_requests ? double(global_store_sectors) / global_store_requests : 0;
    }
    void add(const LaunchCounters& o);  // inline below: summing needs no emulator
};

// How two launches' (or blocks') values of a counter combine: most are sums;
// a per-block size is the largest seen, never a sum.
enum class CounterCombine { Sum, Max };

struct LaunchCounterField {
    const char* name;  // the JSON key (attnlab check --json)
    int64_t LaunchCounters::*member;
    CounterCombine combine;
};

// Every counter, written once: add(), the sandbox's wire protocol and the
// JSON report all walk this list. Its order is the wire order: append only
// (app/common/src/protocol.cpp pins the count it was written for).
inline constexpr LaunchCounterField kLaunchCounterFields[] = {
    {"blocks", &LaunchCounters::blocks, CounterCombine::Sum},
    {"threads", &LaunchCounters::threads, CounterCombine::Sum},
    {"warps", &LaunchCounters::warps, CounterCombine::Sum},
    {"barriers", &LaunchCounters::barriers, CounterCombine::Sum},
    {"global_load_requests", &LaunchCounters::global_load_requests, CounterCombine::Sum},
    {"global_load_sectors", &LaunchCounters::global_load_sectors, CounterCombine::Sum},
    {"global_store_requests", &LaunchCounters::global_store_requests, CounterCombine::Sum},
    {"global_store_sectors", &LaunchCounters::global_store_sectors, CounterCombine::Sum},
    {"global_bytes_read", &LaunchCounters::global_bytes_read, CounterCombine::Sum},
    {"global_bytes_written", &LaunchCounters::global_bytes_written, CounterCombine::Sum},
    {"global_atomics", &LaunchCounters::global_atomics, CounterCombine::Sum},
    {"global_pages", &LaunchCounters::global_pages, CounterCombine::Sum},
    {"shared_load_requests", &LaunchCounters::shared_load_requests, CounterCombine::Sum},
    {"shared_store_requests", &LaunchCounters::shared_store_requests, CounterCombine::Sum},
    {"shared_wavefronts", &LaunchCounters::shared_wavefronts, CounterCombine::Sum},
    {"shared_bank_conflicts", &LaunchCounters::shared_bank_conflicts, CounterCombine::Sum},
    {"partial_requests", &LaunchCounters::partial_requests, CounterCombine::Sum},
    {"warp_syncs", &LaunchCounters::warp_syncs, CounterCombine::Sum},
    {"global_load_wasted_sectors", &LaunchCounters::global_load_wasted_sectors, CounterCombine::Sum},
    {"global_store_wasted_sectors", &LaunchCounters::global_store_wasted_sectors, CounterCombine::Sum},
    {"global_reloaded_bytes", &LaunchCounters::global_reloaded_bytes, CounterCombine::Sum},
    {"static_shared_bytes", &LaunchCounters::static_shared_bytes, CounterCombine::Max},  // per block
    {"global_load_block_sectors", &LaunchCounters::global_load_block_sectors, CounterCombine::Sum},
    {"global_load_unique_sectors", &LaunchCounters::global_load_unique_sectors, CounterCombine::Sum},
    {"global_store_unique_sectors", &LaunchCounters::global_store_unique_sectors, CounterCombine::Sum},
    {"tensor_flops", &LaunchCounters::tensor_flops, CounterCombine::Sum},
    {"unchecked_blocks", &LaunchCounters::unchecked_blocks, CounterCombine::Sum},
};
inline constexpr size_t kLaunchCounterCount = sizeof(kLaunchCounterFields) / sizeof(kLaunchCounterFields[0]);

namespace detail {
// No member listed twice: with the size check below, every member is listed.
constexpr bool launch_counter_fields_distinct() {
    for (size_t i = 0; i < kLaunchCounterCount; ++i)
        for (size_t j = i + 1; j < kLaunchCounterCount; ++j)
            if (kLaunchCounterFields[i].member == kLaunchCounterFields[j].member) return false;
    return true;
}
}  // namespace detail

static_assert(kLaunchCounterCount * sizeof(int64_t) == sizeof(LaunchCounters),
              "a LaunchCounters field is missing from kLaunchCounterFields (add it at the end of the list)");
static_assert(detail::launch_counter_fields_distinct(), "a LaunchCounters field is listed twice in kLaunchCounterFields");

// Hands f(name, value) every counter, in wire order; `Counters` is
// LaunchCounters or const LaunchCounters, and value a reference to match.
template <class Counters, class F>
void for_each_counter(Counters& counters, F&& f) {
    for (const LaunchCounterField& field : kLaunchCounterFields) f(field.name, counters.*field.member);
}

inline void LaunchCounters::add(const LaunchCounters& o) {
    for (const LaunchCounterField& field : kLaunchCounterFields) {
        int64_t& mine = this->*field.member;
        const int64_t theirs = o.*field.member;
        mine = field.combine == CounterCombine::Max ? std::max(mine, theirs) : mine + theirs;
    }
}


// One access of the traced block (LaunchOptions::trace_block), for per-thread
// and per-warp views: which element each thread read or wrote, and when.
struct AccessEvent {
    uint64_t block = 0;          // linear block id (x + y·gx + z·gx·gy)
    unsigned thread = 0;         // linear thread id in the block
    MemorySpace space = MemorySpace::Global;
    bool is_write = false;
    std::string buffer;          // buffer name (global) or the shared array's ("shared array" when unnamed)
    int64_t index = 0;           // element index in that buffer / shared array
    uint64_t sector = 0;         // global: 32-byte sector number relative to the buffer start
                                 // shared: bank (0..31)
    unsigned interval = 0;       // barrier interval (0 = before the first __syncthreads)
    unsigned k = 0;              // this thread's k-th access of this kind in the interval
    int line = 0;                // kernel source line of the access
};
// A warp-wide request = the events of one warp's lanes with the same space,
// direction, interval and line, taken in order (the k-th of each lane at that line).

struct LaunchReport {
    std::string kernel;          // kernel name as launched
    Dim3 grid, block;
    uint64_t dynamic_shared_bytes = 0;
    Fault fault;                 // kind None when the launch completed
    LaunchCounters counters;
    std::vector<AccessEvent> trace;  // empty unless tracing was asked for
    bool trace_truncated = false;
    double wall_seconds = 0;     // informational only: never gate anything on it

    bool ok() const { return fault.kind == FaultKind::None; }
};

// Did some block of these launches (a case's) run the kernel's unchecked
// copy? Its counters are then the checked blocks' alone: whatever weighs a
// whole operation's traffic (the least-traffic rules, the speed report, the
// dev check's proof of the least) leaves such a case out.
inline bool sampled(const std::vector<LaunchReport>& launches) {
    for (const LaunchReport& L : launches)
        if (L.counters.unchecked_blocks > 0) return true;
    return false;
}

// "0-15, 17, 20-31": linear thread ids as ranges (app/common/src/launch_report.cpp).
std::string thread_ranges(const std::vector<unsigned>& threads);

}  // namespace attnlab::emu
