#pragma once
// The GPUs of the performance report and the roofline model itself, header
// only and free of the core's other types: performance.hpp builds the report
// on it, and bench/gpu_attention_bench.cu (nvcc) prints the same estimate
// beside a measured time. The one table of GPU figures is gpu_models().
//
//   memory  = bytes / bandwidth
//   compute = flops / fp32 peak
//   fill    = min(1, blocks / (SMs · resident blocks per SM))
//   time    = max(memory, compute) / fill
//   bound   = "too_few_blocks" when fill < 1, else "memory" or "compute" (the larger term)
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

// One GPU of the report: published figures.
struct GpuModel {
    std::string name;          // "H100 SXM"
    std::string arch;          // "sm_90": its ArchLimits (gpu_resources.hpp) give the occupancy
    int sms = 0;
    double bandwidth = 0;      // DRAM bytes per second
    double fp32_flops = 0;     // FP32 FLOP/s without tensor cores (an FMA counts 2)
};

// RTX 4090, A100 80GB SXM, H100 SXM, H200: the order the report lists them.
inline const std::vector<GpuModel>& gpu_models() {
    // Published figures (vendor datasheets and whitepapers), FP32 without
    // tensor cores, boost clock:
    //   RTX 4090: AD102, 128 SMs, 1008 GB/s GDDR6X, 82.6 TFLOP/s (Ada whitepaper)
    //   A100 80GB SXM: 108 SMs, 2039 GB/s HBM2e, 19.5 TFLOP/s (A100 datasheet)
    //   H100 SXM: 132 SMs, 3.35 TB/s HBM3, 67 TFLOP/s (H100 datasheet)
    //   H200 (SXM): the H100's GH100 with 141 GB HBM3e at 4.8 TB/s, 67 TFLOP/s
    // The SM's limits (resident threads, blocks, registers, shared memory) are
    // gpu_resources.hpp's ArchLimits of the GPU's architecture.
    static const std::vector<GpuModel> models = {
        {"RTX 4090", "sm_89", 128, 1008e9, 82.6e12},
        {"A100 80GB SXM", "sm_80", 108, 2039e9, 19.5e12},
        {"H100 SXM", "sm_90", 132, 3350e9, 67e12},
        {"H200", "sm_90", 132, 4800e9, 67e12},
    };
    return models;
}

// The model a CUDA device name ("NVIDIA H200", "NVIDIA GeForce RTX 4090",
// "NVIDIA A100-SXM4-80GB") stands for; nullptr when none fits.
inline const GpuModel* gpu_model_for_device(const std::string& device_name) {
    std::string d;
    for (char c : device_name) d += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    auto has = [&](const char* s) { return d.find(s) != std::string::npos; };
    const char* name = has("4090") ? "RTX 4090" : has("a100") ? "A100 80GB SXM" : has("h200") ? "H200" : has("h100") ? "H100 SXM" : nullptr;
    if (!name) return nullptr;
    for (const GpuModel& g : gpu_models())
        if (g.name == name) return &g;
    return nullptr;
}

enum class PerfBound { Memory, Compute, TooFewBlocks };

inline const char* perf_bound_code(PerfBound bound) {  // "memory", "compute", "too_few_blocks"
    switch (bound) {
        case PerfBound::Memory: return "memory";
        case PerfBound::Compute: return "compute";
        case PerfBound::TooFewBlocks: return "too_few_blocks";
    }
    return "memory";
}

struct TimeEstimate {
    std::string gpu;
    double seconds = 0;
    PerfBound bound = PerfBound::Memory;
    double memory_seconds = 0, compute_seconds = 0;
    double fill = 1;               // the share of the GPU's resident block slots the grid fills
    int blocks_per_sm = 0;         // resident blocks per SM (occupancy)
};

// The roofline time of `bytes` and `flops` for a grid of `blocks` blocks with
// `blocks_per_sm` resident per SM (<= 0: treated as 1). Pure.
inline TimeEstimate roofline_time(const GpuModel& gpu, double bytes, double flops, int64_t blocks, int blocks_per_sm) {
    TimeEstimate e;
    e.gpu = gpu.name;
    e.blocks_per_sm = std::max(blocks_per_sm, 1);
    e.memory_seconds = gpu.bandwidth > 0 ? std::max(bytes, 0.0) / gpu.bandwidth : 0;
    e.compute_seconds = gpu.fp32_flops > 0 ? std::max(flops, 0.0) / gpu.fp32_flops : 0;
    const double slots = double(gpu.sms) * e.blocks_per_sm;
    e.fill = slots > 0 ? std::min(1.0, double(std::max<int64_t>(blocks, 1)) / slots) : 1.0;
    const double busy = std::max(e.memory_seconds, e.compute_seconds);
    e.seconds = busy / e.fill;
    e.bound = e.fill < 1.0 ? PerfBound::TooFewBlocks : e.compute_seconds > e.memory_seconds ? PerfBound::Compute : PerfBound::Memory;
    return e;
}

}  // namespace attnlab
