#pragma once
// The data behind the Kernel view of a CUDA exercise, computed from the
// learner's own launches (CaseOutcome::kernels.launches: emu::LaunchReport with every
// block's global and shared accesses) without any GUI:
//   - each block's footprint: which slices of the output it wrote, labelled by
//     the output's named axes ("(batch 1, head 0)", "rows 3–5"), and how many
//     global reads and writes it made;
//   - one thread's accesses: the elements it read and wrote in each buffer, as
//     coordinates in that buffer's shape, in the order it made them;
//   - a block's warp requests, grouped as the emulator groups them, with each
//     lane's element, byte address and 32-byte sector (global) or bank
//     (shared), the distinct sectors and the bank conflicts.
// The GUI draws these; tests assert on them.
#include <cstdint>
#include <string>
#include <vector>

#include "attnlab/common/value.hpp"
#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/common/launch_report.hpp"

namespace attnlab {

// A global buffer a learner's kernel sees: the output or a tensor input.
struct KernelBuffer {
    std::string name;                // the parameter's name: "out", "x", "q"
    Shape shape;                     // empty when not known
    std::vector<std::string> axes;   // one name per axis ("batch", "head", "row", "col"; "B", "T", "D"), or empty
    bool is_output = false;
};

// The output (first) and the tensor inputs of `exercise` in parameter order,
// with the shapes of case `c`: the output's shape is the expected tensor's,
// its axes the exercise's returns.dims; an input's axes come from its shape
// text ("(B, T, D)") when that names one axis per dimension.
std::vector<KernelBuffer> kernel_buffers(const Exercise& exercise, const CaseOutcome& c);
// The buffer named `name`, or nullptr.
const KernelBuffer* find_buffer(const std::vector<KernelBuffer>& buffers, const std::string& name);

// Row-major coordinates of a flat element index. An empty shape (unknown)
// gives {index}; an index outside the shape gives its coordinates as if the
// first axis were unbounded (an out-of-bounds access still has a place).
std::vector<int64_t> unravel_index(int64_t index, const Shape& shape);

// Linear block id of a block index in `grid` (x + y·gx + z·gx·gy), and back.
uint64_t linear_block(const emu::Dim3& block, const emu::Dim3& grid);
emu::Dim3 block_index(uint64_t linear, const emu::Dim3& grid);

// Part of a buffer: fixed coordinates on the leading axes, then at most one
// axis as a range. lo == hi on every entry but possibly the last.
struct AxisSpan {
    int axis = 0;      // which axis of the buffer
    std::string name;  // its name ("" when the buffer has no axis names)
    int64_t lo = 0, hi = 0;  // inclusive
};

// The slice of `buffer` that a set of element indices falls in: the leading
// axes on which every element agrees, then the next axis's range unless the
// elements fill that fixed slice completely. E.g. every element of
// [1, 0, :, :] in a (B, H, T, hd) buffer -> {batch 1, head 0}; rows 3..5 of a
// (T, D) buffer -> {rows 3–5}; elements 0..47 of a (2, 2, 4, 8) buffer ->
// {batch 0, heads 0–1}. Empty when `indices` is empty or fills the buffer.
std::vector<AxisSpan> slice_of(const std::vector<int64_t>& indices, const KernelBuffer& buffer);
// "(batch 1, head 0)", "rows 3–5", "(batch 0, heads 0–1)", in the learner's
// language; "" for an empty slice.
std::string describe_slice(const std::vector<AxisSpan>& slice, Lang lang);

// What one block of a launch did, from the trace.
struct BlockFootprint {
    uint64_t block = 0;        // linear id
    emu::Dim3 index;           // blockIdx
    int64_t global_reads = 0, global_writes = 0;
    int64_t shared_reads = 0, shared_writes = 0;
    int64_t output_writes = 0;       // writes into the output buffer
    std::vector<AxisSpan> written;   // the slice of the output it wrote (empty: none, or all of it)
    int64_t first_written = -1, last_written = -1;  // lowest and highest output element it wrote
    bool wrote_whole_output = false; // it wrote every element of the output by itself
    bool faulted = false;            // the launch's fault happened in this block
    // Its accesses are all in the trace. False when the access log filled up
    // at or before this block: what it did is unknown (never draw it as idle).
    bool recorded = true;
    bool recorded_alone = false;  // its accesses come from a BlockRecording (recorded = complete)
    // The launch stopped at a fault elsewhere before this block wrote any
    // output (blocks run in parallel: it may not have run at all).
    bool stopped = false;
    // A sampled case's block outside the checked sample (emu::block_in_sample):
    // it ran the kernel's unchecked copy, so its values were compared but its
    // accesses never logged (recorded = false). Labelled so, never idle or "?".
    bool unchecked = false;
    bool wrote_output() const { return output_writes > 0; }
    bool traced() const { return global_reads + global_writes + shared_reads + shared_writes > 0; }
    // Nothing known of what it did: drawn as "?" at any cell size, never as idle.
    bool unknown() const { return stopped || (!recorded && !wrote_output() && !unchecked); }
};

// One entry per block of the grid, in linear order (grid.count() entries;
// empty when the grid is larger than `max_blocks`, which keeps a runaway
// launch from filling memory). Blocks a truncated trace did not fully record
// are marked recorded = false, never left looking idle.
std::vector<BlockFootprint> block_footprints(const emu::LaunchReport& launch, const std::vector<KernelBuffer>& buffers,
                                             uint64_t max_blocks = 1u << 16);

// A block recorded after the check, on its own (the Kernel view's "Record this
// block" for a block the check's trace budget did not reach): the same
// program re-run with only this block of this launch traced. The emulator is
// deterministic, so these are the accesses the block made in the check.
struct BlockRecording {
    int case_index = -1;
    size_t launch = 0;   // index into CaseOutcome::kernels.launches
    uint64_t block = 0;  // linear id
    std::string kernel;  // the re-run's launch, to match it with the check's
    emu::Dim3 grid;
    std::vector<emu::AccessEvent> events;  // the block's accesses, in the order made
    // Every access of the block is in `events`. False: even on its own the
    // block made more accesses than the log holds (the first ones are kept).
    bool complete = false;
    enum class Problem { None, Cancelled, RunFailed, LaunchMissing };
    Problem problem = Problem::None;  // why there are no events to show
    Verdict rerun_verdict = Verdict::Pass;  // with RunFailed: what the re-run ended with
    bool usable() const { return problem == Problem::None; }
};
// Is `r` a usable recording of block `block` (any block when -1) of `launch`,
// launch `launch_index` of case `case_index`? (Same kernel and grid.)
bool recording_matches(const BlockRecording& r, const emu::LaunchReport& launch, int case_index, size_t launch_index);
// `launch` with the matching recordings' events in place of whatever its trace
// held for those blocks (the per-block and per-thread views then read them).
emu::LaunchReport with_recorded_blocks(const emu::LaunchReport& launch, int case_index, size_t launch_index,
                                       const std::vector<BlockRecording>& recordings);
// block_footprints, then each matching recording's block taken from its own
// events: recorded (recorded_alone) when complete, still unrecorded when not.
std::vector<BlockFootprint> block_footprints(const emu::LaunchReport& launch, const std::vector<KernelBuffer>& buffers,
                                             int case_index, size_t launch_index, const std::vector<BlockRecording>& recordings);

// Does the launch's fault name a block (memcheck, racecheck, synccheck...)?
// Launch errors (a grid a GPU would refuse) do not.
bool fault_has_block(const emu::Fault& fault);

// One access of one thread, placed in its buffer.
struct ElementTouch {
    int64_t index = 0;            // element index in the buffer
    std::vector<int64_t> coords;  // in the buffer's shape (unravel_index)
    int line = 0;                 // source line of the access
    unsigned interval = 0;        // barrier interval
    size_t order = 0;             // position among all of this thread's accesses
    unsigned thread = 0;          // who made it (block_accesses mixes threads)
};

// Accesses of one thread of a block: how many reads and writes (global and
// shared together), one entry per thread of the block.
struct ThreadActivity {
    int64_t reads = 0, writes = 0;
    bool active() const { return reads + writes > 0; }
};
std::vector<ThreadActivity> thread_activity(const emu::LaunchReport& launch, uint64_t block);

// The elements one thread (or a whole block) read and wrote in one buffer.
struct BufferTouches {
    std::string buffer;  // "out", "x", "shared"...
    emu::MemorySpace space = emu::MemorySpace::Global;
    Shape shape;                    // empty when unknown (shared memory)
    std::vector<std::string> axes;
    std::vector<ElementTouch> reads, writes;  // in the order the thread made them
};

// Every buffer the thread touched: the known buffers in `buffers` order,
// then the others (shared memory) as first touched.
std::vector<BufferTouches> thread_accesses(const emu::LaunchReport& launch, const std::vector<KernelBuffer>& buffers,
                                           uint64_t block, unsigned thread);
// The same for every thread of the block together (trace order).
std::vector<BufferTouches> block_accesses(const emu::LaunchReport& launch, const std::vector<KernelBuffer>& buffers,
                                          uint64_t block);
// Compact cell label of a slice: its values only, "1,0" for (batch 1, head 0),
// "3–5" for rows 3–5; "" for an empty slice.
std::string slice_values(const std::vector<AxisSpan>& slice);

// One lane's part of a warp request.
struct LaneAccess {
    unsigned lane = 0;
    std::string buffer;
    int64_t index = 0;           // element index
    int64_t byte_address = 0;    // relative to the buffer start: index × 4 (floats; negative when out of bounds below)
    uint64_t sector = 0;         // global: 32-byte sector from the buffer start; shared: bank (0..31)
};

// A warp-wide request as the emulator counts it: the n-th access of each lane
// of one warp at one source line, with the same space, direction and barrier
// interval. (The emulator also closes a warp's requests at warp-level syncs
// such as shuffles; the trace does not mark those, so lanes are paired by
// line within a barrier interval — the same pairs whenever lanes run a line
// equally often.)
struct WarpRequest {
    unsigned warp = 0;
    emu::MemorySpace space = emu::MemorySpace::Global;
    bool is_write = false;
    unsigned interval = 0;
    int line = 0;
    unsigned nth = 0;               // the n-th request of this warp at this line in this interval
    unsigned warp_lanes = 32;       // threads in this warp (the block's last warp may have fewer)
    std::vector<LaneAccess> lanes;  // by lane; lanes that did not take part are absent
    // Global: the distinct 32-byte sectors touched (per buffer, ascending).
    std::vector<std::pair<std::string, uint64_t>> sectors;
    // Shared: passes the banks need (the most distinct words in one bank;
    // lanes reading one word share it) and conflicts = wavefronts − 1.
    int wavefronts = 0;
    int bank_conflicts = 0;
    const std::string& buffer() const;  // the first lane's buffer
    bool partial() const { return lanes.size() < warp_lanes; }  // some lanes absent: divergence
};

// The block's requests, ordered by warp, interval, then first appearance.
std::vector<WarpRequest> warp_requests(const emu::LaunchReport& launch, uint64_t block);

}  // namespace attnlab
