#pragma once
// The performance report of a CUDA check (issue 18): from the emulator's exact
// counters, the DRAM traffic of each launch against the least the operation
// needs, the operation's FLOPs and arithmetic intensity, and a roofline
// ESTIMATE of the kernel's time on named GPUs. Never a measurement: the
// assumptions are written out (performance_assumptions) wherever a figure is.
//
// The model, per launch and GPU:
//   memory  = bytes / bandwidth        bytes = (load + store sectors) · 32
//   compute = flops / fp32 peak
//   fill    = min(1, blocks / (SMs · resident blocks per SM))   (occupancy rules of gpu_resources.hpp)
//   time    = max(memory, compute) / fill
//   bound   = "too_few_blocks" when fill < 1, else "memory" or "compute" (the larger term)
// A case's time is the sum over its launches; its bound is its slowest launch's.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/check/gpu_resources.hpp"
#include "attnlab/core/check/roofline.hpp"

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

struct LaunchPerformance {
    std::string kernel;
    LaunchDemand demand;
    bool resources_known = false;     // registers and static shared memory from NVRTC
    int64_t bytes = 0;                // DRAM traffic: (load + store sectors) · 32
    std::optional<double> flops;      // the case's FLOPs shared by threads among its launches
    std::vector<TimeEstimate> estimates;  // one per gpu_models() row
};

struct Performance {
    int case_index = -1;              // the case these figures are of
    int64_t bytes = 0, min_bytes = 0;
    double traffic_ratio = 0;         // bytes / min_bytes
    std::optional<double> flops;      // nullopt: the op has no FLOP count
    std::optional<double> intensity;  // flops / bytes
    std::vector<TimeEstimate> estimates;
    std::vector<LaunchPerformance> launches;
    std::optional<double> measured_seconds;  // a GPU's own time of the kernels, when one reports it
    std::string measured_device;
};

// The least DRAM traffic a case needs: every input tensor's and the output's
// bytes once (floats), each rounded up to 32-byte sectors (in sectors).
int64_t minimum_sectors(const Case& c, int64_t output_size);

// The figures of one case's launches (pure: the tests' hand-computed cases).
// `resources` (may be null): NVRTC's registers and static shared memory per kernel.
Performance launches_performance(const std::vector<emu::LaunchReport>& launches, int64_t min_bytes,
                                 std::optional<double> flops, const ResourceReport* resources);

// The check's report: of its largest case (by least traffic) whose launches
// all completed; nullopt for C++ exercises or when no such case ran.
std::optional<Performance> check_performance(const CheckResult& result, const Exercise& exercise);


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
