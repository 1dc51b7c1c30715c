#pragma once
// CUDA's bfloat16 on attnlab's emulator: the top 16 bits of a float (8-bit
// exponent, 7-bit mantissa), rounded to nearest even when made from a float,
// computed in float. Under nvcc the toolkit's <cuda_bf16.h> takes its place.
#include "attnlab/bfloat16_bits.hpp"
#include "attnlab/cuda_device.hpp"

struct __nv_bfloat16 {
    unsigned short bits;
    __nv_bfloat16() = default;
    __nv_bfloat16(float f) : bits(attnlab::bf16::from_float(f)) {}
    __nv_bfloat16(double d) : __nv_bfloat16(static_cast<float>(d)) {}
    __nv_bfloat16(int i) : __nv_bfloat16(static_cast<float>(i)) {}
    operator float() const { return attnlab::bf16::to_float(bits); }
};
typedef __nv_bfloat16 nv_bfloat16;
struct __attribute__((aligned(4))) __nv_bfloat162 {
    __nv_bfloat16 x, y;
};
typedef __nv_bfloat162 nv_bfloat162;

inline __nv_bfloat16 operator+(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) + float(b); }
inline __nv_bfloat16 operator-(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) - float(b); }
inline __nv_bfloat16 operator*(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) * float(b); }
inline __nv_bfloat16 operator/(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) / float(b); }
inline __nv_bfloat16 operator-(__nv_bfloat16 a) { return -float(a); }
inline __nv_bfloat16& operator+=(__nv_bfloat16& a, __nv_bfloat16 b) { return a = a + b; }
inline __nv_bfloat16& operator*=(__nv_bfloat16& a, __nv_bfloat16 b) { return a = a * b; }
inline bool operator<(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) < float(b); }
inline bool operator>(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) > float(b); }
inline bool operator==(__nv_bfloat16 a, __nv_bfloat16 b) { return float(a) == float(b); }

#define ATTNLAB_B ATTNLAB_INLINE
ATTNLAB_B __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
ATTNLAB_B __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
ATTNLAB_B float __bfloat162float(__nv_bfloat16 b) { return float(b); }
ATTNLAB_B __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return a + b; }
ATTNLAB_B __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return a * b; }
ATTNLAB_B __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) { return std::fma(float(a), float(b), float(c)); }
ATTNLAB_B __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) { return a < b ? b : a; }
ATTNLAB_B __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return {__nv_bfloat16(a), __nv_bfloat16(b)}; }
ATTNLAB_B float2 __bfloat1622float2(__nv_bfloat162 v) { return {float(v.x), float(v.y)}; }
#undef ATTNLAB_B
