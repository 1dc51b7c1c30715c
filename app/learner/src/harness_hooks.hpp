#pragma once
#include <map>
#include <vector>
#include <string>
// How a runtime beyond plain C++ (the CUDA one) adds to what the harness
// reports per case, without the harness depending on it.
#include "attnlab/common/protocol.hpp"
#include "attnlab/entry.hpp"

namespace attnlab::detail {

struct CaseHooks {
    void (*begin)() = nullptr;                          // before the entry point is called
    void (*finish)(protocol::CaseReport& report) = nullptr;  // after it returned a value
    // The program is exiting (exit() called by the learner) in the middle of a
    // case: the output so far, when the runtime has news worth reporting (a
    // CUDA fault before a CUDA_CHECK-style exit(1)); false: nothing to say.
    bool (*output_at_exit)(Slot& output) = nullptr;
    // Every case has reported and the program is about to return from main:
    // what only the system needs to take back may be left to the exit.
    void (*all_reported)() = nullptr;
    // Record the learner's Tensor operations (automatic stages): C++ solutions
    // compute with Tensor; CUDA ones with their own kernels, which have no
    // stages to place.
    bool record_tensor_ops = true;
};
CaseHooks& case_hooks();

// What attnlab asked of this run on the command line (after the cases file).
struct HarnessOptions {
    bool trace_kernels = false;  // --trace-kernels: record every access of every block (the Kernel view)
    // --trace-case N --trace-launch L --trace-block B: record only block B of
    // the L-th launch of case N (the Kernel view's "Record this block", for a
    // block the full trace's budget did not reach). -1: not asked.
    int trace_case = -1;
    unsigned long long trace_launch = 0, trace_block = 0;
    // --max-dynamic-shared N: the chosen architecture's opt-in maximum of
    // shared memory per block (sm_80 163 KiB, sm_89 99 KiB, sm_90 227 KiB).
    uint64_t max_dynamic_shared = 227 * 1024;
    // --kernel-registers name=N,...: registers per thread NVRTC gave each
    // kernel for that architecture (a launch whose block needs more than the
    // register file is refused, as a GPU refuses it).
    std::map<std::string, int> kernel_registers;
    // --sampled-cases N,M: the cases whose launches check only a sample of
    // blocks, running the others on the kernel's unchecked copy where the
    // program holds one (emu::CheckedBlocks); `sampled` is the running case's.
    std::vector<uint32_t> sampled_cases;
    bool sampled = false;
};
HarnessOptions& harness_options();

// The running case failed where nothing may unwind (host code touched device
// memory): it reports as an uncaught exception of `exception_type`, and the
// program ends at once, its later cases unrun.
[[noreturn]] void fail_running_case(const char* exception_type, const std::string& what);

}  // namespace attnlab::detail
