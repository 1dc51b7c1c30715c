#pragma once
// The resource panel of a CUDA exercise: the learner's .cu file compiled with
// NVRTC (when the CUDA toolkit is installed; no GPU needed) for one GPU
// architecture, and what ptxas reports for each __global__ kernel — registers
// per thread, static shared memory, spills — plus the occupancy those imply
// for the learner's block size. Without NVRTC the report says so
// (Status::Unavailable) and nothing else in a check changes.
//
// The compile runs out of process (attnlab-nvrtc under attnlab-sandbox's
// limits): the source is untrusted, and NVRTC may hang or eat memory on it.
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/course/course.hpp"

namespace attnlab {

namespace fs = std::filesystem;

// The architecture the panel uses unless the learner picks another.
inline constexpr const char* kDefaultGpuArch = "sm_90";

// What ptxas -v says about one entry function (a __global__ kernel).
struct KernelResources {
    std::string kernel;   // demangled, without parameters or return type: "split_heads_kernel", "tile_kernel<16>"
    std::string mangled;  // as ptxas names it: "_Z18split_heads_kernelPfPKfiiii"
    int registers = 0;    // per thread
    int64_t shared_bytes = 0;  // static shared memory (__shared__ arrays); dynamic comes with the launch
    int64_t spill_store_bytes = 0;
    int64_t spill_load_bytes = 0;
    int64_t stack_frame_bytes = 0;  // local memory per thread: spills and arrays indexed at run time
    int barriers = 0;               // named barriers used (__syncthreads() uses barrier 0)

    int64_t spill_bytes() const { return spill_store_bytes + spill_load_bytes; }
};

struct ResourceReport {
    enum class Status { Unavailable /*no NVRTC found*/, CompileError, Ok };
    Status status = Status::Unavailable;
    std::string arch = kDefaultGpuArch;
    std::string nvrtc_version;  // "13.0"; "" when unavailable
    std::vector<KernelResources> kernels;  // in the order they appear in the source
    std::string log;  // NVRTC's log with the learner's file name; the reason when unavailable
    std::vector<Diagnostic> diagnostics;  // NVRTC's errors and warnings, on the learner's file and lines
    double ms = 0;    // wall time of the whole compile, process start included
    bool cancelled = false;  // the cancel flag stopped it (status Unavailable)
};
const char* resource_status_code(ResourceReport::Status status);  // "ok", "unavailable", "compile_error"

// Parses `ptxas -v` output (as NVRTC puts it in its log) into one entry per
// __global__ kernel, in the log's order. Functions that are not entries
// (a __noinline__ __device__ function) have their own "Function properties"
// lines: they are not kernels and never change a kernel's figures.
std::vector<KernelResources> parse_ptxas_log(const std::string& log);

// The kernel's name as the learner wrote it: "_Z18split_heads_kernelPfPKfiiii"
// -> "split_heads_kernel", "_Z11tile_kernelILi16EEvPf" -> "tile_kernel<16>";
// a name that is not mangled (extern "C") is returned as it is.
std::string kernel_display_name(const std::string& mangled);

// Parses NVRTC's diagnostics ("learner.cu(12): error: message", then the
// source excerpt and a caret line) into Diagnostics. `file_name` is how the
// log names the learner's file (any name, even one with parentheses);
// diagnostics in other files (the in-memory prelude) keep their own name.
// Severities are gcc's words: "error", "warning", "fatal error" (NVRTC's
// "catastrophic error"), "note" (NVRTC's "remark"). The column comes from the
// caret line (0 when there is none).
std::vector<Diagnostic> parse_nvrtc_diagnostics(const std::string& log, const std::string& file_name);

// What an SM of one architecture holds at once, for the occupancy rules.
// Figures: CUDA C++ Programming Guide, "Technical Specifications per Compute
// Capability"; allocation units and reserved memory: the CUDA occupancy
// calculator (cuda_occupancy.h of the CUDA 13.0 toolkit).
struct ArchLimits {
    std::string arch;             // "sm_90"
    std::string gpus;             // the GPUs of this architecture a learner knows: "H100 / H200"
    int compute_major = 0, compute_minor = 0;
    int warp_size = 32;
    int max_threads_per_block = 1024;
    int max_threads_per_sm = 0;
    int max_blocks_per_sm = 0;
    int registers_per_sm = 65536;
    int max_registers_per_block = 65536;
    int max_registers_per_thread = 255;
    int register_allocation_unit = 256;    // registers are given to a warp in multiples of this
    int warp_allocation_granularity = 4;   // the register file is split among 4 schedulers (sub-partitions)
    int64_t shared_memory_per_sm = 0;      // bytes, with the largest shared-memory carveout
    int64_t max_shared_per_block_optin = 0;  // bytes a block may have after opting in (cudaFuncSetAttribute)
    int64_t max_shared_per_block_default = 48 * 1024;  // without opting in (and the limit for static __shared__)
    int64_t reserved_shared_per_block = 0;  // the driver's own shared memory per block (1 KB from sm_80 on)
    int shared_allocation_unit = 128;       // bytes: a block's shared memory is rounded up to this
    int64_t l1_and_shared_per_sm = 0;       // the unified L1 data cache + shared memory of an SM, bytes
};
// sm_75, sm_80, sm_86, sm_89, sm_90 (and sm_90a); nullopt for others.
std::optional<ArchLimits> arch_limits(const std::string& arch);
// The architectures arch_limits() knows, oldest first: what the panel offers.
std::vector<std::string> known_gpu_archs();
// "sm_90 — H100 / H200" (the arch alone when the table does not know it),
// from the same table as arch_limits().
std::string gpu_arch_label(const std::string& arch);

// What caps the resident warps of an SM: its warp slots, its block slots,
// its registers, its shared memory, or nothing runs (more threads than a
// block may have). Ties go to the first in that order.
enum class OccupancyLimit { Threads, Blocks, Registers, SharedMemory, BlockTooLarge };
inline const char* occupancy_limit_code(OccupancyLimit limit) {  // stable: --json, message keys (gpu.limit.<code>)
    switch (limit) {
        case OccupancyLimit::Threads: return "threads";
        case OccupancyLimit::Blocks: return "blocks";
        case OccupancyLimit::Registers: return "registers";
        case OccupancyLimit::SharedMemory: return "shared_memory";
        case OccupancyLimit::BlockTooLarge: return "block_too_large";
    }
    return "?";
}

struct Occupancy {
    int active_blocks_per_sm = 0;
    int active_warps_per_sm = 0;
    int max_warps_per_sm = 0;
    double fraction = 0;     // active / max warps
    OccupancyLimit limited_by = OccupancyLimit::Threads;
    int max_threads_per_block = 0;  // the architecture's, which "block_too_large" is against
};
// The CUDA occupancy calculator's rules: warps per block rounded up; each
// warp's registers rounded up to the allocation unit and shared per
// sub-partition; a block's shared memory plus the reserved part rounded up
// to the allocation unit, against the SM's largest carveout.
// registers_per_thread 0: not known, no register limit.
Occupancy occupancy(const ArchLimits& limits, int registers_per_thread, int64_t shared_bytes_per_block /*static + dynamic*/,
                    int threads_per_block);

// How one kernel is launched, for its occupancy (from the learner's launch).
struct LaunchShape {
    int threads_per_block = 0;
    int64_t dynamic_shared_bytes = 0;
    int case_index = -1;  // the check's case it was launched in (-1: not from a check)
};
// The kernel's occupancy under `shape` on the report's architecture; nullopt
// when that architecture has no ArchLimits or the shape has no threads.
std::optional<Occupancy> kernel_occupancy(const std::string& arch, const KernelResources& kernel, const LaunchShape& shape);

// Words for people, in English or Bahasa Indonesia: the status, each kernel's
// figures and spills, or NVRTC's errors.
std::string describe_resources(const ResourceReport& report, Lang lang);
std::string describe_occupancy(const Occupancy& occupancy, Lang lang);

// {"status", "arch", "nvrtc_version", "registers", "shared_bytes", "spill_bytes"
//  (the maxima over the kernels; spill = stores + loads; 0 without kernels),
//  "kernels": [{"kernel", "mangled", "registers", "shared_bytes", "spill_bytes",
//  "spill_store_bytes", "spill_load_bytes", "stack_frame_bytes", "barriers",
//  "occupancy"?}], "diagnostics", "log", "ms"}. A kernel named in `launches`
// (by KernelResources::kernel) gets an "occupancy" object: active_blocks_per_sm,
// active_warps_per_sm, max_warps_per_sm, fraction, limited_by, threads_per_block.
nlohmann::json resources_to_json(const ResourceReport& report, const std::map<std::string, LaunchShape>& launches = {});

// Compiles `nvrtc_source` (the learner's file after the launch rewrite,
// line for line) with attnlab-nvrtc under attnlab-sandbox (30 s or ATTNLAB_COMPILE_SECONDS, 4 GB).
// `headers`: include name -> text (e.g. "attnlab/cuda.hpp" -> the prelude).
// Files go into a fresh folder under `work_dir`, removed afterwards.
// Never throws for a missing toolkit: Unavailable with the reason in `log`.
// `weak_sandbox_allowed`: the user's opt-in (Toolchain::weak_sandbox_allowed).
ResourceReport compile_resources(const std::string& nvrtc_source, const std::string& display_name,
                                 const std::vector<std::pair<std::string, std::string>>& headers, const std::string& arch,
                                 const fs::path& work_dir, const std::atomic<bool>* cancel, bool weak_sandbox_allowed = false);

// The report on a learner's CUDA file as written: compile_resources on the
// runtime's NVRTC rewrite of it, with attnlab's header. Never throws: what
// went wrong is the report's status and log. The check asks it beside the
// run (check/resource_report_jobs), the window again for another architecture.
ResourceReport learner_resource_report(const std::string& source, const std::string& display_name, const std::string& arch,
                                       const fs::path& work_dir, const std::atomic<bool>* cancel, bool weak_sandbox_allowed);

}  // namespace attnlab
