#pragma once
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
};
CaseHooks& case_hooks();

// What attnlab asked of this run on the command line (after the cases file).
struct HarnessOptions {
    bool trace_kernels = false;  // --trace-kernels: record every access of every block (the Kernel view)
};
HarnessOptions& harness_options();

}  // namespace attnlab::detail
