// The CPU emulator of the CUDA execution model, on hand-computed cases:
// barriers, shuffles, atomics, the four sanitizer checks (with block, thread
// and line) and the structural counters.
#include <doctest/doctest.h>

#include <cstdio>
#include <numeric>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "attnlab/core/text/launch_words.hpp"
#include "attnlab/cuda_emu.hpp"

using namespace attnlab::emu;
using attnlab::describe_fault;  // the words are the core's; the emulator gives codes and numbers
using attnlab::Lang;

namespace {

int g_line = 0;  // a kernel stores __LINE__ here on the line under test

DeviceBuffer<float> iota_buffer(const char* name, size_t n) {
    std::vector<float> v(n);
    std::iota(v.begin(), v.end(), 0.0f);
    return DeviceBuffer<float>::from_host(name, v);
}

// ------------------------------------------------------------- kernels

// out[i] = the value thread i+1 (wrapping) wrote into shared memory.
__global__ void rotate_through_shared(DevicePtr<float> out, DevicePtr<const float> in) {
    __shared__ shared<float[64]> buf;
    const int t = threadIdx.x, n = blockDim.x;
    buf[t] = in[blockIdx.x * n + t];
    __syncthreads();
    out[blockIdx.x * n + t] = buf[(t + 1) % n];
}

__global__ void barrier_in_branch(DevicePtr<float> out) {
    g_line = __LINE__; if (threadIdx.x < 16) __syncthreads();
    out[threadIdx.x] = 1.0f;
}

__global__ void early_return_then_barrier(DevicePtr<float> out, int n) {
    if (int(threadIdx.x) >= n) return;
    g_line = __LINE__; __syncthreads();
    out[threadIdx.x] = 1.0f;
}

__global__ void two_different_barriers(DevicePtr<float> out) {
    if (threadIdx.x % 2 == 0) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = 1.0f;
}

__global__ void shuffles(DevicePtr<int> out) {
    const int lane = threadIdx.x % 32;
    const int base = threadIdx.x * 6;
    out[base + 0] = __shfl_sync(0xffffffffu, lane * 10, 3);         // broadcast lane 3
    int sum = lane;
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    out[base + 1] = sum;                                             // 0 + 1 + ... + 31
    out[base + 2] = __shfl_down_sync(0xffffffffu, lane, 1);          // lane + 1, last keeps its own
    out[base + 3] = __shfl_up_sync(0xffffffffu, lane, 2);            // lane - 2, first two keep theirs
    out[base + 4] = __shfl_sync(0xffffffffu, lane, 1, 16);           // lane 1 of each half-warp
    out[base + 5] = int(__ballot_sync(0xffffffffu, lane % 2 == 1) == 0xaaaaaaaau);
}

__global__ void shuffle_after_exit(DevicePtr<float> out) {
    if (threadIdx.x >= 8) return;
    float v = 1.0f;
    g_line = __LINE__; v += __shfl_down_sync(0xffffffffu, v, 1);
    out[threadIdx.x] = v;
}

__global__ void atomics(DevicePtr<int> counter, DevicePtr<int> max_int, DevicePtr<float> max_float,
                        DevicePtr<float> sum, DevicePtr<int> cas_winner) {
    const int id = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&counter[0], 1);
    atomicMax(&max_int[0], id);
    atomicMax(&max_float[0], 0.5f * id);
    atomicAdd(&sum[0], 1.0f);
    atomicCAS(&cas_winner[0], -1, id);  // exactly one thread wins
}

__global__ void shared_atomics(DevicePtr<int> out) {
    __shared__ shared<int[1]> count;
    if (threadIdx.x == 0) count[0] = 0;
    __syncthreads();
    atomicAdd(&count[0], 2);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = count[0];
}

__global__ void copy_n(DevicePtr<float> out, DevicePtr<const float> in, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    g_line = __LINE__; if (i < n) out[i] = in[i];
}

__global__ void shared_out_of_bounds(DevicePtr<float> out) {
    __shared__ shared<float[64]> buf;
    buf[threadIdx.x] = 1.0f;
    __syncthreads();
    g_line = __LINE__; out[threadIdx.x] = buf[threadIdx.x + 1];
}

__global__ void dynamic_shared_out_of_bounds(DevicePtr<float> out) {
    SharedPtr<float> smem = dynamic_shared<float>();
    g_line = __LINE__; smem[threadIdx.x * 2] = 1.0f;
    out[threadIdx.x] = 0.0f;
}

// Missing __syncthreads between the write and the neighbour's read.
__global__ void racy_neighbour_read(DevicePtr<float> out, bool with_barrier) {
    __shared__ shared<float[64]> buf;
    buf[threadIdx.x] = float(threadIdx.x);
    if (with_barrier) __syncthreads();
    g_line = __LINE__; out[threadIdx.x] = buf[(threadIdx.x + 1) % 64];
}

// Lanes of one warp exchange through shared memory, ordered by __syncwarp.
__global__ void warp_exchange(DevicePtr<float> out, bool with_syncwarp) {
    __shared__ shared<float[32]> buf;
    buf[threadIdx.x] = float(threadIdx.x);
    if (with_syncwarp) __syncwarp();
    out[threadIdx.x] = buf[31 - threadIdx.x];
}

__global__ void read_unwritten_global(DevicePtr<float> out, DevicePtr<const float> in) {
    g_line = __LINE__; out[threadIdx.x] = in[threadIdx.x];
}

__global__ void read_unwritten_shared(DevicePtr<float> out) {
    __shared__ shared<float[32]> buf;
    if (threadIdx.x != 5) buf[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = buf[threadIdx.x];
}

__global__ void strided_load(DevicePtr<float> out, DevicePtr<const float> in, int stride) {
    out[threadIdx.x] = in[threadIdx.x * stride];
}

__global__ void shared_pattern(DevicePtr<float> out, int stride) {
    __shared__ shared<float[2048]> buf;
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) buf[i] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = buf[threadIdx.x * stride];  // stride 0: broadcast
}

// The cuda-attention solution's pattern in one warp: rows i = lane and
// lane + 32 (T = 40); pass 1 reads K row j for j <= i, pass 2 K and V rows.
// In every round each active lane reads the same word: a GPU counts no
// conflict, although lanes run their loops a different number of times.
__global__ void causal_rows(DevicePtr<float> out, int T, int hd) {
    __shared__ shared<float[2 * 40 * 8]> kv;
    for (int e = threadIdx.x; e < 2 * T * hd; e += blockDim.x) kv[e] = 1.0f;
    __syncthreads();
    for (int i = threadIdx.x; i < T; i += blockDim.x) {
        float m = 0.0f, acc = 0.0f;
        for (int j = 0; j <= i; ++j)
            for (int d = 0; d < hd; ++d) m += kv[j * hd + d];
        for (int j = 0; j <= i; ++j)
            for (int d = 0; d < hd; ++d) {
                const float s = kv[j * hd + d];
                acc += s * kv[T * hd + j * hd + d];
            }
        out[i] = m + acc;
    }
}

// Lane l reads word 2l + 64j for j <= l: in round j lanes j..31 are active,
// and lanes l, l + 16 share a bank (2-way) while both are: rounds 0..15.
__global__ void diverged_two_way(DevicePtr<float> out) {
    __shared__ shared<float[2048]> buf;
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) buf[i] = 1.0f;
    __syncthreads();
    float x = 0.0f;
    for (int j = 0; j <= int(threadIdx.x); ++j) x += buf[threadIdx.x * 2 + j * 64];
    out[threadIdx.x] = x;
}

// One block per head reads that head's (T, hd) slice, rows `row_stride` apart:
// hd for the (B, H, T, hd) layout, D = H·hd for (B, T, H, hd).
__global__ void read_head_slice(DevicePtr<float> out, DevicePtr<const float> in, int T, int hd, int head_offset,
                                int row_stride) {
    float sum = 0.0f;
    for (int e = threadIdx.x; e < T * hd; e += blockDim.x)
        sum += in[blockIdx.x * head_offset + (e / hd) * row_stride + e % hd];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

__global__ void endless(DevicePtr<float> out) {
    for (;;) out[0] = 1.0f;
}

__global__ void throws(DevicePtr<float>) { throw std::runtime_error("boom"); }

__global__ void write_block_and_thread(DevicePtr<int> out) {
    const int i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x;
    out[i] = int(blockIdx.x + 10 * blockIdx.y + 100 * threadIdx.x + 1000 * threadIdx.y);
}

__global__ void touch(DevicePtr<float> out) { out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f; }

// Lane 1 reads s[0] before anyone wrote it; after a __syncwarp lane 0 writes
// it: lane 1 still read garbage.
__global__ void read_then_syncwarp_then_write(DevicePtr<float> out) {
    __shared__ shared<float[32]> s;
    float x = 0.0f;
    if (threadIdx.x == 1) { g_line = __LINE__; x = s[0]; }
    __syncwarp();
    if (threadIdx.x == 0) s[0] = 5.0f;
    __syncthreads();
    out[threadIdx.x] = x;
}

// Width 16: lane 16 ^ 16 = lane 0 lies in an earlier group (allowed), lane
// 0 ^ 16 = 16 in a later one (own value).
__global__ void xor_sub_warp(DevicePtr<int> out) {
    const int lane = threadIdx.x % 32;
    out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, lane * 10, 16, 16);
}

// Every thread of two warps reads s[0]; warp 0 alone __syncwarps; thread
// `writer` then writes s[0]: warp 1's reads race with it whoever writes.
__global__ void broadcast_then_write(DevicePtr<float> out, int writer) {
    __shared__ shared<float[1]> s;
    if (threadIdx.x == 0) s[0] = 1.0f;
    __syncthreads();
    const float x = s[0];
    if (threadIdx.x < 32) __syncwarp();
    if (int(threadIdx.x) == writer) { g_line = __LINE__; s[0] = 2.0f; }
    out[threadIdx.x] = x;
}

// One warp: lane `first` reads s[0], then lane 20 (run after it) reads and
// writes it. With `with_syncwarp`, a __syncwarp orders `first`'s read before
// the write.
__global__ void two_readers_then_write(DevicePtr<float> out, int first, bool with_syncwarp) {
    __shared__ shared<float[1]> s;
    if (threadIdx.x == 0) s[0] = 1.0f;
    __syncthreads();
    float x = 0.0f;
    if (int(threadIdx.x) == first) x = s[0];
    if (with_syncwarp) __syncwarp();
    if (threadIdx.x == 20) {
        x = s[0];
        s[0] = x + 1.0f;
    }
    out[threadIdx.x] = x;
}

// Even and odd lanes shuffle in separate groups (valid since Volta); with
// `overlap` the odd lanes claim the whole warp, which the even lanes share.
__global__ void split_lane_groups(DevicePtr<int> out, bool overlap) {
    const int lane = threadIdx.x % 32;
    int v = lane;
    if (lane % 2 == 0) v = __shfl_xor_sync(0x55555555u, v, 2);
    else v = __shfl_xor_sync(overlap ? 0xffffffffu : 0xaaaaaaaau, v, 2);
    out[threadIdx.x] = v;
}

}  // namespace

TEST_SUITE("cuda-emulator") {

TEST_CASE("indices: every thread of every block sees its own blockIdx and threadIdx") {
    DeviceBuffer<int> out("out", 2 * 3 * 4 * 2);
    const LaunchReport r = launch("write_block_and_thread", write_block_and_thread, dim3(2, 3), dim3(4, 2), 0, out.ptr());
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

namespace {
// Three votes in a row per thread, so a count must not leak into the next barrier's.
__global__ void barrier_votes(DevicePtr<int> out) {
    const int t = threadIdx.x;
    const int multiples_of_3 = __syncthreads_count(t % 3 == 0);
    const int all_small = __syncthreads_and(t < 1000);
    const int any_last = __syncthreads_or(t == int(blockDim.x) - 1);
    const int none = __syncthreads_or(0);
    out[blockIdx.x * blockDim.x + t] = multiples_of_3 + 1000 * all_small + 10000 * any_last + 100000 * none;
}
}  // namespace

TEST_CASE("barrier votes: __syncthreads_count, _and and _or give every thread the block's totals, barrier after barrier") {
    DeviceBuffer<int> out("out", 2 * 64);
    const LaunchReport r = launch("barrier_votes", barrier_votes, dim3(2), dim3(64), 0, out.ptr());
    REQUIRE(r.ok());
    for (int v : out.download()) CHECK(v == 22 + 1000 + 10000);  // 22 multiples of 3 in 0..63
    CHECK(r.counters.barriers == 2 * 4);
}

TEST_CASE("barrier: a value written before __syncthreads is seen by another thread after it") {
    auto in = iota_buffer("in", 128);
    DeviceBuffer<float> out("out", 128);
    const LaunchReport r = launch("rotate", rotate_through_shared, dim3(2), dim3(64), 0, out.ptr(), DevicePtr<const float>(in.ptr()));
    REQUIRE(r.ok());
    const std::vector<float> v = out.download();
    for (int b = 0; b < 2; ++b)
        for (int t = 0; t < 64; ++t) CHECK(v[b * 64 + t] == float(b * 64 + (t + 1) % 64));
    CHECK(r.counters.barriers == 2);  // one per block
}

TEST_CASE("synccheck: a barrier inside a branch names the waiting and the exited threads") {
    DeviceBuffer<float> out("out", 32);
    const LaunchReport r = launch("barrier_in_branch", barrier_in_branch, dim3(1), dim3(32), 0, out.ptr());
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
    DeviceBuffer<float> out("out", 64);
    const LaunchReport r = launch("early_return", early_return_then_barrier, dim3(1), dim3(64), 0, out.ptr(), 40);
    REQUIRE(r.fault.kind == FaultKind::BarrierDivergence);
    CHECK(thread_ranges(r.fault.groups[0].threads) == "0-39");
    CHECK(thread_ranges(r.fault.groups[1].threads) == "40-63");
    CHECK(r.fault.line == g_line);
    // Every thread that stays reaches the barrier: no fault.
    CHECK(launch("early_return", early_return_then_barrier, dim3(1), dim3(64), 0, out.ptr(), 64).ok());
}

TEST_CASE("synccheck: threads waiting at two different __syncthreads") {
    DeviceBuffer<float> out("out", 32);
    const LaunchReport r = launch("two_barriers", two_different_barriers, dim3(1), dim3(32), 0, out.ptr());
    REQUIRE(r.fault.kind == FaultKind::BarrierDivergence);
    REQUIRE(r.fault.groups.size() == 2);
    CHECK(r.fault.groups[0].line != r.fault.groups[1].line);
    CHECK(r.fault.groups[0].threads.size() == 16);
}

TEST_CASE("shuffles: broadcast, xor reduction, down, up, sub-warp width, ballot") {
    DeviceBuffer<int> out("out", 64 * 6);
    const LaunchReport r = launch("shuffles", shuffles, dim3(1), dim3(64), 0, out.ptr());
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
    DeviceBuffer<float> out("out", 32);
    const LaunchReport r = launch("shuffle_after_exit", shuffle_after_exit, dim3(1), dim3(32), 0, out.ptr());
    REQUIRE(r.fault.kind == FaultKind::WarpDivergence);
    CHECK(r.fault.line == g_line);
    CHECK(thread_ranges(r.fault.groups[0].threads) == "0-7");
    CHECK(thread_ranges(r.fault.groups.back().threads) == "8-31");
    CHECK(r.fault.groups.back().what == ThreadActivity::Exited);
}

TEST_CASE("atomics on global memory across blocks running in parallel") {
    DeviceBuffer<int> counter("counter", 1), max_int("max_int", 1), winner("winner", 1);
    DeviceBuffer<float> max_float("max_float", 1), sum("sum", 1);
    counter.fill(0);
    max_int.fill(-1);
    winner.fill(-1);
    max_float.fill(-1.0f);
    sum.fill(0.0f);
    ScopedLaunchOptions threads([] { LaunchOptions o; o.threads = 4; return o; }());
    const LaunchReport r = launch("atomics", atomics, dim3(8), dim3(64), 0, counter.ptr(), max_int.ptr(),
                                  max_float.ptr(), sum.ptr(), winner.ptr());
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
    DeviceBuffer<int> out("out", 3);
    const LaunchReport r = launch("shared_atomics", shared_atomics, dim3(3), dim3(96), 0, out.ptr());
    REQUIRE(r.ok());
    for (int v : out.download()) CHECK(v == 192);
}

TEST_CASE("memcheck: out-of-bounds global read names thread, block, index, size and line") {
    auto in = iota_buffer("in", 100);
    DeviceBuffer<float> out("out", 128);
    const LaunchReport r = launch("copy_n", copy_n, dim3(4), dim3(32), 0, out.ptr(), DevicePtr<const float>(in.ptr()), 101);
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
    DeviceBuffer<float> out("out", 100);
    const LaunchReport r = launch("copy_n", copy_n, dim3(4), dim3(32), 0, out.ptr(), DevicePtr<const float>(in.ptr()), 128);
    REQUIRE(r.fault.kind == FaultKind::OutOfBounds);
    CHECK(r.fault.is_write);
    CHECK(r.fault.buffer == "out");
    CHECK(r.fault.index >= 100);
}

TEST_CASE("memcheck: a null device pointer is a fault, not a crash") {
    DeviceBuffer<float> in("in", 32);
    in.fill(1.0f);
    const LaunchReport r = launch("copy_n", copy_n, dim3(1), dim3(32), 0, DevicePtr<float>(nullptr),
                                  DevicePtr<const float>(in.ptr()), 32);
    REQUIRE(r.fault.kind == FaultKind::OutOfBounds);
    CHECK(r.fault.is_write);
    CHECK(r.fault.line == g_line);
    CHECK(describe_fault(r.fault, Lang::En).find("null device pointer") != std::string::npos);
    CHECK(describe_fault(r.fault, Lang::Id).find("pointer device null") != std::string::npos);
}

TEST_CASE("memcheck: out-of-bounds static and dynamic shared memory") {
    DeviceBuffer<float> out("out", 64);
    LaunchReport r = launch("shared_oob", shared_out_of_bounds, dim3(1), dim3(64), 0, out.ptr());
    REQUIRE(r.fault.kind == FaultKind::OutOfBounds);
    CHECK(r.fault.space == MemorySpace::Shared);
    CHECK(r.fault.index == 64);
    CHECK(r.fault.size == 64);
    CHECK(r.fault.thread == Dim3{63, 0, 0});
    CHECK(r.fault.line == g_line);

    r = launch("dyn_oob", dynamic_shared_out_of_bounds, dim3(1), dim3(32), 32 * sizeof(float), out.ptr());
    REQUIRE(r.fault.kind == FaultKind::OutOfBounds);
    CHECK(r.fault.space == MemorySpace::Shared);
    CHECK(r.fault.index == 32);  // thread 16 writes element 32 of 32
    CHECK(r.fault.thread == Dim3{16, 0, 0});
    CHECK(r.fault.line == g_line);
}

TEST_CASE("racecheck: a shared write and another thread's read with no barrier between") {
    DeviceBuffer<float> out("out", 64);
    const LaunchReport r = launch("racy", racy_neighbour_read, dim3(1), dim3(64), 0, out.ptr(), false);
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

    const LaunchReport fixed = launch("racy", racy_neighbour_read, dim3(1), dim3(64), 0, out.ptr(), true);
    CHECK(fixed.ok());
}

TEST_CASE("racecheck: __syncwarp orders shared accesses inside one warp") {
    DeviceBuffer<float> out("out", 32);
    CHECK(launch("warp_exchange", warp_exchange, dim3(1), dim3(32), 0, out.ptr(), true).ok());
    CHECK(out.download()[0] == 31.0f);
    CHECK(launch("warp_exchange", warp_exchange, dim3(1), dim3(32), 0, out.ptr(), false).fault.kind ==
          FaultKind::SharedRace);
}

TEST_CASE("initcheck: reading global memory never written") {
    DeviceBuffer<float> in("never_written", 32), out("out", 32);
    const LaunchReport r = launch("read_unwritten", read_unwritten_global, dim3(1), dim3(32), 0, out.ptr(), DevicePtr<const float>(in.ptr()));
    REQUIRE(r.fault.kind == FaultKind::UninitializedRead);
    CHECK(r.fault.buffer == "never_written");
    CHECK(r.fault.line == g_line);
    CHECK(describe_fault(r.fault, Lang::En).find("initcheck") == 0);
}

TEST_CASE("initcheck: reading shared memory no thread of the block wrote") {
    DeviceBuffer<float> out("out", 32);
    const LaunchReport r = launch("read_unwritten_shared", read_unwritten_shared, dim3(1), dim3(32), 0, out.ptr());
    REQUIRE(r.fault.kind == FaultKind::UninitializedRead);
    CHECK(r.fault.space == MemorySpace::Shared);
    CHECK(r.fault.index == 5);
    CHECK(r.fault.thread == Dim3{5, 0, 0});
}

TEST_CASE("counters: a coalesced float load is 4 sectors per request, stride 32 is 32") {
    auto in = iota_buffer("in", 32 * 32);
    DeviceBuffer<float> out("out", 32);
    LaunchReport r = launch("strided_load", strided_load, dim3(1), dim3(32), 0, out.ptr(), DevicePtr<const float>(in.ptr()), 1);
    REQUIRE(r.ok());
    CHECK(r.counters.global_load_requests == 1);
    CHECK(r.counters.global_load_sectors == 4);
    CHECK(r.counters.sectors_per_load_request() == 4.0);
    CHECK(r.counters.global_store_sectors == 4);
    r = launch("strided_load", strided_load, dim3(1), dim3(32), 0, out.ptr(), DevicePtr<const float>(in.ptr()), 32);
    REQUIRE(r.ok());
    CHECK(r.counters.global_load_requests == 1);
    CHECK(r.counters.global_load_sectors == 32);
    CHECK(r.counters.global_bytes_read == 32 * 4);
}

TEST_CASE("counters: 2-way bank conflict = 1 extra wavefront, broadcast = none") {
    DeviceBuffer<float> out("out", 32);
    // Stride 1: one request over 32 banks.
    LaunchReport r = launch("shared_pattern", shared_pattern, dim3(1), dim3(32), 0, out.ptr(), 1);
    REQUIRE(r.ok());
    const int64_t fill_requests = 2048 / 32;  // the fill: 64 conflict-free store requests
    CHECK(r.counters.shared_store_requests == fill_requests);
    CHECK(r.counters.shared_load_requests == 1);
    CHECK(r.counters.shared_bank_conflicts == 0);
    // Stride 2: lanes l and l+16 share a bank with different words: 2-way.
    r = launch("shared_pattern", shared_pattern, dim3(1), dim3(32), 0, out.ptr(), 2);
    REQUIRE(r.ok());
    CHECK(r.counters.shared_bank_conflicts == 1);
    CHECK(r.counters.shared_wavefronts == fill_requests + 2);
    // Stride 32: every lane in bank 0: 32-way.
    r = launch("shared_pattern", shared_pattern, dim3(1), dim3(32), 0, out.ptr(), 32);
    CHECK(r.counters.shared_bank_conflicts == 31);
    // Stride 0: everyone reads one word: a broadcast.
    r = launch("shared_pattern", shared_pattern, dim3(1), dim3(32), 0, out.ptr(), 0);
    CHECK(r.counters.shared_bank_conflicts == 0);
}

TEST_CASE("counters: diverged lanes pair as a warp runs them (the cuda-attention solution has no conflict)") {
    DeviceBuffer<float> out("out", 40);
    LaunchReport r = launch("causal_rows", causal_rows, dim3(1), dim3(32), 0, out.ptr(), 40, 8);
    REQUIRE(r.ok());
    // Rows 0..31: 32·8 rounds per pass-1 and pass-2 line (3 lines); rows 32..39: 40·8 each.
    CHECK(r.counters.shared_load_requests == 3 * 32 * 8 + 3 * 40 * 8);
    CHECK(r.counters.shared_bank_conflicts == 0);
    DeviceBuffer<float> out2("out", 32);
    r = launch("diverged_two_way", diverged_two_way, dim3(1), dim3(32), 0, out2.ptr());
    REQUIRE(r.ok());
    CHECK(r.counters.shared_load_requests == 32);
    CHECK(r.counters.shared_bank_conflicts == 16);
}

TEST_CASE("counters: the transposed layout keeps sectors/request but touches far fewer pages") {
    const int T = 128, H = 12, hd = 64, D = H * hd;
    auto in = iota_buffer("qkv", size_t(T) * D);
    DeviceBuffer<float> out("out", size_t(H) * 128);
    // (B, H, T, hd): head h starts at h·T·hd, rows hd apart.
    const LaunchReport transposed = launch("read_head_slice", read_head_slice, dim3(H), dim3(128), 0, out.ptr(),
                                           DevicePtr<const float>(in.ptr()), T, hd, T * hd, hd);
    // (B, T, H, hd): head h starts at h·hd, rows D apart.
    const LaunchReport strided = launch("read_head_slice", read_head_slice, dim3(H), dim3(128), 0, out.ptr(),
                                        DevicePtr<const float>(in.ptr()), T, hd, hd, D);
    REQUIRE((transposed.ok() && strided.ok()));
    CHECK(transposed.counters.sectors_per_load_request() == 4.0);
    CHECK(strided.counters.sectors_per_load_request() == 4.0);
    // 32 KiB contiguous per head: 8 or 9 pages (+1 or 2 for out); 128 rows 3 KiB apart: ~96.
    CHECK(transposed.counters.global_pages <= H * 11);
    CHECK(strided.counters.global_pages >= H * 90);
}

TEST_CASE("a bad launch configuration is a fault, not a crash") {
    DeviceBuffer<float> out("out", 32);
    LaunchReport r = launch("copy_n", copy_n, dim3(1), dim3(2048), 0, out.ptr(), DevicePtr<const float>(out.ptr()), 0);
    CHECK(r.fault.kind == FaultKind::InvalidLaunch);
    CHECK(r.fault.detail == "block_too_large");
    CHECK(describe_fault(r.fault, Lang::Id).find("2048") != std::string::npos);
    r = launch("copy_n", copy_n, dim3(0), dim3(32), 0, out.ptr(), DevicePtr<const float>(out.ptr()), 0);
    CHECK(r.fault.kind == FaultKind::InvalidLaunch);
}

TEST_CASE("an endless loop stops at the step budget; an exception is reported") {
    DeviceBuffer<float> out("out", 1);
    LaunchOptions o;
    o.max_steps_per_thread = 10000;
    ScopedLaunchOptions scoped(o);
    LaunchReport r = launch("endless", endless, dim3(2), dim3(32), 0, out.ptr());
    CHECK(r.fault.kind == FaultKind::StepLimit);
    r = launch("throws", throws, dim3(1), dim3(4), 0, out.ptr());
    CHECK(r.fault.kind == FaultKind::KernelException);
    CHECK(r.fault.detail == "boom");
    // The emulator is still usable after faults.
    auto in = iota_buffer("in", 32);
    DeviceBuffer<float> copy("copy", 32);
    CHECK(launch("copy_n", copy_n, dim3(1), dim3(32), 0, copy.ptr(), DevicePtr<const float>(in.ptr()), 32).ok());
    CHECK(copy.download()[31] == 31.0f);
}

TEST_CASE("trace: every access of the chosen block, with its warp request index") {
    auto in = iota_buffer("in", 64);
    DeviceBuffer<float> out("out", 64);
    LaunchOptions o;
    o.trace = true;
    o.trace_block = {1, 0, 0};
    ScopedLaunchOptions scoped(o);
    const LaunchReport r = launch("copy_n", copy_n, dim3(2), dim3(32), 0, out.ptr(), DevicePtr<const float>(in.ptr()), 64);
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
    DeviceBuffer<float> out("out", 8 * 32);
    for (unsigned threads : {1u, 3u}) {  // the calling thread alone, and pool threads too
        INFO("threads " << threads);
        LaunchOptions o;
        o.threads = threads;
        o.stack_bytes = size_t(1) << 62;  // no mmap can give that
        ScopedLaunchOptions scoped(o);
        const LaunchReport r = launch("touch", touch, dim3(8), dim3(32), 0, out.ptr());
        CHECK(r.fault.kind == FaultKind::KernelException);
        CHECK(r.fault.detail == "cannot allocate emulated thread stacks");
    }
    LaunchOptions o;
    o.threads = 3;
    ScopedLaunchOptions scoped(o);
    CHECK(launch("touch", touch, dim3(8), dim3(32), 0, out.ptr()).ok());  // the pool still works
}

TEST_CASE("scheduler: a launch under an address-space limit too small for its stacks reports a fault") {
    // In a child process, so the limit does not touch this one; the child
    // answers with its exit code (a crash or an escaping exception: a signal).
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        DeviceBuffer<float> out("out", 2 * 1024);
        LaunchOptions o;
        o.threads = 1;                // the pool's threads do not exist in a forked child
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
        const LaunchReport r = launch("touch", touch, dim3(2), dim3(1024), 0, out.ptr());
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
    DeviceBuffer<float> out("out", 32);
    const LaunchReport r = launch("read_then_syncwarp_then_write", read_then_syncwarp_then_write, dim3(1), dim3(32),
                                  0, out.ptr());
    REQUIRE(r.fault.kind == FaultKind::UninitializedRead);
    CHECK(r.fault.space == MemorySpace::Shared);
    CHECK(r.fault.index == 0);
    CHECK(r.fault.thread == Dim3{1, 0, 0});
    CHECK(r.fault.line == g_line);
}

TEST_CASE("shuffles: xor with a sub-warp width may read from an earlier group, not a later one") {
    DeviceBuffer<int> out("out", 32);
    REQUIRE(launch("xor_sub_warp", xor_sub_warp, dim3(1), dim3(32), 0, out.ptr()).ok());
    const std::vector<int> v = out.download();
    for (int lane = 0; lane < 32; ++lane) {
        INFO("lane " << lane);
        CHECK(v[lane] == (lane < 16 ? lane * 10 : (lane - 16) * 10));
    }
}

TEST_CASE("racecheck: a write races with the reads of every other warp, however many threads read") {
    DeviceBuffer<float> out("out", 64);
    for (int writer : {0, 40}) {  // warp 0 (its own reads ordered by __syncwarp) and warp 1
        INFO("writer " << writer);
        const LaunchReport r = launch("broadcast_then_write", broadcast_then_write, dim3(1), dim3(64), 0, out.ptr(),
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
    DeviceBuffer<float> out("out", 32);
    for (int first : {5, 19}) {
        INFO("first reader " << first);
        const LaunchReport r = launch("two_readers", two_readers_then_write, dim3(1), dim3(32), 0, out.ptr(), first,
                                      false);
        REQUIRE(r.fault.kind == FaultKind::SharedRace);
        CHECK(r.fault.thread == Dim3{20, 0, 0});
        CHECK(r.fault.other_thread == Dim3{unsigned(first), 0, 0});
        CHECK(launch("two_readers", two_readers_then_write, dim3(1), dim3(32), 0, out.ptr(), first, true).ok());
    }
}

TEST_CASE("synccheck: lane groups with disjoint masks shuffle independently; overlapping masks do not") {
    DeviceBuffer<int> out("out", 64);
    const LaunchReport r = launch("split_lane_groups", split_lane_groups, dim3(1), dim3(64), 0, out.ptr(), false);
    REQUIRE(r.ok());
    const std::vector<int> v = out.download();
    for (int t = 0; t < 64; ++t) CHECK(v[t] == ((t % 32) ^ 2));
    const LaunchReport bad = launch("split_lane_groups", split_lane_groups, dim3(1), dim3(32), 0, out.ptr(), true);
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
        DeviceBuffer<float> pad("pad", 64 * (trial + 1)), o("o", 4 * 128);
        CHECK(reinterpret_cast<uintptr_t>(in.ptr().storage()->data) % 4096 == 0);
        const LaunchReport r = launch("read_head_slice", read_head_slice, dim3(4), dim3(128), 0, o.ptr(),
                                      DevicePtr<const float>(in.ptr()), 16, 128, 2048, 128);
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
