#pragma once
// CUDA's cooperative groups on attnlab's emulator: the block, tiles of 1-32
// threads from tiled_partition<N>, their ranks, sync and warp collectives.
// A tile's operations are the warp's, restricted to the tile's lanes (its
// mask), so the emulator checks them as it checks __shfl_*_sync. Under nvcc
// the toolkit's <cooperative_groups.h> takes this one's place.
#include "attnlab/cuda_device.hpp"

namespace cooperative_groups {

class thread_block {
public:
    void sync() const { __syncthreads(); }
    unsigned long long thread_rank() const { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
    unsigned long long size() const { return 1ull * blockDim.x * blockDim.y * blockDim.z; }
    unsigned long long num_threads() const { return size(); }
    dim3 group_index() const { return blockIdx; }
    dim3 thread_index() const { return threadIdx; }
    dim3 group_dim() const { return blockDim; }
    dim3 dim_threads() const { return blockDim; }
};
inline thread_block this_thread_block() { return {}; }

// The scratch a GPU before sm_80 needs for tiles of more than 32 threads:
// `__shared__ cg::block_tile_memory<N> scratch; auto block = this_thread_block(scratch);`.
// The emulator's tiles have at most 32 threads and need none; it is still a
// __shared__ variable like any other (since sm_80 the toolkit's is empty too).
template <unsigned MaxBlockSize = 1024> struct block_tile_memory {};
template <unsigned MaxBlockSize> thread_block this_thread_block(block_tile_memory<MaxBlockSize>&) { return {}; }
inline void sync(const thread_block& g) { g.sync(); }

// N consecutive threads of the block (N a power of two, at most 32): lanes
// [k·N, k·N + N) of a warp form tile k.
template <unsigned N> class thread_block_tile {
    static_assert(N >= 1 && N <= 32 && (N & (N - 1)) == 0, "a tile has 1, 2, 4, 8, 16 or 32 threads");

public:
    static constexpr unsigned num_threads() { return N; }
    static constexpr unsigned size() { return N; }
    unsigned thread_rank() const { return linear() % N; }
    unsigned meta_group_rank() const { return linear() / N; }
    unsigned meta_group_size() const {
        const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
        return (threads + N - 1) / N;
    }
    unsigned mask() const {
        const unsigned lane = linear() % 32;
        return N == 32 ? 0xffffffffu : ((1u << N) - 1) << (lane / N * N);
    }
    void sync() const { __syncwarp(mask()); }
    template <class T> T shfl(T v, int src) const { return __shfl_sync(mask(), v, src, N); }
    template <class T> T shfl_down(T v, unsigned d) const { return __shfl_down_sync(mask(), v, d, N); }
    template <class T> T shfl_up(T v, unsigned d) const { return __shfl_up_sync(mask(), v, d, N); }
    template <class T> T shfl_xor(T v, int m) const { return __shfl_xor_sync(mask(), v, m, N); }
    int any(int p) const { return __any_sync(mask(), p); }
    int all(int p) const { return __all_sync(mask(), p); }
    unsigned ballot(int p) const { return __ballot_sync(mask(), p) >> (linear() % 32 / N * N); }

private:
    static unsigned linear() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
};

template <unsigned N, class Parent> thread_block_tile<N> tiled_partition(const Parent&) { return {}; }
template <unsigned N> void sync(const thread_block_tile<N>& g) { g.sync(); }

// The operators cg::reduce takes.
template <class T> struct plus { T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { T operator()(T a, T b) const { return a ^ b; } };

}  // namespace cooperative_groups
