#pragma once
// The CUDA execution model's device surface on attnlab's CPU emulator, under
// the device header of plain CUDA (app/learner/cuda_include/attnlab/
// cuda_device.hpp), which learners' kernels and attnlab's own (kernels/) both
// compile against: qualifiers, dim3 and the built-in index variables,
// barriers, warp operations and the math intrinsics. Memory is reached through
// plain pointers (attnlab/emu/raw_memory.hpp); `__shared__` is the source
// rewrite's (cuda_source.cpp), so this header leaves it undefined.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "attnlab/common/dim3.hpp"

// ----------------------------------------------------------- CUDA qualifiers
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)


// CUDA's dim3 and the built-in index variables. They are per OS thread and
// the scheduler rewrites threadIdx before resuming each fiber, so every
// emulated thread sees its own values.
struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
    constexpr dim3(const attnlab::emu::Dim3& d) : x(d.x), y(d.y), z(d.z) {}
    constexpr operator attnlab::emu::Dim3() const { return {x, y, z}; }
};
using uint3 = dim3;
inline thread_local dim3 threadIdx{0, 0, 0};
inline thread_local dim3 blockIdx{0, 0, 0};
inline thread_local dim3 blockDim{1, 1, 1};
inline thread_local dim3 gridDim{1, 1, 1};
constexpr int warpSize = 32;

namespace attnlab::emu::detail {
// Block-level and warp-level synchronisation (scheduler.cpp).
void block_barrier(int line);
int block_barrier_vote(int predicate, int line);  // __syncthreads_count: how many threads voted non-zero
enum class WarpOp : uint8_t { Shfl, ShflUp, ShflDown, ShflXor, Sync, Ballot, All, Any };
uint64_t warp_op(WarpOp op, unsigned mask, uint64_t value, int arg, int width, int line);
unsigned active_lanes();  // lanes of the running thread's warp that have not exited
}  // namespace attnlab::emu::detail

// ------------------------------------------------- CUDA device functions

inline void __syncthreads(int line = __builtin_LINE()) { attnlab::emu::detail::block_barrier(line); }
// A barrier that also counts the threads whose predicate is non-zero.
inline int __syncthreads_count(int predicate, int line = __builtin_LINE()) {
    return attnlab::emu::detail::block_barrier_vote(predicate, line);
}
inline int __syncthreads_and(int predicate, int line = __builtin_LINE()) {
    return attnlab::emu::detail::block_barrier_vote(predicate, line) == int(blockDim.x * blockDim.y * blockDim.z);
}
inline int __syncthreads_or(int predicate, int line = __builtin_LINE()) {
    return attnlab::emu::detail::block_barrier_vote(predicate, line) != 0;
}
inline void __syncwarp(unsigned mask = 0xffffffffu, int line = __builtin_LINE()) {
    attnlab::emu::detail::warp_op(attnlab::emu::detail::WarpOp::Sync, mask, 0, 0, 32, line);
}

namespace attnlab::emu::detail {
template <class T> uint64_t to_bits(T v) {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable_v<T>, "shuffles move up to 8 bytes");
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}
template <class T> T from_bits(uint64_t b) {
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}
template <class T> T shuffle(WarpOp op, unsigned mask, T var, int arg, int width, int line) {
    return from_bits<T>(warp_op(op, mask, to_bits(var), arg, width, line));
}
}  // namespace attnlab::emu::detail

template <class T>
T __shfl_sync(unsigned mask, T var, int src_lane, int width = warpSize, int line = __builtin_LINE()) {
    return attnlab::emu::detail::shuffle(attnlab::emu::detail::WarpOp::Shfl, mask, var, src_lane, width, line);
}
template <class T>
T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize, int line = __builtin_LINE()) {
    return attnlab::emu::detail::shuffle(attnlab::emu::detail::WarpOp::ShflUp, mask, var, int(delta), width, line);
}
template <class T>
T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize, int line = __builtin_LINE()) {
    return attnlab::emu::detail::shuffle(attnlab::emu::detail::WarpOp::ShflDown, mask, var, int(delta), width, line);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T var, int lane_mask, int width = warpSize, int line = __builtin_LINE()) {
    return attnlab::emu::detail::shuffle(attnlab::emu::detail::WarpOp::ShflXor, mask, var, lane_mask, width, line);
}
inline unsigned __ballot_sync(unsigned mask, int pred, int line = __builtin_LINE()) {
    return unsigned(attnlab::emu::detail::warp_op(attnlab::emu::detail::WarpOp::Ballot, mask, pred != 0, 0, 32, line));
}
inline int __all_sync(unsigned mask, int pred, int line = __builtin_LINE()) {
    return int(attnlab::emu::detail::warp_op(attnlab::emu::detail::WarpOp::All, mask, pred != 0, 0, 32, line));
}
inline int __any_sync(unsigned mask, int pred, int line = __builtin_LINE()) {
    return int(attnlab::emu::detail::warp_op(attnlab::emu::detail::WarpOp::Any, mask, pred != 0, 0, 32, line));
}

// ---------------------------------------------------------- math intrinsics
// ::expf, ::fmaxf, ::sqrtf... come from <cmath>; these are CUDA's extras.
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __saturatef(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
inline unsigned __float_as_uint(float f) { unsigned i; std::memcpy(&i, &f, 4); return i; }
inline float __uint_as_float(unsigned i) { float f; std::memcpy(&f, &i, 4); return f; }
inline float __fmaf_rn(float a, float b, float c) { return std::fma(a, b, c); }
inline int __float2int_rn(float x) { return static_cast<int>(std::nearbyint(x)); }
inline int __float2int_rz(float x) { return static_cast<int>(x); }
inline float __int2float_rn(int i) { return static_cast<float>(i); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
// Global memory is coherent on the emulator; the fence orders host threads (blocks).
// (The compiler's builtin, not <atomic>: learner files compile this header on every check.)
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
