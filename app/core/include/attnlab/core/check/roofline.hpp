#pragma once
// The GPUs of the performance report and the roofline model itself, header
// only and free of the core's other types: performance.hpp builds the report
// on it, and bench/gpu_attention_bench.cu (nvcc) prints the same estimate
// beside a measured time. The one table of GPU figures is gpu_models().
//
// Waves (what Nsight Compute calls "waves per SM"): an SM holds
// `blocks_per_sm` blocks at once (the occupancy rules), so a grid runs in
// waves of SMs · blocks_per_sm blocks; blocks are dealt to SMs evenly, and the
// SM with the most blocks of a wave decides how long that wave takes. Each SM
// gets its share of the GPU: 1/SMs of the DRAM bandwidth and of the peaks.
//
//   per block:  b = bytes / blocks, f = FP32 flops / blocks, t = tensor flops / blocks
//   wave of k blocks on its busiest SM:
//       memory  = k · b · SMs / bandwidth
//       compute = k · f · SMs / fp32 peak + k · t · SMs / tensor peak
//       time    = max(memory, compute)
//   full waves: k = blocks_per_sm; the last, partial wave of r blocks: k = ⌈r / SMs⌉
//   time  = Σ over waves
//   bound = "too_few_blocks" when blocks < SMs (SMs sit idle), else the larger term
// A grid of 3 blocks per SM where 6 fit takes one wave with 3 blocks per SM:
// the whole bandwidth, no penalty for the empty slots. Latency, launch
// overhead and instruction issue are not modelled: a tiny launch takes longer.
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
    double tensor_flops = 0;   // dense FP16 tensor-core FLOP/s with FP32 accumulation (wmma with float C)
    double l2_bytes = 0;       // L2 cache, shared by every SM
};

// RTX 4090, A100 80GB SXM, H100 SXM, H200: the order the report lists them.
inline const std::vector<GpuModel>& gpu_models() {
    // Published figures (vendor datasheets and whitepapers), FP32 without
    // tensor cores, boost clock:
    //   RTX 4090: AD102, 128 SMs, 1008 GB/s GDDR6X, 82.6 TFLOP/s (Ada whitepaper)
    //   A100 80GB SXM: 108 SMs, 2039 GB/s HBM2e, 19.5 TFLOP/s (A100 datasheet)
    //   H100 SXM: 132 SMs, 3.35 TB/s HBM3, 67 TFLOP/s (H100 datasheet)
    //   H200 (SXM): the H100's GH100 with 141 GB HBM3e at 4.8 TB/s, 67 TFLOP/s
    // Tensor cores, dense FP16 inputs with FP32 accumulation, and L2:
    //   RTX 4090: 165.2 TFLOP/s (Ada whitepaper, "FP16 Tensor TFLOPS with FP32
    //   Accumulate"), 72 MB L2; A100: 312 TFLOP/s, 40 MB; H100 SXM and H200:
    //   989.4 TFLOP/s, 50 MB (H100 whitepaper / H200 datasheet).
    // The SM's limits (resident threads, blocks, registers, shared memory) are
    // gpu_resources.hpp's ArchLimits of the GPU's architecture.
    static const std::vector<GpuModel> models = {
        {"RTX 4090", "sm_89", 128, 1008e9, 82.6e12, 165.2e12, 72.0 * 1024 * 1024},
        {"A100 80GB SXM", "sm_80", 108, 2039e9, 19.5e12, 312e12, 40.0 * 1024 * 1024},
        {"H100 SXM", "sm_90", 132, 3350e9, 67e12, 989.4e12, 50.0 * 1024 * 1024},
        {"H200", "sm_90", 132, 4800e9, 67e12, 989.4e12, 50.0 * 1024 * 1024},
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

// The report's first GPU of architecture `arch` (the one the resource report
// is for), else the first: what the roofline and `attnlab compare` show.
inline size_t gpu_model_for_arch(const std::string& arch) {
    const std::vector<GpuModel>& gpus = gpu_models();
    for (size_t i = 0; i < gpus.size(); ++i)
        if (gpus[i].arch == arch) return i;
    return 0;
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
    double memory_seconds = 0, compute_seconds = 0;  // summed over waves
    double fill = 1;               // the share of SMs the grid gives a block: min(1, blocks / SMs)
    int blocks_per_sm = 0;         // resident blocks per SM (occupancy)
    double waves = 0;              // blocks / (SMs · blocks_per_sm), as Nsight Compute reports it
    double achieved_occupancy = 0; // resident warps over the run, against the SMs' warp slots (0: not known)
    bool tensor_cores = false;     // compute under the tensor-core roof
    double dram_bytes = 0;         // the bytes the memory term is of
};

// What one launch does, for the model.
struct LaunchWork {
    double bytes = 0;              // DRAM bytes
    double flops = 0;              // on FP32 units
    double tensor_flops = 0;       // on tensor cores
};

// Warps of one block and an SM's warp slots, for the achieved occupancy.
struct WarpSlots {
    int warps_per_block = 0;
    int max_warps_per_sm = 0;
};

// The time of `work` for a grid of `blocks` blocks with `blocks_per_sm`
// resident per SM (<= 0: treated as 1), wave by wave. Pure.
inline TimeEstimate wave_time(const GpuModel& gpu, const LaunchWork& work, int64_t blocks, int blocks_per_sm, WarpSlots warps = {}) {
    TimeEstimate e;
    e.gpu = gpu.name;
    e.dram_bytes = std::max(work.bytes, 0.0);
    e.blocks_per_sm = std::max(blocks_per_sm, 1);
    e.tensor_cores = work.tensor_flops > 0;
    const int64_t n = std::max<int64_t>(blocks, 1), sms = std::max(gpu.sms, 1);
    const int64_t slots = sms * e.blocks_per_sm;
    const double sm_share = double(sms);
    auto rate = [](double amount, double per_second) { return per_second > 0 ? std::max(amount, 0.0) / per_second : 0.0; };
    // The work of k blocks on one SM that has 1/SMs of the GPU.
    const double block_memory = rate(e.dram_bytes / double(n) * sm_share, gpu.bandwidth);
    const double block_compute = rate(work.flops / double(n) * sm_share, gpu.fp32_flops) + rate(work.tensor_flops / double(n) * sm_share, gpu.tensor_flops);
    double busy_warp_seconds = 0;  // resident warps × seconds, over every SM
    auto wave = [&](int64_t blocks_in_wave, int64_t k) {
        const double memory = double(k) * block_memory, compute = double(k) * block_compute;
        e.memory_seconds += memory;
        e.compute_seconds += compute;
        e.seconds += std::max(memory, compute);
        busy_warp_seconds += double(blocks_in_wave) * warps.warps_per_block * std::max(memory, compute);
    };
    const int64_t full = n / slots, rest = n % slots;
    if (full > 0) {  // every full wave is the same: one, scaled
        wave(slots, e.blocks_per_sm);
        e.memory_seconds *= double(full), e.compute_seconds *= double(full), e.seconds *= double(full);
        busy_warp_seconds *= double(full);
    }
    if (rest > 0) wave(rest, (rest + sms - 1) / sms);
    e.waves = double(n) / double(slots);
    e.fill = std::min(1.0, double(n) / double(sms));
    if (warps.max_warps_per_sm > 0 && e.seconds > 0)
        e.achieved_occupancy = busy_warp_seconds / (double(sms) * warps.max_warps_per_sm * e.seconds);
    e.bound = n < sms ? PerfBound::TooFewBlocks : e.compute_seconds > e.memory_seconds ? PerfBound::Compute : PerfBound::Memory;
    return e;
}

// The same for FP32 work alone (bench/gpu_attention_bench.cu's form).
inline TimeEstimate roofline_time(const GpuModel& gpu, double bytes, double flops, int64_t blocks, int blocks_per_sm) {
    return wave_time(gpu, {bytes, flops, 0}, blocks, blocks_per_sm);
}

}  // namespace attnlab
