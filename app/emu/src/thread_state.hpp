#pragma once
// Internal: what the emulator knows of the emulated thread running on this OS
// thread (its place in the block, its checks' switches, its access logs), the
// shadow of shared memory, and the fault reporters. Shared by the scheduler
// (block_runner.cpp, warp_sync.cpp, faults.cpp) and the checks of every
// access (raw_access.cpp, which the sanitizer hooks call). No kernel sees it:
// kernels are plain CUDA (attnlab/emu/raw_memory.hpp).
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/common/launch_report.hpp"
#include "attnlab/emu/access_log.hpp"
#include "attnlab/emu/launch.hpp"
#include "attnlab/emu_device.hpp"

namespace attnlab::emu {

namespace detail {

// Where a thread is in its block: the serial of the running block and the id
// of the current barrier interval. Both come from one counter per OS thread
// that only grows, so shadow state from an earlier block or interval never
// matches (no clearing needed between blocks).
struct BlockClock {
    uint32_t block_serial = 0;
    uint32_t interval = 0;
    uint32_t block_id = 0;  // unique over every OS thread: which block loaded a global granule
};
// The next block_id (process-wide, so blocks on different OS threads differ).
inline std::atomic<uint32_t> next_block_id{0};
inline thread_local BlockClock clock;

// The emulated thread now running on this OS thread (nullptr outside kernels).
struct ThreadState {
    dim3 idx{0, 0, 0};
    unsigned linear = 0, lane = 0, warp = 0;
    const uint32_t* warp_sync = nullptr;  // bumps at each __syncwarp of this thread's warp
    bool checks = true, counters = true;
    uint64_t steps = 0, step_limit = 0;
    int64_t bytes_read = 0, bytes_written = 0, atomics = 0;
    int64_t reloaded_bytes = 0;  // global bytes its block had already loaded
    uint32_t shared_loads_issued = 0;  // shared loads not served from a register (raw_access.cpp: shared_read)
    // Per barrier interval: one entry per access, in program order.
    std::vector<uint64_t> global_loads, global_stores;  // log_entry(line, absolute 32-byte sector)
    std::vector<uint64_t> shared_loads, shared_stores;  // log_entry(line, absolute 4-byte word)
    std::vector<AccessEvent>* trace = nullptr;           // set only in the traced block
    unsigned interval_index = 0;
    unsigned trace_k[4] = {0, 0, 0, 0};
    // Asynchronous copies issued and not landed yet (raw::async_copy), each
    // with the commit group it belongs to (its count of commits then).
    struct PendingCopy {
        unsigned char* dst;
        unsigned char bytes[16];
        unsigned size;
        uint32_t group;
    };
    std::vector<PendingCopy> pending_copies;
    uint32_t committed_groups = 0;
    bool issuing_copy = false;  // the access being checked is an asynchronous copy's store
};
inline thread_local ThreadState* current_thread = nullptr;

// Race / init shadow of one shared-memory element.
struct Shadow {
    uint32_t written_in_block = 0;  // block serial of the last write
    uint32_t interval = 0;          // interval the fields below belong to
    int32_t writer = -1, writer_line = 0;
    // Readers of this barrier interval. A write races with a read by another
    // warp (warps_read: bit w = warp w read; a block has at most 32 warps),
    // and with a read by another lane of its own warp unless a __syncwarp
    // came between. Once two warps have read, every write races, so the
    // slots only need: the latest reader, the latest other lane of its warp
    // (for a write by the latest reader itself), and the latest reader of
    // another warp (to name in the report).
    uint32_t warps_read = 0;
    int32_t reader = -1, reader_line = 0;    // the latest reader
    int32_t reader2 = -1, reader2_line = 0;  // the latest other reader in reader's warp
    int32_t other_warp_reader = -1, other_warp_reader_line = 0;  // the latest reader of another warp
    uint32_t writer_sync = 0, reader_sync = 0, reader2_sync = 0;  // their warp's __syncwarp count then
    uint32_t reader_issued = 0;  // the latest reader's count of issued shared loads then (ThreadState::shared_loads_issued)
    uint32_t reader_site = 0;    // and the access site it read at
    // An asynchronous copy into this element that has not landed yet: its
    // thread and line, in block `async_block` (a block serial; none: 0).
    uint32_t async_block = 0;
    int32_t async_writer = -1, async_line = 0;
    // The block serial in which that copy landed (its thread waited for it):
    // the copy stays the element's writer until a barrier, and a read by
    // another thread before one is a race named for the copy.
    uint32_t landed_block = 0;
};

// Did `other` touch the element without a barrier between it and `ts`? A
// __syncwarp of their common warp since then also orders the two accesses.
inline bool unordered(int other, uint32_t other_sync, const ThreadState& ts) {
    if (other < 0 || other == static_cast<int>(ts.linear)) return false;
    if (static_cast<unsigned>(other) / 32 == ts.warp && *ts.warp_sync != other_sync) return false;
    return true;
}

struct SharedRegion {
    unsigned char* data = nullptr;
    Shadow* shadow = nullptr;
    int64_t count = 0;              // elements of elem_size
    size_t elem_size = 0;
    const char* type = "element";
    const char* name = "shared array";
};

// The fault of one access: what, where, which element of which buffer, on
// which line. The reporters below and the checks of raw_access.cpp (which add
// their details) all start from it.
Fault access_fault(FaultKind kind, MemorySpace space, bool write, const std::string& buffer, int64_t index,
                   int64_t size, const char* type, int line);
// Fault reporters: record the fault for the launch and unwind the fiber.
[[noreturn]] void fault_access(FaultKind kind, MemorySpace space, bool write, const std::string& buffer,
                               int64_t index, int64_t size, const char* type, int line);
// `detail`: what the race is, when it is more than two plain accesses
// ("async_copy_not_landed": the other is an asynchronous copy not waited for;
// "async_copy_no_barrier": one its thread waited for, with no barrier since;
// "async_copy_over_read": the faulting access is a copy into an element
// another thread read, with no barrier since).
[[noreturn]] void fault_race(const SharedRegion& r, int64_t index, bool write, int other_thread,
                             bool other_write, int other_line, int line, const char* detail = nullptr);
[[noreturn]] void fault_step_limit(int line);
void note_unwritten_shared_read(const SharedRegion& r, int64_t index, int line);
void trace_access(ThreadState& ts, MemorySpace space, bool write, const char* buffer, int64_t index,
                  uint64_t sector, int line);

// The log entries of ThreadState's access logs: attnlab/emu/access_log.hpp.

// Between the scheduler and the raw-pointer checks (raw_access.cpp).
[[noreturn]] void raise_fault(Fault f);          // stop the running thread's launch with f (the thread is never resumed)
// A race whose write sits on an earlier line than its read with a barrier
// the block passed between them: the write belongs to the next round of a
// loop (a barrier is missing at the end of the loop body).
bool loop_wraparound(bool write, bool other_write, int line, int other_line);
}  // namespace detail
namespace raw {
// Lines of raw-pointer accesses that a kernel could not look up on its own
// stack (negative in the report until then): looked up after the launch.
void resolve_lines(LaunchReport& report);
}  // namespace raw
namespace detail {
// The running launch on this OS thread, as the checks of every access ask it
// (inline: a call per access into the scheduler's file cost more than the answer).
struct RunningLaunch {
    uint64_t dynamic_shared_bytes = 0;  // its dynamic shared memory
    uint32_t first_epoch = 0;           // epochs before it belong to earlier launches
};
inline thread_local RunningLaunch running_launch;
inline uint64_t running_dynamic_shared_bytes() { return running_launch.dynamic_shared_bytes; }
inline uint32_t running_launch_first_epoch() { return running_launch.first_epoch; }
bool block_of_epoch(uint32_t epoch, Dim3& block); // which block of the running launch an epoch was in
Dim3 thread_of_linear(unsigned linear);           // a linear thread id of the running block as (x, y, z)

inline void count_step(ThreadState& ts, int line) {
    if (++ts.steps > ts.step_limit) fault_step_limit(line);
}
// block_barrier, warp_op: declared in attnlab/emu_device.hpp.
}  // namespace detail

}  // namespace attnlab::emu
