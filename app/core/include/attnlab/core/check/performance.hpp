#pragma once
// The performance report of a CUDA check (issue 18): from the emulator's exact
// counters, the sectors each launch requests and an estimate of its DRAM
// traffic against the least the operation needs, the operation's FLOPs and
// arithmetic intensity, and a roofline ESTIMATE of the kernel's time on named
// GPUs. Never a measurement: the assumptions are written out
// (performance_assumptions) wherever a figure is.
//
// The model, per launch and GPU, in Nsight Compute's terms:
//   requested   = (load + store sectors) · 32            what L1 is asked for
//   cache       = cache_estimate: L1 per SM, L2 shared (below); DRAM bytes what L2 misses
//   time        = wave_time (roofline.hpp): waves of SMs · resident blocks per SM
//                 (occupancy rules of gpu_resources.hpp), each wave as long as
//                 its busiest SM's memory or compute (FP32, or tensor cores for wmma)
// A case's time is the sum over its launches; its bound is its slowest launch's.
//
// The least traffic (minimum_sectors) is a true lower bound: every output
// byte written once, every input byte the operation needs read once (an op
// that needs only part of an input declares it: a causal mask never reads
// the future scores), in whole sectors.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/core/check/roofline.hpp"
#include "attnlab/reference/registry.hpp"

namespace attnlab {

// What one launch asks of an SM, for its occupancy on each GPU.
struct LaunchDemand {
    int64_t blocks = 0;
    int threads_per_block = 0;
    int64_t shared_bytes_per_block = 0;  // static (from NVRTC, when known) + dynamic
    int registers_per_thread = 0;        // 0: unknown (no register limit)
};
// Resident blocks per SM of that launch on `gpu` (at least 1 when a block fits, 0 when none does).
int resident_blocks(const GpuModel& gpu, const LaunchDemand& demand);

// A launch's global sectors, as the emulator counts them (LaunchCounters).
struct SectorTraffic {
    int64_t load_sectors = 0, store_sectors = 0;  // requested
    int64_t block_load_sectors = 0;    // the distinct sectors each block loaded, summed over blocks
    int64_t unique_load_sectors = 0, unique_store_sectors = 0;  // distinct over the launch
    int64_t blocks = 1;
};

// Where a launch's sectors are served, on one GPU. Summable over launches.
struct CacheEstimate {
    double load_sectors = 0;          // requested of L1
    double l1_hits = 0;
    double l2_load_sectors = 0;       // what L1 passes on
    double l2_hits = 0;
    double dram_load_sectors = 0, dram_store_sectors = 0;
    double l1_hit_rate() const { return load_sectors > 0 ? l1_hits / load_sectors : 0; }
    double l2_hit_rate() const { return l2_load_sectors > 0 ? l2_hits / l2_load_sectors : 0; }
    double dram_bytes() const { return (dram_load_sectors + dram_store_sectors) * 32; }
    void add(const CacheEstimate& o);
};

// The cache model (pure; table-tested). L1 belongs to one SM and is shared by
// its resident blocks (`l1_bytes_per_block` each); L2 (`l2_bytes`) by the
// whole GPU, write-back. A block's first load of a sector goes to L2, and
// the launch's first load of it to DRAM. A re-read hits when the data it
// cycles through fits: with probability min(1, capacity / footprint), the
// footprint being the block's distinct sectors for L1 and the launch's for
// L2 (1 when it fits; falling like LRU under a working set that does not).
// Every stored sector is written back to DRAM once (more often only when the
// launch's footprint overflows L2). Data a launch stored and then loads again
// is counted as a DRAM load (conservative).
CacheEstimate cache_estimate(const SectorTraffic& traffic, double l1_bytes_per_block, double l2_bytes);

// L1 bytes each resident block of `demand` gets on `gpu`: the SM's unified
// L1 + shared memory less the resident blocks' shared memory, shared evenly.
double l1_bytes_per_block(const GpuModel& gpu, const LaunchDemand& demand);

struct LaunchPerformance {
    std::string kernel;
    LaunchDemand demand;
    bool resources_known = false;     // registers and static shared memory from NVRTC
    int64_t bytes = 0;                // requested of L1: (load + store sectors) · 32
    std::optional<double> flops;      // the case's FP32 FLOPs shared by threads among its launches
    double tensor_flops = 0;          // done on tensor cores (wmma::mma_sync), counted by the emulator
    std::vector<CacheEstimate> caches;    // one per gpu_models() row
    std::vector<TimeEstimate> estimates;  // one per gpu_models() row
};

struct Performance {
    int case_index = -1;              // the case these figures are of
    int64_t bytes = 0, min_bytes = 0; // requested (L1) and the least traffic
    double traffic_ratio = 0;         // bytes / min_bytes
    std::optional<double> flops;      // nullopt: the op has no FLOP count
    std::optional<double> intensity;  // flops / bytes
    double tensor_flops = 0;          // of them, on tensor cores
    std::vector<CacheEstimate> caches;    // per GPU, summed over launches
    std::vector<TimeEstimate> estimates;  // per GPU (dram_bytes: the cache estimate's)
    std::vector<LaunchPerformance> launches;
    std::optional<double> measured_seconds;  // a GPU's own time of the kernels, when one reports it
    std::string measured_device;
};

// The least DRAM traffic a case needs: the output's bytes once and, of every
// input tensor, the elements `op` needs (reference::needed_elements: all of
// them unless the op declares less), floats, each tensor rounded up to
// 32-byte sectors (in sectors). `op` null: every input whole.
int64_t minimum_sectors(const reference::Op* op, const reference::Inputs& inputs, int64_t output_size);

// The figures of one case's launches (pure: the tests' hand-computed cases).
// `resources` (may be null): NVRTC's registers and static shared memory per kernel.
Performance launches_performance(const std::vector<emu::LaunchReport>& launches, int64_t min_bytes,
                                 std::optional<double> flops, const ResourceReport* resources);

// The check's report: of its largest case (by least traffic) whose launches
// all completed; nullopt for C++ exercises or when no such case ran.
std::optional<Performance> check_performance(const CheckResult& result, const Exercise& exercise);
// The figures of case `case_index` alone; nullopt when its launches did not
// all complete or were sampled (kernel_versions.hpp runs an earlier kernel
// on the case check_performance chose).
std::optional<Performance> case_performance(const CheckResult& result, const Exercise& exercise, int case_index);


// attnlab's own attention kernels (v1: one block per (b, h); v2: tiled) on the
// emulator at one shape: the points the roofline plot puts beside the learner's.
struct ReferencePoint {
    std::string label;     // "attnlab v1"
    int64_t bytes = 0;
    double flops = 0;
    std::vector<TimeEstimate> estimates;
};
struct ReferencePoints {
    bool ready = false;    // false while computing (or without kernels)
    int B = 0, H = 0, T = 0, hd = 0;
    std::vector<ReferencePoint> points;
};
// Cached per shape. A small shape (B·H·T·T·hd <= 2^22) runs at once; for a
// larger one the first call starts the emulator runs on a thread of their own
// and returns ready = false until they finish. Never throws.
ReferencePoints attention_reference_points(int B, int H, int T, int hd);
// The shape the plot compares at: the case's q when it has a rank-4 one,
// else ANDREA-120M's B = 1, H = 12, T = 128, hd = 64.
std::array<int, 4> reference_shape(const Exercise& exercise, int case_index);

}  // namespace attnlab
