// What FlashAttention-2-sized kernels need of the emulator. Sampled launches
// (emu::CheckedBlocks::FirstAndLast): with an unchecked copy of the kernel,
// only the grid's first and last block run the checked one; the others run
// the copy, their values kept and the bytes they changed marked written by a
// kernel. Without a copy every block is checked. And asynchronous copies
// (cp.async): the data lands at the copying thread's wait.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "attnlab/core/text/launch_words.hpp"
#include "attnlab/emu/launch.hpp"
#include "attnlab/emu/raw_runtime.hpp"
#include "emu_test_kernels.hpp"

using namespace attnlab::emu;

namespace {

struct Buffer {
    float* data;
    explicit Buffer(size_t n) : data(static_cast<float*>(raw::allocate(n * sizeof(float), "out", 0, false, sizeof(float), "float"))) {}
    ~Buffer() { raw::release(data); }
};

LaunchOptions sampled() {
    LaunchOptions o;
    o.checked_blocks = CheckedBlocks::FirstAndLast;
    return o;
}

// What the kernel's unchecked copy computes, written as plain C++ (not
// instrumented): out[i] = i, in every block.
std::function<void()> unchecked_iota(float* out) {
    return [out] { out[blockIdx.x * blockDim.x + threadIdx.x] = float(blockIdx.x * blockDim.x + threadIdx.x); };
}

LaunchReport launch_with_copy(float* out, int bad_block, bool with_copy) {
    return launch_function("out_of_bounds_in_block", Dim3{5, 1, 1}, Dim3{32, 1, 1}, 0,
                           [out, bad_block] { emu_test::out_of_bounds_in_block(out, bad_block); },
                           with_copy ? unchecked_iota(out) : std::function<void()>{});
}

}  // namespace

TEST_SUITE("cuda-emulator") {

TEST_CASE("sampled launch: the first and last block are checked, the others run the copy and their values are kept") {
    Buffer out(160);
    const ScopedLaunchOptions options(sampled());
    const LaunchReport r = launch_with_copy(out.data, /*bad_block=*/-1, true);
    REQUIRE(r.ok());
    CHECK(r.counters.blocks == 5);
    CHECK(r.counters.unchecked_blocks == 3);
    CHECK(r.counters.global_bytes_written == 2 * 32 * 4);  // the checked blocks' stores alone
    const raw::DeviceMemoryWindow window;
    for (int i = 0; i < 160; ++i) CHECK(out.data[i] == float(i));
    int64_t first = -1;
    CHECK(raw::not_kernel_written(out.data, 160, sizeof(float), first) == 0);  // the copy's stores are marked too
}

TEST_CASE("sampled launch: a fault in a middle block goes unseen, one in the last block is found") {
    Buffer out(160);
    const ScopedLaunchOptions options(sampled());
    CHECK(launch_with_copy(out.data, /*bad_block=*/2, true).ok());
    const LaunchReport last = launch_with_copy(out.data, /*bad_block=*/4, true);
    REQUIRE(last.fault.kind == FaultKind::OutOfBounds);
    CHECK(last.fault.block == Dim3{4, 0, 0});
    CHECK(last.fault.line == emu_test::g_line);
}

// The Kernel tab's "Record this block" traces one block on its own: in a
// sampled launch that block runs checked too, so its accesses (and faults)
// are seen, whichever block it is.
TEST_CASE("sampled launch: a block traced on its own is checked") {
    Buffer out(160);
    LaunchOptions o = sampled();
    o.trace = true;
    o.trace_block = Dim3{2, 0, 0};
    const ScopedLaunchOptions options(o);
    const LaunchReport r = launch_with_copy(out.data, /*bad_block=*/2, true);
    REQUIRE(r.fault.kind == FaultKind::OutOfBounds);
    CHECK(r.fault.block == Dim3{2, 0, 0});
    const LaunchReport right = launch_with_copy(out.data, /*bad_block=*/-1, true);
    REQUIRE(right.ok());
    CHECK(right.counters.unchecked_blocks == 2);
    CHECK_FALSE(right.trace.empty());
    for (const AccessEvent& e : right.trace) CHECK(e.block == 2);
}

TEST_CASE("a sampled launch without an unchecked copy checks every block") {
    Buffer out(160);
    const ScopedLaunchOptions options(sampled());
    const LaunchReport r = launch_with_copy(out.data, /*bad_block=*/2, false);
    REQUIRE(r.fault.kind == FaultKind::OutOfBounds);
    CHECK(r.fault.block == Dim3{2, 0, 0});
    CHECK(r.counters.unchecked_blocks == 0);
}

TEST_CASE("every block is checked unless the options ask for a sample, even with a copy") {
    Buffer out(160);
    const LaunchReport r = launch_with_copy(out.data, /*bad_block=*/2, true);
    REQUIRE(r.fault.kind == FaultKind::OutOfBounds);
    CHECK(r.fault.block == Dim3{2, 0, 0});
}

}  // TEST_SUITE

// ------------------------------------------------------ asynchronous copies
// (in this file too: both are what FlashAttention-2's kernel needs of the emulator)

namespace {

struct AsyncRun {
    LaunchReport report;
    std::vector<float> out;
};

AsyncRun async_reverse(int mode) {
    Buffer in(128), out(128);
    {
        const raw::DeviceMemoryWindow window;
        for (int i = 0; i < 128; ++i) in.data[i] = float(i);
    }
    raw::host_wrote(in.data, 128 * sizeof(float));
    AsyncRun run;
    run.report = launch("async_reverse", emu_test::async_reverse, dim3(2), dim3(64), 0, out.data, static_cast<const float*>(in.data), mode);
    const raw::DeviceMemoryWindow window;
    run.out.assign(out.data, out.data + 128);
    return run;
}

}  // namespace

TEST_SUITE("cuda-emulator") {

TEST_CASE("cp.async: the copy lands at the wait; waited and synchronised, every thread reads every element") {
    for (int mode : {0, 4}) {
        CAPTURE(mode);
        const AsyncRun run = async_reverse(mode);
        REQUIRE(run.report.ok());
        for (int b = 0; b < 2; ++b)
            for (int t = 0; t < 64; ++t) CHECK(run.out[b * 64 + t] == float(b * 64 + 63 - t));
        // Each warp's copies are one request, as its loads would be: mode 0 copies
        // 4 bytes a thread (2 warps a block), cg 16 bytes a thread (16 threads, 1 warp).
        const int64_t requests = mode == 0 ? 2 * 2 : 2 * 1;
        CHECK(run.report.counters.global_load_requests == requests);
        CHECK(run.report.counters.shared_store_requests == requests);
    }
}

TEST_CASE("cp.async: reading the destination before the copying thread waits is a race named for the copy") {
    for (int mode : {1, 2}) {
        CAPTURE(mode);
        const AsyncRun run = async_reverse(mode);
        REQUIRE(run.report.fault.kind == FaultKind::SharedRace);
        CHECK(run.report.fault.detail == "async_copy_not_landed");
        CHECK(run.report.fault.buffer == "tile");
        CHECK(run.report.fault.other_is_write);
        CHECK(run.report.fault.line == emu_test::g_line);
        const std::string en = attnlab::describe_fault(run.report.fault, attnlab::Lang::En);
        CHECK(en.find("started an asynchronous copy into it") != std::string::npos);
        CHECK(attnlab::describe_fault(run.report.fault, attnlab::Lang::Id).find("salinan asinkron") != std::string::npos);
    }
}

TEST_CASE("cp.async: reading another thread's landed copy with no __syncthreads after the wait is a race named for the copy") {
    const AsyncRun run = async_reverse(5);
    REQUIRE(run.report.fault.kind == FaultKind::SharedRace);
    CHECK(run.report.fault.detail == "async_copy_no_barrier");
    CHECK(run.report.fault.other_is_write);
    CHECK_FALSE(run.report.fault.is_write);
    CHECK(run.report.fault.other_thread.x + 1 == run.report.fault.thread.x);  // the neighbour below copied it
    CHECK(run.report.fault.line == emu_test::g_line);
    const std::string en = attnlab::describe_fault(run.report.fault, attnlab::Lang::En);
    CHECK(en.find("no __syncthreads after that wait") != std::string::npos);
    CHECK(attnlab::describe_fault(run.report.fault, attnlab::Lang::Id).find("tanpa __syncthreads setelah penantian itu") != std::string::npos);
}

TEST_CASE("cp.async: copying into a tile other threads still read (no __syncthreads after the reads) is a race") {
    const AsyncRun run = async_reverse(3);
    REQUIRE(run.report.fault.kind == FaultKind::SharedRace);
    CHECK(run.report.fault.detail == "async_copy_no_barrier");  // the next copy landed: it is what the reader meets
    CHECK(run.report.fault.other_is_write);  // the next copy (whose thread then waited: it landed)
    CHECK_FALSE(run.report.fault.is_write);  // a thread of the other warp still reading the tile
    CHECK(run.report.fault.other_thread.x < 32);  // a copy of the first warp...
    CHECK(run.report.fault.thread.x >= 32);       // ...into an element the second warp still reads
}

}  // TEST_SUITE
