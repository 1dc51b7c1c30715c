// The CPU emulator of the CUDA execution model, on hand-computed cases:
// barriers, shuffles, atomics, the four sanitizer checks (with block, thread
// and line) and the structural counters. The kernels (emu_test_kernels.cu)
// are plain CUDA on the emulator's one instrumented path, the path of
// learners' code and attnlab's own kernels.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attnlab/core/text/launch_words.hpp"
#include "attnlab/emu/launch.hpp"
#include "attnlab/emu/raw_runtime.hpp"
#include "emu_test_kernels.hpp"

using namespace attnlab::emu;
using namespace emu_test;
using attnlab::describe_fault;  // the words are the core's; the emulator gives codes and numbers
using attnlab::Lang;

namespace {

// A buffer of the emulator's device memory (cudaMalloc's: page-aligned, guard
// pages around it, every byte "never written" until a kernel or the host
// writes it). This uninstrumented host code reads and writes it directly.
template <class T> class Device {
public:
    Device(const char* name, size_t count)
        : data_(static_cast<T*>(raw::allocate(count * sizeof(T), name, 0, /*learner_owned=*/false, sizeof(T),
                                              raw::element_type_name<T>()))),
          count_(count) {}
    Device(Device&& o) noexcept : data_(o.data_), count_(o.count_) { o.data_ = nullptr; }
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;
    ~Device() {
        if (data_) raw::release(data_);
    }
    T* get() const { return data_; }
    void fill(T value) {
        std::fill_n(data_, count_, value);
        raw::host_wrote(data_, count_ * sizeof(T));
    }
    std::vector<T> download() const { return std::vector<T>(data_, data_ + count_); }

private:
    T* data_;
    size_t count_;
};

Device<float> iota_buffer(const char* name, size_t n) {
    Device<float> b(name, n);
    std::iota(b.get(), b.get() + n, 0.0f);
    raw::host_wrote(b.get(), n * sizeof(float));
    return b;
}

// A launch with the calling thread's options (its blocks run one after
// another on this OS thread, as every launch does).
template <class Kernel, class... Args>
LaunchReport run(const char* name, Kernel kernel, dim3 grid, dim3 block, uint64_t smem, Args... args) {
    return launch(name, kernel, grid, block, smem, args...);
}

}  // namespace

TEST_SUITE("cuda-emulator") {

TEST_CASE("indices: every thread of every block sees its own blockIdx and threadIdx") {
    Device<int> out("out", 2 * 3 * 4 * 2);
    const LaunchReport r = run("write_block_and_thread", write_block_and_thread, dim3(2, 3), dim3(4, 2), 0, out.get());
    REQUIRE(r.ok());
    const std::vector<int> v = out.download();
    for (unsigned by = 0; by < 3; ++by)
        for (unsigned bx = 0; bx < 2; ++bx)
            for (unsigned ty = 0; ty < 2; ++ty)
                for (unsigned tx = 0; tx < 4; ++tx) {
                    const unsigned i = (by * 2 + bx) * 8 + ty * 4 + tx;
                    CHECK(v[i] == int(bx + 10 * by + 100 * tx + 1000 * ty));
                }
    CHECK(r.counters.blocks == 6);
    CHECK(r.counters.threads == 48);
}

TEST_CASE("barrier votes: __syncthreads_count, _and and _or give every thread the block's totals, barrier after barrier") {
    Device<int> out("out", 2 * 64);
    const LaunchReport r = run("barrier_votes", barrier_votes, dim3(2), dim3(64), 0, out.get());
    REQUIRE(r.ok());
    for (int v : out.download()) CHECK(v == 22 + 1000 + 10000);  // 22 multiples of 3 in 0..63
    CHECK(r.counters.barriers == 2 * 4);
}

TEST_CASE("barrier: a value written before __syncthreads is seen by another thread after it") {
    auto in = iota_buffer("in", 128);
    Device<float> out("out", 128);
    const LaunchReport r = run("rotate", rotate_through_shared, dim3(2), dim3(64), 0, out.get(), in.get());
    REQUIRE(r.ok());
    const std::vector<float> v = out.download();
    for (int b = 0; b < 2; ++b)
        for (int t = 0; t < 64; ++t) CHECK(v[b * 64 + t] == float(b * 64 + (t + 1) % 64));
    CHECK(r.counters.barriers == 2);  // one per block
}

TEST_CASE("synccheck: a barrier inside a branch names the waiting and the exited threads") {
    Device<float> out("out", 32);
    const LaunchReport r = run("barrier_in_branch", barrier_in_branch, dim3(1), dim3(32), 0, out.get());
    REQUIRE(r.fault.kind == FaultKind::BarrierDivergence);
    REQUIRE(r.fault.groups.size() == 2);
    CHECK(r.fault.groups[0].what == ThreadActivity::Waiting);
    CHECK(thread_ranges(r.fault.groups[0].threads) == "0-15");
    CHECK(r.fault.groups[0].line == g_line);
    CHECK(r.fault.groups[1].what == ThreadActivity::Exited);
    CHECK(thread_ranges(r.fault.groups[1].threads) == "16-31");
    const std::string en = describe_fault(r.fault, Lang::En);
    CHECK(en.find("synccheck") == 0);
    CHECK(en.find("threads 0-15 wait on line " + std::to_string(g_line)) != std::string::npos);
    CHECK(en.find("threads 16-31 have already left the kernel") != std::string::npos);
    const std::string id = describe_fault(r.fault, Lang::Id);
    CHECK(id.find("thread 0-15 menunggu pada baris kode " + std::to_string(g_line)) != std::string::npos);
    CHECK(id.find("sudah keluar dari kernel") != std::string::npos);
}

TEST_CASE("synccheck: an early return before __syncthreads in the last block") {
    Device<float> out("out", 64);
    const LaunchReport r = run("early_return", early_return_then_barrier, dim3(1), dim3(64), 0, out.get(), 40);
    REQUIRE(r.fault.kind == FaultKind::BarrierDivergence);
    CHECK(thread_ranges(r.fault.groups[0].threads) == "0-39");
    CHECK(thread_ranges(r.fault.groups[1].threads) == "40-63");
    CHECK(r.fault.line == g_line);
    // Every thread that stays reaches the barrier: no fault.
    CHECK(run("early_return", early_return_then_barrier, dim3(1), dim3(64), 0, out.get(), 64).ok());
}

TEST_CASE("synccheck: threads waiting at two different __syncthreads") {
    Device<float> out("out", 32);
    const LaunchReport r = run("two_barriers", two_different_barriers, dim3(1), dim3(32), 0, out.get());
    REQUIRE(r.fault.kind == FaultKind::BarrierDivergence);
    REQUIRE(r.fault.groups.size() == 2);
    CHECK(r.fault.groups[0].line != r.fault.groups[1].line);
    CHECK(r.fault.groups[0].threads.size() == 16);
}

TEST_CASE("shuffles: broadcast, xor reduction, down, up, sub-warp width, ballot") {
    Device<int> out("out", 64 * 6);
    const LaunchReport r = run("shuffles", shuffles, dim3(1), dim3(64), 0, out.get());
    REQUIRE(r.ok());
    const std::vector<int> v = out.download();
    for (int t = 0; t < 64; ++t) {
        const int lane = t % 32, *o = &v[t * 6];
        CHECK(o[0] == 30);
        CHECK(o[1] == 496);
        CHECK(o[2] == (lane == 31 ? 31 : lane + 1));
        CHECK(o[3] == (lane < 2 ? lane : lane - 2));
        CHECK(o[4] == (lane < 16 ? 1 : 17));
        CHECK(o[5] == 1);
    }
    CHECK(r.counters.warp_syncs == 2 * (1 + 5 + 1 + 1 + 1 + 1));
}

TEST_CASE("synccheck: a full-mask shuffle after some lanes left") {
    Device<float> out("out", 32);
    const LaunchReport r = run("shuffle_after_exit", shuffle_after_exit, dim3(1), dim3(32), 0, out.get());
    REQUIRE(r.fault.kind == FaultKind::WarpDivergence);
    CHECK(r.fault.line == g_line);
    CHECK(thread_ranges(r.fault.groups[0].threads) == "0-7");
    CHECK(thread_ranges(r.fault.groups.back().threads) == "8-31");
    CHECK(r.fault.groups.back().what == ThreadActivity::Exited);
}

// Until issue 34 the blocks ran on four OS threads at once here. A launch's
// blocks now run on one OS thread (the checks of plain CUDA keep their state
// per process), so this tests the atomics' results and counts across the
// blocks of a grid, no longer their atomicity between OS threads.
TEST_CASE("atomics on global memory across the blocks of a launch") {
    Device<int> counter("counter", 1), max_int("max_int", 1), winner("winner", 1);
    Device<float> max_float("max_float", 1), sum("sum", 1);
    counter.fill(0);
    max_int.fill(-1);
    winner.fill(-1);
    max_float.fill(-1.0f);
    sum.fill(0.0f);
    const LaunchReport r = run("atomics", atomics, dim3(8), dim3(64), 0, counter.get(), max_int.get(),
                               max_float.get(), sum.get(), winner.get());
    REQUIRE(r.ok());
    CHECK(counter.download()[0] == 512);
    CHECK(max_int.download()[0] == 511);
    CHECK(max_float.download()[0] == 255.5f);
    CHECK(sum.download()[0] == 512.0f);
    const int w = winner.download()[0];
    CHECK((w >= 0 && w < 512));
    CHECK(r.counters.global_atomics == 5 * 512);
}

TEST_CASE("atomics on shared memory are not races") {
    Device<int> out("out", 3);
    const LaunchReport r = run("shared_atomics", shared_atomics, dim3(3), dim3(96), 0, out.get());
    REQUIRE(r.ok());
    for (int v : out.download()) CHECK(v == 192);
}

TEST_CASE("memcheck: out-of-bounds global read names thread, block, index, size and line") {
    auto in = iota_buffer("in", 100);
    Device<float> out("out", 128);
    const LaunchReport r = run("copy_n", copy_n, dim3(4), dim3(32), 0, out.get(), in.get(), 101);
    REQUIRE(r.fault.kind == FaultKind::OutOfBounds);
    CHECK(r.fault.space == MemorySpace::Global);
    CHECK_FALSE(r.fault.is_write);
    CHECK(r.fault.buffer == "in");
    CHECK(r.fault.index == 100);
    CHECK(r.fault.size == 100);
    CHECK(r.fault.block == Dim3{3, 0, 0});
    CHECK(r.fault.thread == Dim3{4, 0, 0});
    CHECK(r.fault.line == g_line);
    const std::string en = describe_fault(r.fault, Lang::En);
    CHECK(en.find("memcheck") == 0);
    CHECK(en.find("thread (4, 0, 0) of block (3, 0, 0) read index 100 of global buffer 'in' (100 floats") != std::string::npos);
    const std::string id = describe_fault(r.fault, Lang::Id);
    CHECK(id.find("thread (4, 0, 0) di blok (3, 0, 0) membaca indeks 100") != std::string::npos);
}

TEST_CASE("memcheck: out-of-bounds global write") {
    auto in = iota_buffer("in", 128);
    Device<float> out("out", 100);
    const LaunchReport r = run("copy_n", copy_n, dim3(4), dim3(32), 0, out.get(), in.get(), 128);
    REQUIRE(r.fault.kind == FaultKind::OutOfBounds);
    CHECK(r.fault.is_write);
    CHECK(r.fault.buffer == "out");
    CHECK(r.fault.index >= 100);
}

TEST_CASE("memcheck: a null device pointer is a fault, not a crash") {
    Device<float> in("in", 32);
    in.fill(1.0f);
    const LaunchReport r = run("copy_n", copy_n, dim3(1), dim3(32), 0, static_cast<float*>(nullptr), in.get(), 32);
    REQUIRE(r.fault.kind == FaultKind::OutOfBounds);
    CHECK(r.fault.is_write);
    CHECK(r.fault.line == g_line);
    CHECK(describe_fault(r.fault, Lang::En).find("null device pointer") != std::string::npos);
    CHECK(describe_fault(r.fault, Lang::Id).find("pointer device null") != std::string::npos);
}

TEST_CASE("memcheck: out-of-bounds static and dynamic shared memory") {
    Device<float> out("out", 64);
    // buf[64] of a `__shared__ float buf[64]`: the compiler's bounds check of
    // an array of known size (-fsanitize=bounds) stops it before the access,
    // so the fault names the array's type, not the variable, and neither read
    // nor write ("indexed"). (Until issue 34 the typed front end named it a
    // read of shared array 'buf'.)
    LaunchReport r = run("shared_oob", shared_out_of_bounds, dim3(1), dim3(64), 0, out.get());
    REQUIRE(r.fault.kind == FaultKind::OutOfBounds);
    CHECK(r.fault.space == MemorySpace::Local);
    CHECK(r.fault.detail == "indexed");
    CHECK(r.fault.buffer == "float [64]");
    CHECK(r.fault.index == 64);
    CHECK(r.fault.size == 64);
    CHECK(r.fault.thread == Dim3{63, 0, 0});
    CHECK(r.fault.line == g_line);
    CHECK(describe_fault(r.fault, Lang::En).find("used index 64 of an array of type 'float [64]'") != std::string::npos);

    // Through a pointer the compiler knows no bound: the emulator's bounds of
    // the whole shared variable catch it, by name. (Past the newest variable
    // of the process's shared memory, as this kernel's is at its only launch:
    // past an older one the address would fall in the next variable.)
    r = run("shared_oob_pointer", shared_out_of_bounds_through_pointer, dim3(1), dim3(64), 0, out.get());
    REQUIRE(r.fault.kind == FaultKind::OutOfBounds);
    CHECK(r.fault.space == MemorySpace::Shared);
    CHECK(r.fault.buffer == "past_end");
    CHECK_FALSE(r.fault.is_write);
    CHECK(r.fault.index == 64);
    CHECK(r.fault.size == 64);
    CHECK(r.fault.thread == Dim3{63, 0, 0});
    CHECK(r.fault.line == g_line);

    r = run("dyn_oob", dynamic_shared_out_of_bounds, dim3(1), dim3(32), 32 * sizeof(float), out.get());
    REQUIRE(r.fault.kind == FaultKind::OutOfBounds);
    CHECK(r.fault.space == MemorySpace::Shared);
    CHECK(r.fault.index == 32);  // thread 16 writes element 32 of 32
    CHECK(r.fault.thread == Dim3{16, 0, 0});
    CHECK(r.fault.line == g_line);
}

TEST_CASE("racecheck: a shared write and another thread's read with no barrier between") {
    Device<float> out("out", 64);
    const LaunchReport r = run("racy", racy_neighbour_read, dim3(1), dim3(64), 0, out.get(), false);
    REQUIRE(r.fault.kind == FaultKind::SharedRace);
    // Thread t-1 read element t (not yet written), then thread t wrote it.
    CHECK(r.fault.is_write);
    CHECK_FALSE(r.fault.other_is_write);
    CHECK(r.fault.index == r.fault.thread.x);
    CHECK(r.fault.other_thread.x == (r.fault.thread.x + 63) % 64);
    CHECK(r.fault.other_line == g_line);
    CHECK(r.fault.line == g_line - 2);
    CHECK(describe_fault(r.fault, Lang::En).find("racecheck") == 0);
    CHECK(describe_fault(r.fault, Lang::Id).find("tanpa __syncthreads di antaranya") != std::string::npos);

    const LaunchReport fixed = run("racy", racy_neighbour_read, dim3(1), dim3(64), 0, out.get(), true);
    CHECK(fixed.ok());
}

TEST_CASE("racecheck: __syncwarp orders shared accesses inside one warp") {
    Device<float> out("out", 32);
    CHECK(run("warp_exchange", warp_exchange, dim3(1), dim3(32), 0, out.get(), true).ok());
    CHECK(out.download()[0] == 31.0f);
    CHECK(run("warp_exchange", warp_exchange, dim3(1), dim3(32), 0, out.get(), false).fault.kind ==
          FaultKind::SharedRace);
}

TEST_CASE("initcheck: reading global memory never written") {
    Device<float> in("never_written", 32), out("out", 32);
    const LaunchReport r = run("read_unwritten", read_unwritten_global, dim3(1), dim3(32), 0, out.get(), in.get());
    REQUIRE(r.fault.kind == FaultKind::UninitializedRead);
    CHECK(r.fault.buffer == "never_written");
    CHECK(r.fault.line == g_line);
    CHECK(describe_fault(r.fault, Lang::En).find("initcheck") == 0);
}

TEST_CASE("initcheck: reading shared memory no thread of the block wrote") {
    Device<float> out("out", 32);
    const LaunchReport r = run("read_unwritten_shared", read_unwritten_shared, dim3(1), dim3(32), 0, out.get());
    REQUIRE(r.fault.kind == FaultKind::UninitializedRead);
    CHECK(r.fault.space == MemorySpace::Shared);
    CHECK(r.fault.index == 5);
    CHECK(r.fault.thread == Dim3{5, 0, 0});
}

TEST_CASE("counters: a coalesced float load is 4 sectors per request, stride 32 is 32") {
    auto in = iota_buffer("in", 32 * 32);
    Device<float> out("out", 32);
    LaunchReport r = run("strided_load", strided_load, dim3(1), dim3(32), 0, out.get(), in.get(), 1);
    REQUIRE(r.ok());
    CHECK(r.counters.global_load_requests == 1);
    CHECK(r.counters.global_load_sectors == 4);
    CHECK(r.counters.sectors_per_load_request() == 4.0);
    CHECK(r.counters.global_store_sectors == 4);
    r = run("strided_load", strided_load, dim3(1), dim3(32), 0, out.get(), in.get(), 32);
    REQUIRE(r.ok());
    CHECK(r.counters.global_load_requests == 1);
    CHECK(r.counters.global_load_sectors == 32);
    CHECK(r.counters.global_bytes_read == 32 * 4);
}

TEST_CASE("counters: 2-way bank conflict = 1 extra wavefront, broadcast = none") {
    Device<float> out("out", 32);
    // Stride 1: one request over 32 banks.
    LaunchReport r = run("shared_pattern", shared_pattern, dim3(1), dim3(32), 0, out.get(), 1);
    REQUIRE(r.ok());
    const int64_t fill_requests = 2048 / 32;  // the fill: 64 conflict-free store requests
    CHECK(r.counters.shared_store_requests == fill_requests);
    CHECK(r.counters.shared_load_requests == 1);
    CHECK(r.counters.shared_bank_conflicts == 0);
    // Stride 2: lanes l and l+16 share a bank with different words: 2-way.
    r = run("shared_pattern", shared_pattern, dim3(1), dim3(32), 0, out.get(), 2);
    REQUIRE(r.ok());
    CHECK(r.counters.shared_bank_conflicts == 1);
    CHECK(r.counters.shared_wavefronts == fill_requests + 2);
    // Stride 32: every lane in bank 0: 32-way.
    r = run("shared_pattern", shared_pattern, dim3(1), dim3(32), 0, out.get(), 32);
    CHECK(r.counters.shared_bank_conflicts == 31);
    // Stride 0: everyone reads one word: a broadcast.
    r = run("shared_pattern", shared_pattern, dim3(1), dim3(32), 0, out.get(), 0);
    CHECK(r.counters.shared_bank_conflicts == 0);
}

TEST_CASE("counters: diverged lanes pair as a warp runs them (the cuda-attention solution has no conflict)") {
    Device<float> out("out", 40);
    LaunchReport r = run("causal_rows", causal_rows, dim3(1), dim3(32), 0, out.get(), 40, 8);
    REQUIRE(r.ok());
    // Rows 0..31: 32·8 rounds per pass-1 and pass-2 line (3 lines); rows 32..39: 40·8 each.
    CHECK(r.counters.shared_load_requests == 3 * 32 * 8 + 3 * 40 * 8);
    CHECK(r.counters.shared_bank_conflicts == 0);
    Device<float> out2("out", 32);
    r = run("diverged_two_way", diverged_two_way, dim3(1), dim3(32), 0, out2.get());
    REQUIRE(r.ok());
    CHECK(r.counters.shared_load_requests == 32);
    CHECK(r.counters.shared_bank_conflicts == 16);
}

TEST_CASE("counters: the transposed layout keeps sectors/request but touches far fewer pages") {
    const int T = 128, H = 12, hd = 64, D = H * hd;
    auto in = iota_buffer("qkv", size_t(T) * D);
    Device<float> out("out", size_t(H) * 128);
    // (B, H, T, hd): head h starts at h·T·hd, rows hd apart.
    const LaunchReport transposed = run("read_head_slice", read_head_slice, dim3(H), dim3(128), 0, out.get(),
                                        in.get(), T, hd, T * hd, hd);
    // (B, T, H, hd): head h starts at h·hd, rows D apart.
    const LaunchReport strided = run("read_head_slice", read_head_slice, dim3(H), dim3(128), 0, out.get(),
                                     in.get(), T, hd, hd, D);
    REQUIRE((transposed.ok() && strided.ok()));
    CHECK(transposed.counters.sectors_per_load_request() == 4.0);
    CHECK(strided.counters.sectors_per_load_request() == 4.0);
    // 32 KiB contiguous per head: 8 or 9 pages (+1 or 2 for out); 128 rows 3 KiB apart: ~96.
    CHECK(transposed.counters.global_pages <= H * 11);
    CHECK(strided.counters.global_pages >= H * 90);
}

TEST_CASE("counters: counted on the second thread beside the blocks or inline, every figure is the same") {
    // Diverged warps (causal rows), barriers (rotate_through_shared), many
    // blocks with their pages and footprints (read_head_slice): the counting
    // thread takes the logs in the order they close, so nothing may differ.
    const int T = 128, H = 12, hd = 64;
    auto in = iota_buffer("qkv", size_t(T) * H * hd);
    Device<float> rows("rows", 40), rotated("rotated", 64 * 3), slices("slices", size_t(H) * 128);
    auto in_rot = iota_buffer("in", 64 * 3);
    auto launch_all = [&](bool beside) {
        LaunchOptions options;
        options.count_beside = beside;
        ScopedLaunchOptions scoped(options);
        return std::vector<LaunchReport>{
            run("causal_rows", causal_rows, dim3(1), dim3(40), 0, rows.get(), 40, 8),
            run("rotate_through_shared", rotate_through_shared, dim3(3), dim3(64), 0, rotated.get(), in_rot.get()),
            run("read_head_slice", read_head_slice, dim3(H), dim3(128), 0, slices.get(), in.get(), T, hd, hd, H * hd)};
    };
    const std::vector<LaunchReport> beside = launch_all(true), inline_counted = launch_all(false);
    for (size_t k = 0; k < beside.size(); ++k) {
        CAPTURE(beside[k].kernel);
        REQUIRE((beside[k].ok() && inline_counted[k].ok()));
        CHECK(beside[k].counters.global_load_requests + beside[k].counters.shared_load_requests > 0);  // something was counted
        for (const LaunchCounterField& field : kLaunchCounterFields) {
            CAPTURE(field.name);
            CHECK(beside[k].counters.*field.member == inline_counted[k].counters.*field.member);
        }
    }
}

TEST_CASE("a bad launch configuration is a fault, not a crash") {
    Device<float> out("out", 32);
    LaunchReport r = run("copy_n", copy_n, dim3(1), dim3(2048), 0, out.get(), out.get(), 0);
    CHECK(r.fault.kind == FaultKind::InvalidLaunch);
    CHECK(r.fault.detail == "block_too_large");
    CHECK(describe_fault(r.fault, Lang::Id).find("2048") != std::string::npos);
    r = run("copy_n", copy_n, dim3(0), dim3(32), 0, out.get(), out.get(), 0);
    CHECK(r.fault.kind == FaultKind::InvalidLaunch);
}

TEST_CASE("an endless loop stops at the step budget; an exception is reported") {
    Device<float> out("out", 2 * 32);
    LaunchOptions o;
    o.max_steps_per_thread = 10000;
    ScopedLaunchOptions scoped(o);
    LaunchReport r = run("endless", endless, dim3(2), dim3(32), 0, out.get(), 1);
    CHECK(r.fault.kind == FaultKind::StepLimit);
    r = run("throws", throws, dim3(1), dim3(4), 0, out.get());
    CHECK(r.fault.kind == FaultKind::KernelException);
    CHECK(r.fault.detail == "boom");
    // The emulator is still usable after faults.
    auto in = iota_buffer("in", 32);
    Device<float> copy("copy", 32);
    CHECK(run("copy_n", copy_n, dim3(1), dim3(32), 0, copy.get(), in.get(), 32).ok());
    CHECK(copy.download()[31] == 31.0f);
}

TEST_CASE("trace: every access of the chosen block, with its warp request index") {
    auto in = iota_buffer("in", 64);
    Device<float> out("out", 64);
    LaunchOptions o;
    o.trace = true;
    o.trace_block = {1, 0, 0};
    ScopedLaunchOptions scoped(o);
    const LaunchReport r = run("copy_n", copy_n, dim3(2), dim3(32), 0, out.get(), in.get(), 64);
    REQUIRE(r.ok());
    REQUIRE(r.trace.size() == 64);  // 32 reads + 32 writes of block 1 only
    int reads = 0;
    for (const AccessEvent& e : r.trace) {
        if (e.is_write) continue;
        ++reads;
        CHECK(e.buffer == "in");
        CHECK(e.index == 32 + e.thread);
        CHECK(e.k == 0);
        CHECK(e.sector == uint64_t((32 + e.thread) * 4 / 32));
        CHECK(e.line == g_line);
    }
    CHECK(reads == 32);
}

TEST_CASE("scheduler: no memory for the threads' stacks is a fault, never an exception out of launch()") {
    {
        LaunchOptions o;
        o.stack_bytes = size_t(1) << 62;  // no mmap can give that
        ScopedLaunchOptions scoped(o);
        const LaunchReport r = launch("barrier_only", barrier_only, dim3(8), dim3(32), 0);
        CHECK(r.fault.kind == FaultKind::KernelException);
        CHECK(r.fault.detail == "cannot allocate emulated thread stacks");
    }
    const LaunchReport r = launch("barrier_only", barrier_only, dim3(8), dim3(32), 0);  // the next launch works
    CHECK(r.ok());
    CHECK(r.counters.blocks == 8);
    CHECK(r.counters.barriers == 8);
}

TEST_CASE("scheduler: a launch under an address-space limit too small for its stacks reports a fault") {
    // In a child process, so the limit does not touch this one; the child
    // answers with its exit code (a crash or an escaping exception: a signal).
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        Device<float> out("out", 2 * 1024);
        LaunchOptions o;
        o.stack_bytes = 1024 * 1024;  // 1024 threads: 1 GiB of stacks
        ScopedLaunchOptions scoped(o);
        long pages = 0;
        if (FILE* f = std::fopen("/proc/self/statm", "r")) {
            if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
            std::fclose(f);
        }
        rlimit lim{};
        getrlimit(RLIMIT_AS, &lim);
        lim.rlim_cur = rlim_t(pages) * rlim_t(sysconf(_SC_PAGESIZE)) + (rlim_t(64) << 20);
        if (pages == 0 || setrlimit(RLIMIT_AS, &lim) != 0) _exit(3);
        const LaunchReport r = run("touch", touch, dim3(2), dim3(1024), 0, out.get());
        const bool reported = r.fault.kind == FaultKind::KernelException &&
                              r.fault.detail == "cannot allocate emulated thread stacks";
        _exit(reported ? 0 : 1);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    CHECK_FALSE(WIFSIGNALED(status));
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("initcheck: a read of unwritten shared memory is reported even when a __syncwarp and a write follow") {
    Device<float> out("out", 32);
    const LaunchReport r = run("read_then_syncwarp_then_write", read_then_syncwarp_then_write, dim3(1), dim3(32),
                               0, out.get());
    REQUIRE(r.fault.kind == FaultKind::UninitializedRead);
    CHECK(r.fault.space == MemorySpace::Shared);
    CHECK(r.fault.index == 0);
    CHECK(r.fault.thread == Dim3{1, 0, 0});
    CHECK(r.fault.line == g_line);
}

TEST_CASE("shuffles: xor with a sub-warp width may read from an earlier group, not a later one") {
    Device<int> out("out", 32);
    REQUIRE(run("xor_sub_warp", xor_sub_warp, dim3(1), dim3(32), 0, out.get()).ok());
    const std::vector<int> v = out.download();
    for (int lane = 0; lane < 32; ++lane) {
        INFO("lane " << lane);
        CHECK(v[lane] == (lane < 16 ? lane * 10 : (lane - 16) * 10));
    }
}

TEST_CASE("racecheck: a write races with the reads of every other warp, however many threads read") {
    Device<float> out("out", 64);
    for (int writer : {0, 40}) {  // warp 0 (its own reads ordered by __syncwarp) and warp 1
        INFO("writer " << writer);
        const LaunchReport r = run("broadcast_then_write", broadcast_then_write, dim3(1), dim3(64), 0, out.get(),
                                   writer);
        REQUIRE(r.fault.kind == FaultKind::SharedRace);
        CHECK(r.fault.thread == Dim3{unsigned(writer), 0, 0});
        CHECK(r.fault.is_write);
        CHECK_FALSE(r.fault.other_is_write);
        CHECK(r.fault.line == g_line);
        CHECK(r.fault.other_thread.x / 32 != unsigned(writer) / 32);  // a reader of the other warp
    }
}

TEST_CASE("racecheck: a write after its own read still races with another lane's earlier read") {
    Device<float> out("out", 32);
    for (int first : {5, 19}) {
        INFO("first reader " << first);
        const LaunchReport r = run("two_readers", two_readers_then_write, dim3(1), dim3(32), 0, out.get(), first,
                                   false);
        REQUIRE(r.fault.kind == FaultKind::SharedRace);
        CHECK(r.fault.thread == Dim3{20, 0, 0});
        CHECK(r.fault.other_thread == Dim3{unsigned(first), 0, 0});
        CHECK(run("two_readers", two_readers_then_write, dim3(1), dim3(32), 0, out.get(), first, true).ok());
    }
}

TEST_CASE("synccheck: lane groups with disjoint masks shuffle independently; overlapping masks do not") {
    Device<int> out("out", 64);
    const LaunchReport r = run("split_lane_groups", split_lane_groups, dim3(1), dim3(64), 0, out.get(), false);
    REQUIRE(r.ok());
    const std::vector<int> v = out.download();
    for (int t = 0; t < 64; ++t) CHECK(v[t] == ((t % 32) ^ 2));
    const LaunchReport bad = run("split_lane_groups", split_lane_groups, dim3(1), dim3(32), 0, out.get(), true);
    CHECK(bad.fault.kind == FaultKind::WarpDivergence);
    CHECK(bad.fault.detail == "mismatched_ops");
    // Each group with its own line: lane 0 waits at the even lanes' shuffle,
    // lane 1 arrives at the other one (lanes run in order, so lane 0 is alone).
    REQUIRE(bad.fault.groups.size() == 2);
    CHECK(bad.fault.groups[0].threads == std::vector<unsigned>{0});
    CHECK(bad.fault.groups[1].threads == std::vector<unsigned>{1});
    CHECK(bad.fault.groups[1].line == bad.fault.groups[0].line + 1);
    CHECK(bad.fault.line == bad.fault.groups[1].line);
    const std::string text = describe_fault(bad.fault, Lang::En);
    CHECK(text.find("thread 0 waits on line " + std::to_string(bad.fault.groups[0].line)) != std::string::npos);
    CHECK(text.find("thread 1 waits on line " + std::to_string(bad.fault.groups[1].line)) != std::string::npos);
    CHECK(describe_fault(bad.fault, Lang::Id).find("menunggu pada baris kode " + std::to_string(bad.fault.groups[0].line)) != std::string::npos);
}

TEST_CASE("counters: device buffers are page-aligned, so page counts do not depend on the host allocator") {
    std::vector<std::vector<char>> shifts;
    std::vector<int64_t> pages;
    for (int trial = 0; trial < 4; ++trial) {
        shifts.emplace_back(size_t(trial) * 768 + 100);  // moves where the next buffers land
        auto in = iota_buffer("in", 4 * 2048);
        Device<float> pad("pad", 64 * (trial + 1)), o("o", 4 * 128);
        CHECK(reinterpret_cast<uintptr_t>(in.get()) % 4096 == 0);
        const LaunchReport r = run("read_head_slice", read_head_slice, dim3(4), dim3(128), 0, o.get(),
                                   in.get(), 16, 128, 2048, 128);
        REQUIRE(r.ok());
        pages.push_back(r.counters.global_pages);
    }
    for (int64_t p : pages) CHECK(p == pages[0]);
}

}  // TEST_SUITE

TEST_CASE("LaunchCounters::add sums every listed counter and keeps the largest per-block shared size") {
    // Distinct values per field, so a field summed twice or not at all shows.
    LaunchCounters a, b;
    int64_t n = 1;
    for_each_counter(a, [&](const char*, int64_t& v) { v = n++; });
    for_each_counter(b, [&](const char*, int64_t& v) { v = 100 * n++; });
    const LaunchCounters before = a;
    a.add(b);
    for (const LaunchCounterField& f : kLaunchCounterFields) {
        CAPTURE(f.name);
        const int64_t want = f.combine == CounterCombine::Max ? std::max(before.*f.member, b.*f.member) : before.*f.member + b.*f.member;
        CHECK(a.*f.member == want);
    }
    CHECK(a.static_shared_bytes == b.static_shared_bytes);  // a size per block: the larger, not the sum
    CHECK(a.blocks == before.blocks + b.blocks);
}
