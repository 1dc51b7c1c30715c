// The emulator's test kernels (see emu_test_kernels.hpp): plain CUDA, built
// for the emulator as a learner's .cu is. Tests compare fault lines with
// g_line, or with a line a fixed distance from it: keep each kernel's lines
// together when editing.
#include <stdexcept>

#include "attnlab/cuda_device.hpp"
#include "cooperative_groups/memcpy_async.h"
#include "cuda_pipeline.h"
#include "emu_test_kernels.hpp"

namespace emu_test {

int g_line = 0;

// out[i] = the value thread i+1 (wrapping) wrote into shared memory.
__global__ void rotate_through_shared(float* out, const float* in) {
    __shared__ float buf[64];
    const int t = threadIdx.x, n = blockDim.x;
    buf[t] = in[blockIdx.x * n + t];
    __syncthreads();
    out[blockIdx.x * n + t] = buf[(t + 1) % n];
}

__global__ void barrier_in_branch(float* out) {
    g_line = __LINE__; if (threadIdx.x < 16) __syncthreads();
    out[threadIdx.x] = 1.0f;
}

__global__ void early_return_then_barrier(float* out, int n) {
    if (int(threadIdx.x) >= n) return;
    g_line = __LINE__; __syncthreads();
    out[threadIdx.x] = 1.0f;
}

__global__ void two_different_barriers(float* out) {
    if (threadIdx.x % 2 == 0) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = 1.0f;
}

// Three votes in a row per thread, so a count must not leak into the next barrier's.
__global__ void barrier_votes(int* out) {
    const int t = threadIdx.x;
    const int multiples_of_3 = __syncthreads_count(t % 3 == 0);
    const int all_small = __syncthreads_and(t < 1000);
    const int any_last = __syncthreads_or(t == int(blockDim.x) - 1);
    const int none = __syncthreads_or(0);
    out[blockIdx.x * blockDim.x + t] = multiples_of_3 + 1000 * all_small + 10000 * any_last + 100000 * none;
}

__global__ void shuffles(int* out) {
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

__global__ void shuffle_after_exit(float* out) {
    if (threadIdx.x >= 8) return;
    float v = 1.0f;
    g_line = __LINE__; v += __shfl_down_sync(0xffffffffu, v, 1);
    out[threadIdx.x] = v;
}

__global__ void atomics(int* counter, int* max_int, float* max_float, float* sum, int* cas_winner) {
    const int id = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&counter[0], 1);
    atomicMax(&max_int[0], id);
    atomicMax(&max_float[0], 0.5f * id);
    atomicAdd(&sum[0], 1.0f);
    atomicCAS(&cas_winner[0], -1, id);  // exactly one thread wins
}

__global__ void shared_atomics(int* out) {
    __shared__ int count[1];
    if (threadIdx.x == 0) count[0] = 0;
    __syncthreads();
    atomicAdd(&count[0], 2);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = count[0];
}

__global__ void copy_n(float* out, const float* in, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    g_line = __LINE__; if (i < n) out[i] = in[i];
}

// out[i] = i, except that block `bad_block` writes one element before `out`
// (a fault in that block alone: a sampled launch may leave it unchecked).
__global__ void out_of_bounds_in_block(float* out, int bad_block) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    g_line = __LINE__; out[(int)blockIdx.x == bad_block ? -1 : i] = float(i);
}

// A block of 64 copies 64 floats of `in` into shared memory with cp.async
// and writes them reversed. Mode 0 waits, then __syncthreads; mode 1 forgets
// the wait; mode 2 reads its own element before waiting; mode 3 starts the
// next copy into the tile while other threads still read it (the missing
// __syncthreads of double buffering); mode 4 is cooperative groups' form;
// mode 5 waits but forgets the __syncthreads after the wait, and each thread
// reads the element its neighbour below copied.
__global__ void async_reverse(float* out, const float* in, int mode) {
    __shared__ float tile[64];
    const int t = threadIdx.x, base = blockIdx.x * 64;
    if (mode == 4) {
        namespace cg = cooperative_groups;
        cg::thread_block block = cg::this_thread_block();
        cg::memcpy_async(block, tile, in + base, 64 * sizeof(float));
        cg::wait(block);
    } else {
        __pipeline_memcpy_async(&tile[t], &in[base + t], sizeof(float));
        __pipeline_commit();
        if (mode == 2) { g_line = __LINE__; out[base + t] = tile[t]; }
        if (mode != 1) __pipeline_wait_prior(0);
        if (mode == 5) { g_line = __LINE__; out[base + t] = tile[t > 0 ? t - 1 : 0]; return; }
        __syncthreads();
    }
    g_line = __LINE__; out[base + t] = tile[63 - t];
    if (mode == 3) {
        __pipeline_memcpy_async(&tile[t], &in[base + t], sizeof(float));
        __pipeline_commit();
        __pipeline_wait_prior(0);
    }
}

// Indexed as an array: the compiler's bounds check (-fsanitize=bounds) of an
// array of known size stops it before the access.
__global__ void shared_out_of_bounds(float* out) {
    __shared__ float buf[64];
    buf[threadIdx.x] = 1.0f;
    __syncthreads();
    g_line = __LINE__; out[threadIdx.x] = buf[threadIdx.x + 1];
}

// Through a pointer the compiler knows no bound: the emulator's check of the
// whole shared variable finds the access past its end.
__global__ void shared_out_of_bounds_through_pointer(float* out) {
    __shared__ float past_end[64];
    float* p = past_end;
    p[threadIdx.x] = 1.0f;
    __syncthreads();
    g_line = __LINE__; out[threadIdx.x] = p[threadIdx.x + 1];
}

__global__ void dynamic_shared_out_of_bounds(float* out) {
    extern __shared__ float smem[];
    g_line = __LINE__; smem[threadIdx.x * 2] = 1.0f;
    out[threadIdx.x] = 0.0f;
}

// Missing __syncthreads between the write and the neighbour's read.
__global__ void racy_neighbour_read(float* out, bool with_barrier) {
    __shared__ float buf[64];
    buf[threadIdx.x] = float(threadIdx.x);
    if (with_barrier) __syncthreads();
    g_line = __LINE__; out[threadIdx.x] = buf[(threadIdx.x + 1) % 64];
}

// Lanes of one warp exchange through shared memory, ordered by __syncwarp.
__global__ void warp_exchange(float* out, bool with_syncwarp) {
    __shared__ float buf[32];
    buf[threadIdx.x] = float(threadIdx.x);
    if (with_syncwarp) __syncwarp();
    out[threadIdx.x] = buf[31 - threadIdx.x];
}

__global__ void read_unwritten_global(float* out, const float* in) {
    g_line = __LINE__; out[threadIdx.x] = in[threadIdx.x];
}

__global__ void read_unwritten_shared(float* out) {
    __shared__ float buf[32];
    if (threadIdx.x != 5) buf[threadIdx.x] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = buf[threadIdx.x];
}

__global__ void strided_load(float* out, const float* in, int stride) {
    out[threadIdx.x] = in[threadIdx.x * stride];
}

__global__ void shared_pattern(float* out, int stride) {
    __shared__ float buf[2048];
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) buf[i] = 1.0f;
    __syncthreads();
    out[threadIdx.x] = buf[threadIdx.x * stride];  // stride 0: broadcast
}

// The cuda-attention solution's pattern in one warp: rows i = lane and
// lane + 32 (T = 40); pass 1 reads K row j for j <= i, pass 2 K and V rows.
// In every round each active lane reads the same word: a GPU counts no
// conflict, although lanes run their loops a different number of times.
__global__ void causal_rows(float* out, int T, int hd) {
    __shared__ float kv[2 * 40 * 8];
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
__global__ void diverged_two_way(float* out) {
    __shared__ float buf[2048];
    for (int i = threadIdx.x; i < 2048; i += blockDim.x) buf[i] = 1.0f;
    __syncthreads();
    float x = 0.0f;
    for (int j = 0; j <= int(threadIdx.x); ++j) x += buf[threadIdx.x * 2 + j * 64];
    out[threadIdx.x] = x;
}

// One block per head reads that head's (T, hd) slice, rows `row_stride` apart:
// hd for the (B, H, T, hd) layout, D = H·hd for (B, T, H, hd).
__global__ void read_head_slice(float* out, const float* in, int T, int hd, int head_offset, int row_stride) {
    float sum = 0.0f;
    for (int e = threadIdx.x; e < T * hd; e += blockDim.x)
        sum += in[blockIdx.x * head_offset + (e / hd) * row_stride + e % hd];
    out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Each thread stores to its own n elements (another thread's would be a
// race), at addresses the compiler cannot tell apart (i % n): it may neither
// keep the value in a register nor drop the loop's only work.
__global__ void endless(float* out, int n) {
    float* mine = out + (blockIdx.x * blockDim.x + threadIdx.x) * n;
    for (int i = 0;; ++i) mine[i % n] = 1.0f;
}

__global__ void throws(float*) { throw std::runtime_error("boom"); }

__global__ void write_block_and_thread(int* out) {
    const int i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y + threadIdx.y * blockDim.x + threadIdx.x;
    out[i] = int(blockIdx.x + 10 * blockIdx.y + 100 * threadIdx.x + 1000 * threadIdx.y);
}

__global__ void touch(float* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f; }

// No memory at all, so its blocks may run on several OS threads at once (the
// checks of memory keep their state per process: a launch that reaches
// memory runs its blocks on one OS thread).
__global__ void barrier_only() { __syncthreads(); }

// Lane 1 reads s[0] before anyone wrote it; after a __syncwarp lane 0 writes
// it: lane 1 still read garbage.
__global__ void read_then_syncwarp_then_write(float* out) {
    __shared__ float s[32];
    float x = 0.0f;
    if (threadIdx.x == 1) { g_line = __LINE__; x = s[0]; }
    __syncwarp();
    if (threadIdx.x == 0) s[0] = 5.0f;
    __syncthreads();
    out[threadIdx.x] = x;
}

// Width 16: lane 16 ^ 16 = lane 0 lies in an earlier group (allowed), lane
// 0 ^ 16 = 16 in a later one (own value).
__global__ void xor_sub_warp(int* out) {
    const int lane = threadIdx.x % 32;
    out[threadIdx.x] = __shfl_xor_sync(0xffffffffu, lane * 10, 16, 16);
}

// Every thread of two warps reads s[0]; warp 0 alone __syncwarps; thread
// `writer` then writes s[0]: warp 1's reads race with it whoever writes.
__global__ void broadcast_then_write(float* out, int writer) {
    __shared__ float s[1];
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
__global__ void two_readers_then_write(float* out, int first, bool with_syncwarp) {
    __shared__ float s[1];
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
__global__ void split_lane_groups(int* out, bool overlap) {
    const int lane = threadIdx.x % 32;
    int v = lane;
    if (lane % 2 == 0) v = __shfl_xor_sync(0x55555555u, v, 2);
    else v = __shfl_xor_sync(overlap ? 0xffffffffu : 0xaaaaaaaau, v, 2);
    out[threadIdx.x] = v;
}

}  // namespace emu_test
