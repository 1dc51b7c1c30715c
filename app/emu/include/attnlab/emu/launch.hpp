#pragma once
// Launching a kernel on attnlab's CPU emulator: the options of the calling OS
// thread's launches, and launch itself. Shared by every front end of the
// emulator: attnlab's own kernels (kernels/), learners' programs (their
// runtime, app/learner) and the emulator's tests. Every kernel is plain CUDA,
// compiled with the hooks of attnlab/emu/raw_memory.hpp.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "attnlab/common/checked_blocks.hpp"
#include "attnlab/common/launch_report.hpp"
#include "attnlab/emu_device.hpp"

namespace attnlab::emu {

// Host code touched device memory where a learner program forbids it.
struct HostAccessError : std::logic_error {
    using std::logic_error::logic_error;
};

// What happens when host code (outside any kernel) touches device memory or a
// null pointer: `type` is the C++ exception that names it
// ("attnlab::emu::HostAccessError", "std::invalid_argument"). With no handler
// that exception is thrown; a learner program's runtime installs one that
// reports the running case and ends the program, so nothing unwinds through
// frames g++ compiled as unable to throw (their call sites of the sanitizer's
// hooks are marked nothrow: unwinding there would end in std::terminate).
using HostFaultHandler = void (*)(const char* type, const std::string& what);
void set_host_fault_handler(HostFaultHandler handler);
[[noreturn]] void host_fault(const char* type, const std::string& what);

// For a program about to end: the calling OS thread's scheduler state (the
// emulated threads' stacks and access logs, tens of MiB after a large case)
// is left for the exit to take back at once, not freed piece by piece
// (a munmap each, ~10 ms the learner would wait for). Launches still work.
void leave_state_to_exit();

struct LaunchOptions {
    CheckedBlocks checked_blocks = CheckedBlocks::All;
    bool checks = true;        // memcheck bounds are always on; this adds initcheck + racecheck
    bool counters = true;      // sectors/request, bank conflicts (logs every access)
    bool count_beside = true;  // count them on a second OS thread while blocks run (same figures; one core: inline)
    bool trace = false;        // record every access of trace_block (per-block views)
    Dim3 trace_block{0, 0, 0};
    bool trace_all_blocks = false;  // with `trace`: every block, each event naming its block
    size_t trace_limit = 1u << 20;           // events kept at most
    uint64_t max_steps_per_thread = 1ull << 32;  // checked accesses + barriers; past it: StepLimit
    uint64_t max_dynamic_shared = 227 * 1024;    // sm_90's opt-in limit per block
    size_t stack_bytes = LaunchLimits::emulated_thread_stack_bytes;  // per emulated thread (virtual; touched lazily)
};

// Options used by every launch made from the calling OS thread.
LaunchOptions& launch_options();
class ScopedLaunchOptions {
public:
    explicit ScopedLaunchOptions(const LaunchOptions& o) : saved_(launch_options()) { launch_options() = o; }
    ~ScopedLaunchOptions() { launch_options() = saved_; }
    ScopedLaunchOptions(const ScopedLaunchOptions&) = delete;
    ScopedLaunchOptions& operator=(const ScopedLaunchOptions&) = delete;
private:
    LaunchOptions saved_;
};

// Runs `body` as every thread of every block of the grid, the blocks one
// after another on the calling OS thread, one launch at a time per process
// (the checks keep their shadow of device memory per process); nothing
// escapes: the outcome (a fault, the counters) is the report.
// `unchecked_body`, when given, is the same kernel built without
// instrumentation: the blocks LaunchOptions::checked_blocks leaves out run it
// (after the checked ones), and the report counts them (unchecked_blocks).
LaunchReport launch_function(const char* kernel_name, Dim3 grid, Dim3 block, uint64_t dynamic_smem,
                             std::function<void()> body, std::function<void()> unchecked_body = {});

// kernel<<<grid, block, smem>>>(args...) on the emulator.
template <class Kernel, class... Args>
LaunchReport launch(const char* name, Kernel kernel, dim3 grid, dim3 block, uint64_t smem, Args&&... args) {
    return launch_function(name, grid, block, smem,
                           [kernel, tup = std::make_tuple(std::forward<Args>(args)...)]() {
                               std::apply(kernel, tup);
                           });
}

}  // namespace attnlab::emu
