#pragma once
// attnlab's CUDA kernels seen from the core: run the kernel version of a
// reference op (same op name, same input names and kinds as
// reference::find_op(name)->params) on a GPU when one is usable, else on the
// CPU emulator. Never throws, never crashes: a kernel fault is data
// (KernelRun::report / launches), bad inputs are KernelRun::input_error.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/common/value.hpp"
#include "attnlab/common/launch_report.hpp"

namespace attnlab::kernels {

enum class Backend { Auto, Emulator, Gpu };

struct KernelOptions {
    Backend backend = Backend::Auto;  // Auto: the GPU when built with nvcc and a device exists
    int attention_version = 0;        // 1, 2, or 0 = v2 when hd <= 128, else v1
    bool stages = true;               // also compute scores / masked / weights (T×T per head)
    // Emulator settings (checks, counters, tracing one block...). A launch's
    // blocks run one after another on the calling thread (launchers.hpp).
    // Ignored on a GPU, where no checks or counters exist.
    bool emulator_checks = true;
    bool emulator_counters = true;
    bool trace = false;               // record every access of trace_block, in every launch
    emu::Dim3 trace_block{0, 0, 0};
    uint64_t emulator_step_limit = 0; // checked accesses + barriers per thread; 0: the default (2^32)
};

struct KernelRun {
    Value output;                           // same kind and shape as the reference op's output
    std::vector<NamedTensor> stages;        // named and shaped like the reference op's stages
    std::vector<emu::LaunchReport> launches;  // every launch, in order (the pipeline stops at a fault)
    emu::LaunchReport report;               // the failed launch, or the main one (attention /
                                            // GEMM / split / merge) when every launch completed
    Backend backend = Backend::Emulator;    // where it ran: Emulator or Gpu, never Auto
    std::string device;                     // "CPU emulator" or e.g. "NVIDIA H200"
    std::string input_error;                // inputs that do not fit the op (English, internal)

    // Output present: no input error and no fault.
    bool ok() const { return input_error.empty() && report.ok() && !launches.empty(); }
};

// The reference ops that have a kernel, in a fixed order.
const std::vector<std::string>& kernel_ops();
bool has_kernel(const std::string& reference_op_name);

// nullopt when the op has no kernel; otherwise a run (check ok()).
std::optional<KernelRun> run_kernel_op(const std::string& reference_op_name,
                                       const std::map<std::string, Value>& inputs,
                                       const KernelOptions& options = {});

// True when this build has the nvcc backend and a CUDA device is present.
bool gpu_available();
// "NVIDIA H200" when gpu_available(), else "".
std::string gpu_device_name();
// True when this build compiled the kernels with nvcc as well.
bool built_with_nvcc();

// The kernel sources, for a read-only view: file name (e.g. "attention.cu")
// and text, embedded at build time.
struct KernelSource {
    std::string file;
    std::string text;
};
const std::vector<KernelSource>& kernel_sources();

// Where a kernel of the Kernel view lives. The sentence saying how it maps
// blocks and threads to data is in the message catalogue, both languages
// (gui.kernel.layout.*, app/core's kernel_layout_text). Empty for an unknown kernel name.
struct KernelLayout {
    std::string file;  // source file holding the kernel
};
KernelLayout kernel_layout(const std::string& kernel_name);

// The attention kernel run twice on the emulator with the same random q, k, v:
// once on (B, H, T, hd) tensors made by split_heads (the transposed layout),
// once reading straight from the fused projection's (B, T, 3D) output (the
// un-transposed (B, T, H, hd) layout). The outputs agree; the counters show
// what the transpose changes. Shapes must be >= 1 with T·3·H·hd <= 2^26.
struct LayoutComparison {
    emu::LaunchReport transposed;      // q, k, v as (B, H, T, hd)
    emu::LaunchReport untransposed;    // q, k, v read from qkv (B, T, 3, H, hd)
    double max_abs_difference = 0;     // between the two outputs
};
LayoutComparison compare_attention_layouts(int B, int T, int H, int hd, int version = 1);

// What one block of an attention launch works on, for labelling the grid:
// its (batch, head) and the query rows [row_begin, row_end) of that slice.
// batch = head = -1 for kernels that are not per (batch, head).
struct BlockRole {
    int batch = -1, head = -1;
    int row_begin = 0, row_end = 0;
};
BlockRole block_role(const std::string& kernel_name, emu::Dim3 block, int n_heads, int T);

}  // namespace attnlab::kernels
