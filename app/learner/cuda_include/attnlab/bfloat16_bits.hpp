#pragma once
// bfloat16 as a GPU rounds it: the top 16 bits of a float (sign, 8-bit
// exponent, 7-bit mantissa), rounded to nearest with ties to even when made
// from a float; a NaN stays a (quiet) NaN. The one place the rounding lives:
// <cuda_bf16.h>'s __nv_bfloat16 and WMMA's bf16 fragments (wmma.cpp) both
// convert through it, so a fragment filled with a float and a value converted
// by __float2bfloat16 agree bit for bit.
#include <cstring>

namespace attnlab::bf16 {

inline unsigned short from_float(float f) {
    unsigned u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<unsigned short>((u >> 16) | 0x40);  // NaN stays NaN
    u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest, ties to even
    return static_cast<unsigned short>(u >> 16);
}

inline float to_float(unsigned short bits) {
    const unsigned u = static_cast<unsigned>(bits) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

}  // namespace attnlab::bf16
