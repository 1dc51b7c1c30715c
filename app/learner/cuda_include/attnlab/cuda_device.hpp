#pragma once
// CUDA's device-side C++ as attnlab's CPU emulator gives it to a learner's
// plain .cu file: qualifiers, vector types, CUDA's min/max overloads, the
// load/store hints, atomics, __activemask, __trap. Memory is reached through
// ordinary pointers; attnlab sees every access through the compiler's
// instrumentation (see attnlab/emu/raw_memory.hpp), so nothing here wraps a
// pointer. Under nvcc the toolkit's own headers take this one's place.
// C++17's <cmath> declares the special mathematical functions
// (std::riemann_zeta, std::cyl_bessel_j...) as inline functions whose
// templates GCC instantiates at the end of every translation unit, used or
// not: 0.04 s of each learner compile, more than half of an empty file's.
// CUDA's device code has none of them; they are left out, before the
// first <cmath> of the file (libstdc++ decides it in this macro).
#if __has_include(<bits/c++config.h>)
#include <bits/c++config.h>
#undef _GLIBCXX_USE_STD_SPEC_FUNCS
#endif
// The standard headers a learner's .cu gets without an include, the same as
// with nvcc (app/learner/include), before __noinline__ is defined below.
#include "attnlab/cuda_std.hpp"

#include "attnlab/emu/raw_memory.hpp"
#include "attnlab/emu_device.hpp"  // dim3, threadIdx..., __syncthreads, shuffles, votes, __expf...

// ------------------------------------------------------ the built-in indices
// A learner's code reads threadIdx, blockIdx, blockDim and gridDim through a
// call into attnlab (sanitizer_hooks.cpp), not a load: each instrumented load
// would call a hook that finds the address is no device memory, and in a
// simple kernel most loads are these. A thread's values are fixed for its
// whole run of the kernel, so `const` lets the compiler read them once.
namespace attnlab::emu::raw {
__attribute__((const)) dim3 thread_index();
__attribute__((const)) dim3 block_index();
__attribute__((const)) dim3 block_dimensions();
__attribute__((const)) dim3 grid_dimensions();
}  // namespace attnlab::emu::raw
#define threadIdx (::attnlab::emu::raw::thread_index())
#define blockIdx (::attnlab::emu::raw::block_index())
#define blockDim (::attnlab::emu::raw::block_dimensions())
#define gridDim (::attnlab::emu::raw::grid_dimensions())

// ------------------------------------------------------------- qualifiers
// A `__shared__` declaration is rewritten by attnlab before compiling (into
// a checked variable of the block's shared memory); one it cannot read stays
// a plain static, shared by every thread, unchecked.
#define __shared__ static
#define __constant__
#define __managed__
#define __grid_constant__
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
#undef __noinline__
#define __noinline__ __attribute__((noinline))
#define ATTNLAB_INLINE __attribute__((always_inline)) inline

typedef unsigned int uint;
typedef unsigned short ushort;

// ----------------------------------------------------------- vector types
// Same sizes and alignments as CUDA's (a float4 is 16 bytes, 16-aligned), so
// reinterpret_cast<float4*> reads 16 bytes at once, and a misaligned one is
// caught as a GPU would fault on it.
#define ATTNLAB_VEC2(T, NAME, A) struct __attribute__((aligned(A))) NAME { T x, y; };
#define ATTNLAB_VEC3(T, NAME) struct NAME { T x, y, z; };
#define ATTNLAB_VEC4(T, NAME, A) struct __attribute__((aligned(A))) NAME { T x, y, z, w; };
ATTNLAB_VEC2(float, float2, 8) ATTNLAB_VEC3(float, float3) ATTNLAB_VEC4(float, float4, 16)
ATTNLAB_VEC2(int, int2, 8) ATTNLAB_VEC3(int, int3) ATTNLAB_VEC4(int, int4, 16)
ATTNLAB_VEC2(unsigned, uint2, 8) ATTNLAB_VEC4(unsigned, uint4, 16)
ATTNLAB_VEC2(double, double2, 16) ATTNLAB_VEC2(short, short2, 4) ATTNLAB_VEC2(unsigned short, ushort2, 4)
ATTNLAB_VEC4(char, char4, 4) ATTNLAB_VEC4(unsigned char, uchar4, 4) ATTNLAB_VEC2(long long, longlong2, 16)
#undef ATTNLAB_VEC2
#undef ATTNLAB_VEC3
#undef ATTNLAB_VEC4
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float3 make_float3(float x, float y, float z) { return {x, y, z}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int3 make_int3(int x, int y, int z) { return {x, y, z}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
inline double2 make_double2(double x, double y) { return {x, y}; }

// ------------------------------------------------------------ min and max
// CUDA's overloads, mixed integer types included (min(int, unsigned) is
// unsigned, as C++'s conversions make it): non-templates, so a learner's
// `using namespace std;` still calls these for min(a, b).
#define ATTNLAB_MINMAX(A, B, R)                                                   \
    inline R min(A a, B b) { return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(a) : static_cast<R>(b); } \
    inline R max(A a, B b) { return static_cast<R>(a) < static_cast<R>(b) ? static_cast<R>(b) : static_cast<R>(a); }
ATTNLAB_MINMAX(int, int, int)
ATTNLAB_MINMAX(unsigned, unsigned, unsigned)
ATTNLAB_MINMAX(int, unsigned, unsigned)
ATTNLAB_MINMAX(unsigned, int, unsigned)
ATTNLAB_MINMAX(long, long, long)
ATTNLAB_MINMAX(unsigned long, unsigned long, unsigned long)
ATTNLAB_MINMAX(long long, long long, long long)
ATTNLAB_MINMAX(unsigned long long, unsigned long long, unsigned long long)
ATTNLAB_MINMAX(long long, unsigned long long, unsigned long long)
ATTNLAB_MINMAX(unsigned long long, long long, unsigned long long)
ATTNLAB_MINMAX(int, long long, long long)
ATTNLAB_MINMAX(long long, int, long long)
ATTNLAB_MINMAX(float, float, float)
ATTNLAB_MINMAX(double, double, double)
ATTNLAB_MINMAX(float, double, double)
ATTNLAB_MINMAX(double, float, double)
ATTNLAB_MINMAX(float, int, float)
ATTNLAB_MINMAX(int, float, float)
#undef ATTNLAB_MINMAX

// ------------------------------------------------- load and store hints
// Cache hints on a GPU (read-only path, streaming, L2 only); plain loads and
// stores here, checked like any other.
template <class T> ATTNLAB_INLINE T __ldg(const T* p) { return *p; }
template <class T> ATTNLAB_INLINE T __ldcg(const T* p) { return *p; }
template <class T> ATTNLAB_INLINE T __ldca(const T* p) { return *p; }
template <class T> ATTNLAB_INLINE T __ldcs(const T* p) { return *p; }
template <class T> ATTNLAB_INLINE T __ldlu(const T* p) { return *p; }
template <class T> ATTNLAB_INLINE T __ldcv(const T* p) { return *p; }
template <class T> ATTNLAB_INLINE void __stcg(T* p, T v) { *p = v; }
template <class T> ATTNLAB_INLINE void __stcs(T* p, T v) { *p = v; }
template <class T> ATTNLAB_INLINE void __stwb(T* p, T v) { *p = v; }
template <class T> ATTNLAB_INLINE void __stwt(T* p, T v) { *p = v; }

// ---------------------------------------------------------------- atomics
// Real atomics, each counted once, never a race. (Inlined, so the emulator
// names the learner's line.)
// The call site's line travels as a defaulted argument (the debug information
// the emulator reads has no inline frames).
#define ATTNLAB_ATOMIC(NAME, OP, T, IMPL)                                                                        \
    ATTNLAB_INLINE T NAME(T* p, T v, int line_ = __builtin_LINE()) {                                             \
        return attnlab::emu::raw::IMPL(p, attnlab::emu::raw::AtomicOp::OP, v, 0, line_);                         \
    }                                                                                                            \
    ATTNLAB_INLINE T NAME##_block(T* p, T v, int line_ = __builtin_LINE()) { return NAME(p, v, line_); }         \
    ATTNLAB_INLINE T NAME##_system(T* p, T v, int line_ = __builtin_LINE()) { return NAME(p, v, line_); }
#define ATTNLAB_ATOMIC_F(NAME, OP, T, IMPL)                                                                      \
    ATTNLAB_INLINE T NAME(T* p, T v, int line_ = __builtin_LINE()) {                                             \
        return attnlab::emu::raw::IMPL(p, attnlab::emu::raw::AtomicOp::OP, v, line_);                           \
    }                                                                                                            \
    ATTNLAB_INLINE T NAME##_block(T* p, T v, int line_ = __builtin_LINE()) { return NAME(p, v, line_); }         \
    ATTNLAB_INLINE T NAME##_system(T* p, T v, int line_ = __builtin_LINE()) { return NAME(p, v, line_); }
#define ATTNLAB_ATOMIC_INTS(NAME, OP)                                   \
    ATTNLAB_ATOMIC(NAME, OP, int, atomic_i32)                            \
    ATTNLAB_ATOMIC(NAME, OP, unsigned, atomic_u32)                       \
    ATTNLAB_ATOMIC(NAME, OP, unsigned long long, atomic_u64)
ATTNLAB_ATOMIC_INTS(atomicAdd, Add)
ATTNLAB_ATOMIC_INTS(atomicExch, Exch)
ATTNLAB_ATOMIC_INTS(atomicMin, Min)
ATTNLAB_ATOMIC_INTS(atomicMax, Max)
ATTNLAB_ATOMIC_INTS(atomicAnd, And)
ATTNLAB_ATOMIC_INTS(atomicOr, Or)
ATTNLAB_ATOMIC_INTS(atomicXor, Xor)
ATTNLAB_ATOMIC(atomicSub, Sub, int, atomic_i32)
ATTNLAB_ATOMIC(atomicSub, Sub, unsigned, atomic_u32)
ATTNLAB_ATOMIC(atomicInc, Inc, unsigned, atomic_u32)
ATTNLAB_ATOMIC(atomicDec, Dec, unsigned, atomic_u32)
ATTNLAB_ATOMIC_F(atomicAdd, Add, float, atomic_f32)
ATTNLAB_ATOMIC_F(atomicAdd, Add, double, atomic_f64)
ATTNLAB_ATOMIC_F(atomicExch, Exch, float, atomic_f32)
ATTNLAB_ATOMIC_F(atomicMin, Min, float, atomic_f32)
ATTNLAB_ATOMIC_F(atomicMax, Max, float, atomic_f32)
#undef ATTNLAB_ATOMIC_INTS
#undef ATTNLAB_ATOMIC_F
#undef ATTNLAB_ATOMIC
ATTNLAB_INLINE int atomicCAS(int* p, int compare, int v, int line_ = __builtin_LINE()) {
    return attnlab::emu::raw::atomic_i32(p, attnlab::emu::raw::AtomicOp::Cas, v, compare, line_);
}
ATTNLAB_INLINE unsigned atomicCAS(unsigned* p, unsigned compare, unsigned v, int line_ = __builtin_LINE()) {
    return attnlab::emu::raw::atomic_u32(p, attnlab::emu::raw::AtomicOp::Cas, v, compare, line_);
}
ATTNLAB_INLINE unsigned long long atomicCAS(unsigned long long* p, unsigned long long compare, unsigned long long v, int line_ = __builtin_LINE()) {
    return attnlab::emu::raw::atomic_u64(p, attnlab::emu::raw::AtomicOp::Cas, v, compare, line_);
}

// ------------------------------------------------------------ warp extras
// The lanes of this warp still running (none has left the kernel).
inline unsigned __activemask() { return attnlab::emu::detail::active_lanes(); }
inline unsigned __lanemask_lt() { return (1u << (threadIdx.x & 31)) - 1; }
inline void __nanosleep(unsigned) {}
inline unsigned __brev(unsigned x) {
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline float __powf(float a, float b) { return std::pow(a, b); }
inline float __sinf(float x) { return std::sin(x); }
inline float __cosf(float x) { return std::cos(x); }
inline float __tanhf(float x) { return std::tanh(x); }
inline float exp10f(float x) { return std::pow(10.0f, x); }
inline float __exp10f(float x) { return std::pow(10.0f, x); }
inline float __log2f(float x) { return std::log2(x); }
inline float __fsqrt_rn(float x) { return std::sqrt(x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __frsqrt_rn(float x) { return 1.0f / std::sqrt(x); }
inline int __mul24(int a, int b) { return a * b; }
inline unsigned __umul24(unsigned a, unsigned b) { return a * b; }
inline float __uint2float_rn(unsigned i) { return static_cast<float>(i); }
inline unsigned __float2uint_rn(float x) { return static_cast<unsigned>(std::nearbyint(x)); }
inline float __ll2float_rn(long long i) { return static_cast<float>(i); }
inline int __float2int_rd(float x) { return static_cast<int>(std::floor(x)); }
inline int __float2int_ru(float x) { return static_cast<int>(std::ceil(x)); }

// __trap(): the kernel stops, as an assert would.
[[noreturn]] inline void __trap() { attnlab::emu::raw::device_assert_failed("__trap()", 0); }
inline long long clock64() { return 0; }  // no cycle counter on the emulator: time a kernel on a GPU
