#pragma once
// CUDA's half precision on attnlab's emulator: __half is GCC's _Float16 (IEEE
// binary16, 2 bytes, rounded to nearest like a GPU's), so arithmetic, loads
// of 2 bytes and conversions behave as CUDA's do. Under nvcc the toolkit's
// <cuda_fp16.h> takes this one's place.
#include "attnlab/cuda_device.hpp"

typedef _Float16 __half;
typedef _Float16 half;
struct __attribute__((aligned(4))) __half2 {
    __half x, y;
};
typedef __half2 half2;

#define ATTNLAB_H ATTNLAB_INLINE
ATTNLAB_H __half __float2half(float f) { return static_cast<__half>(f); }
ATTNLAB_H __half __float2half_rn(float f) { return static_cast<__half>(f); }
ATTNLAB_H float __half2float(__half h) { return static_cast<float>(h); }
ATTNLAB_H __half __int2half_rn(int i) { return static_cast<__half>(i); }
ATTNLAB_H int __half2int_rn(__half h) { return static_cast<int>(std::nearbyint(static_cast<float>(h))); }
ATTNLAB_H int __half2int_rz(__half h) { return static_cast<int>(static_cast<float>(h)); }
ATTNLAB_H __half __ushort_as_half(unsigned short u) { __half h; std::memcpy(&h, &u, 2); return h; }
ATTNLAB_H unsigned short __half_as_ushort(__half h) { unsigned short u; std::memcpy(&u, &h, 2); return u; }
ATTNLAB_H __half __hadd(__half a, __half b) { return a + b; }
ATTNLAB_H __half __hsub(__half a, __half b) { return a - b; }
ATTNLAB_H __half __hmul(__half a, __half b) { return a * b; }
ATTNLAB_H __half __hdiv(__half a, __half b) { return a / b; }
ATTNLAB_H __half __hneg(__half a) { return -a; }
ATTNLAB_H __half __habs(__half a) { return a < __half(0) ? -a : a; }
// One rounding, as the GPU's fused multiply-add does.
ATTNLAB_H __half __hfma(__half a, __half b, __half c) { return static_cast<__half>(std::fma(float(a), float(b), float(c))); }
ATTNLAB_H __half __hmax(__half a, __half b) { return a < b ? b : a; }
ATTNLAB_H __half __hmin(__half a, __half b) { return b < a ? b : a; }
ATTNLAB_H bool __heq(__half a, __half b) { return a == b; }
ATTNLAB_H bool __hne(__half a, __half b) { return a != b; }
ATTNLAB_H bool __hlt(__half a, __half b) { return a < b; }
ATTNLAB_H bool __hle(__half a, __half b) { return a <= b; }
ATTNLAB_H bool __hgt(__half a, __half b) { return a > b; }
ATTNLAB_H bool __hge(__half a, __half b) { return a >= b; }
ATTNLAB_H bool __hisnan(__half a) { return a != a; }
ATTNLAB_H __half hexp(__half a) { return static_cast<__half>(std::exp(float(a))); }
ATTNLAB_H __half hsqrt(__half a) { return static_cast<__half>(std::sqrt(float(a))); }
ATTNLAB_H __half hrsqrt(__half a) { return static_cast<__half>(1.0f / std::sqrt(float(a))); }
ATTNLAB_H __half hlog(__half a) { return static_cast<__half>(std::log(float(a))); }
ATTNLAB_H __half2 __halves2half2(__half a, __half b) { return {a, b}; }
ATTNLAB_H __half2 __half2half2(__half a) { return {a, a}; }
ATTNLAB_H __half2 __float2half2_rn(float f) { return {__half(f), __half(f)}; }
ATTNLAB_H __half2 __floats2half2_rn(float a, float b) { return {__half(a), __half(b)}; }
ATTNLAB_H float2 __half22float2(__half2 h) { return {float(h.x), float(h.y)}; }
ATTNLAB_H __half2 __float22half2_rn(float2 f) { return {__half(f.x), __half(f.y)}; }
ATTNLAB_H __half __low2half(__half2 h) { return h.x; }
ATTNLAB_H __half __high2half(__half2 h) { return h.y; }
ATTNLAB_H float __low2float(__half2 h) { return float(h.x); }
ATTNLAB_H float __high2float(__half2 h) { return float(h.y); }
ATTNLAB_H __half2 __hadd2(__half2 a, __half2 b) { return {a.x + b.x, a.y + b.y}; }
ATTNLAB_H __half2 __hsub2(__half2 a, __half2 b) { return {a.x - b.x, a.y - b.y}; }
ATTNLAB_H __half2 __hmul2(__half2 a, __half2 b) { return {a.x * b.x, a.y * b.y}; }
ATTNLAB_H __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return {__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)}; }
ATTNLAB_H __half2 __hmax2(__half2 a, __half2 b) { return {__hmax(a.x, b.x), __hmax(a.y, b.y)}; }
ATTNLAB_H __half2 __hmin2(__half2 a, __half2 b) { return {__hmin(a.x, b.x), __hmin(a.y, b.y)}; }
inline __half2 operator+(__half2 a, __half2 b) { return __hadd2(a, b); }
inline __half2 operator-(__half2 a, __half2 b) { return __hsub2(a, b); }
inline __half2 operator*(__half2 a, __half2 b) { return __hmul2(a, b); }
#undef ATTNLAB_H
