// What an SM of each architecture holds, and the occupancy a kernel's
// registers, shared memory and block size allow there.
#include "attnlab/core/check/gpu_resources.hpp"

#include <algorithm>
#include <limits>

namespace attnlab {
namespace {

// One row per architecture: its limits and the GPUs a learner knows it by.
struct ArchRow {
    const char* arch;
    const char* gpus;
    int major, minor, threads_per_sm, blocks_per_sm;
    int64_t shared_per_sm_kb, optin_per_block_kb, l1_and_shared_kb;
};
constexpr ArchRow kArchRows[] = {
    {"sm_75", "T4 / RTX 20xx", 7, 5, 1024, 16, 64, 64, 96},  // Turing
    {"sm_80", "A100", 8, 0, 2048, 32, 164, 163, 192},         // Ampere GA100
    {"sm_86", "RTX 30xx / A40", 8, 6, 1536, 16, 100, 99, 128},  // Ampere GA10x
    {"sm_89", "RTX 4090 / L4", 8, 9, 1536, 24, 100, 99, 128},   // Ada (RTX 40xx, L4, L40)
    {"sm_90", "H100 / H200", 9, 0, 2048, 32, 228, 227, 256},    // Hopper
};

}  // namespace

std::optional<ArchLimits> arch_limits(const std::string& arch) {
    // Per-SM figures: CUDA C++ Programming Guide, "Technical Specifications
    // per Compute Capability" (docs.nvidia.com/cuda/cuda-programming-guide/
    // 05-appendices/compute-capabilities.html): resident threads, blocks,
    // shared memory per SM and per block (opt-in), 64 K registers per SM and
    // per block, 255 registers per thread, 48 KB per block without opt-in.
    // Allocation rules: cuda_occupancy.h (CUDA 13.0): registers in units of
    // 256 per warp over 4 sub-partitions; shared memory in units of 256 B on
    // 7.x and 128 B from 8.x; 1 KB reserved per block from 8.x on (that is
    // also why the opt-in maximum is the SM's memory minus 1 KB).
    // The unified L1 data cache and shared memory per SM: the tuning guides
    // of each architecture (Turing 96 KB, A100 192 KB, GA10x and Ada 128 KB,
    // H100 256 KB); what shared memory does not take is L1.
    // sm_90a is sm_90 plus architecture-specific instructions: same SM.
    const std::string base = arch == "sm_90a" ? "sm_90" : arch;
    for (const ArchRow& r : kArchRows) {
        if (base != r.arch) continue;
        ArchLimits l;
        l.arch = arch;
        l.compute_major = r.major;
        l.compute_minor = r.minor;
        l.gpus = r.gpus;
        l.max_threads_per_sm = r.threads_per_sm;
        l.max_blocks_per_sm = r.blocks_per_sm;
        l.shared_memory_per_sm = r.shared_per_sm_kb * 1024;
        l.max_shared_per_block_optin = r.optin_per_block_kb * 1024;
        l.l1_and_shared_per_sm = r.l1_and_shared_kb * 1024;
        l.reserved_shared_per_block = r.major >= 8 ? 1024 : 0;
        l.shared_allocation_unit = r.major >= 8 ? 128 : 256;
        return l;
    }
    return std::nullopt;
}

std::vector<std::string> known_gpu_archs() {
    std::vector<std::string> out;
    for (const ArchRow& r : kArchRows) out.push_back(r.arch);
    return out;
}

std::string gpu_arch_label(const std::string& arch) {
    const std::optional<ArchLimits> l = arch_limits(arch);
    return l && !l->gpus.empty() ? arch + " \xE2\x80\x94 " + l->gpus : arch;
}

namespace {

constexpr int64_t kUnlimited = std::numeric_limits<int>::max();

int64_t round_up(int64_t value, int64_t unit) { return unit <= 0 ? value : (value + unit - 1) / unit * unit; }

// Blocks per SM the register file allows (cudaOccMaxBlocksPerSMRegsLimit).
int64_t blocks_by_registers(const ArchLimits& l, int registers_per_thread, int warps_per_block) {
    if (registers_per_thread <= 0) return kUnlimited;
    if (registers_per_thread > l.max_registers_per_thread) return 0;
    const int64_t per_warp = round_up(int64_t{registers_per_thread} * l.warp_size, l.register_allocation_unit);
    // A launch is refused when the block's warps, spread over every
    // sub-partition, would need more than a block may have.
    if (per_warp * round_up(warps_per_block, l.warp_allocation_granularity) > l.max_registers_per_block) return 0;
    const int64_t warps_per_partition = l.registers_per_sm / l.warp_allocation_granularity / per_warp;
    return warps_per_partition * l.warp_allocation_granularity / warps_per_block;
}

// Blocks per SM its shared memory allows (cudaOccMaxBlocksPerSMSmemLimit,
// with the largest carveout: what the driver picks for a kernel that needs it).
int64_t blocks_by_shared_memory(const ArchLimits& l, int64_t shared_bytes_per_block) {
    const int64_t allocated = round_up(std::max<int64_t>(shared_bytes_per_block, 0) + l.reserved_shared_per_block, l.shared_allocation_unit);
    if (allocated > l.max_shared_per_block_optin + l.reserved_shared_per_block) return 0;
    return allocated == 0 ? kUnlimited : l.shared_memory_per_sm / allocated;
}

}  // namespace

Occupancy occupancy(const ArchLimits& l, int registers_per_thread, int64_t shared_bytes_per_block, int threads_per_block) {
    Occupancy o;
    o.max_warps_per_sm = l.max_threads_per_sm / l.warp_size;
    o.max_threads_per_block = l.max_threads_per_block;
    if (threads_per_block < 1 || threads_per_block > l.max_threads_per_block) {
        o.limited_by = OccupancyLimit::BlockTooLarge;
        return o;
    }
    const int warps_per_block = (threads_per_block + l.warp_size - 1) / l.warp_size;
    const std::pair<OccupancyLimit, int64_t> limits[] = {
        {OccupancyLimit::Threads, o.max_warps_per_sm / warps_per_block},
        {OccupancyLimit::Blocks, l.max_blocks_per_sm},
        {OccupancyLimit::Registers, blocks_by_registers(l, registers_per_thread, warps_per_block)},
        {OccupancyLimit::SharedMemory, blocks_by_shared_memory(l, shared_bytes_per_block)},
    };
    const auto* tightest = &limits[0];
    for (const auto& limit : limits)
        if (limit.second < tightest->second) tightest = &limit;  // strict: ties keep the earlier
    o.limited_by = tightest->first;
    o.active_blocks_per_sm = static_cast<int>(tightest->second);
    o.active_warps_per_sm = o.active_blocks_per_sm * warps_per_block;
    o.fraction = o.max_warps_per_sm > 0 ? double(o.active_warps_per_sm) / o.max_warps_per_sm : 0;
    return o;
}

std::optional<Occupancy> kernel_occupancy(const std::string& arch, const KernelResources& kernel, const LaunchShape& shape) {
    const std::optional<ArchLimits> limits = arch_limits(arch);
    if (!limits || shape.threads_per_block <= 0) return std::nullopt;
    return occupancy(*limits, kernel.registers, kernel.shared_bytes + shape.dynamic_shared_bytes, shape.threads_per_block);
}

}  // namespace attnlab
