// A kernel launch from host code: its options, the launches a GPU would
// refuse, its blocks run one after another, and its report.
#include <algorithm>
#include <chrono>
#include <mutex>

#include "block_state.hpp"

namespace attnlab::emu {

LaunchOptions& launch_options() {
    static thread_local LaunchOptions options;
    return options;
}

namespace detail {
namespace {

// A launch the hardware would refuse: a stable code for the message layer,
// with the offending number in `size` (and the limit in `index`).
bool launch_error(const Launch& L, Fault& f) {
    const Dim3 b = L.block, g = L.grid;
    f.kind = FaultKind::InvalidLaunch;
    if (b.count() == 0 || g.count() == 0) {
        f.detail = "empty_launch";
    } else if (b.x > LaunchLimits::max_block_xy || b.y > LaunchLimits::max_block_xy || b.z > LaunchLimits::max_block_z ||
               b.count() > LaunchLimits::max_threads_per_block) {
        f.detail = "block_too_large";
        f.size = int64_t(b.count());
        f.index = LaunchLimits::max_threads_per_block;
    } else if (g.y > LaunchLimits::max_grid_yz || g.z > LaunchLimits::max_grid_yz) {
        f.detail = "grid_too_large";
        f.size = std::max(g.y, g.z);
        f.index = LaunchLimits::max_grid_yz;
    } else if (L.smem > L.options.max_dynamic_shared) {
        f.detail = "shared_too_large";
        f.size = int64_t(L.smem);
        f.index = int64_t(L.options.max_dynamic_shared);
    } else if (current_thread) {
        f.detail = "nested_launch";
    } else {
        f.kind = FaultKind::None;
        return false;
    }
    return true;
}


}  // namespace
}  // namespace detail

LaunchReport launch_function(const char* kernel_name, Dim3 grid, Dim3 block, uint64_t dynamic_smem,
                             std::function<void()> body, std::function<void()> unchecked_body) {
    using namespace detail;
    const auto start = std::chrono::steady_clock::now();
    Launch L;
    L.name = kernel_name;
    L.grid = grid;
    L.block = block;
    L.smem = dynamic_smem;
    L.body = std::move(body);
    L.unchecked_body = std::move(unchecked_body);
    L.options = launch_options();
    L.nblocks = grid.count();

    LaunchReport report;
    report.kernel = kernel_name;
    report.grid = grid;
    report.block = block;
    report.dynamic_shared_bytes = dynamic_smem;
    if (launch_error(L, report.fault)) return report;
    {
        static std::mutex one_launch_at_a_time;
        const std::lock_guard<std::mutex> lock(one_launch_at_a_time);
        run_blocks(L);
    }

    report.fault = std::move(L.fault);
    report.counters = L.counters;
    report.counters.global_load_unique_sectors = int64_t(L.loaded.size());
    report.counters.global_store_unique_sectors = int64_t(L.stored.size());
    report.trace = std::move(L.trace);
    report.trace_truncated = L.trace_truncated;
    raw::resolve_lines(report);
    Fault& f = report.fault;
    // (Lines are known now: inside the kernel some were not.) A plain race, or
    // a copy into an element another thread read, in the next round of a loop.
    if ((f.kind == FaultKind::SharedRace || f.kind == FaultKind::GlobalRace) &&
        (f.detail.empty() || f.detail == "async_copy_over_read") &&
        detail::loop_wraparound(f.is_write, f.other_is_write, f.line, f.other_line))
        f.detail = "loop_wraparound";
    report.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
}

}  // namespace attnlab::emu
