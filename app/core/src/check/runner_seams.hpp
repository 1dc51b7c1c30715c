#pragma once
// What a test may change in a Runner, and attnlab never does. Internal: only
// tests include this (their target adds app/core/src/check to its includes).
#include <functional>
#include <future>

#include "attnlab/core/check/runner.hpp"

namespace attnlab {

struct RunnerSeams {
    // Called on a freshly computed reference kernel outcome before it is
    // judged and cached (a test makes the kernel disagree with the reference).
    std::function<void(KernelOutcome&)> kernel_outcome;
    // NVRTC's report is treated as not ready when the program starts, as when
    // NVRTC finishes after g++ (the run is then repeated if its register
    // counts refuse a launch).
    bool nvrtc_late = false;
    // NVRTC's compiles wait for this before they start (a test holds NVRTC
    // back to see the verdict arrive without it).
    std::shared_future<void> nvrtc_gate;
};

RunnerSeams& seams_of(Runner& runner);

}  // namespace attnlab
