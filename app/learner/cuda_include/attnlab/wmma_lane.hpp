#pragma once
// The lane's part of each of CUDA's warp matrix functions on the emulator,
// done by attnlab's runtime (app/learner/src/wmma.cpp) for <mma.h>'s
// templates: `x` is the calling lane's elements of a fragment, `line` the
// learner's line of the call.
#include <cstdint>

namespace attnlab::emu::raw::wmma {
enum class Element : uint8_t { Half, Float, BFloat16 };
void fill(void* x, Element type, float value, int line);
void load(void* x, Element type, const void* p, unsigned ldm, bool col_major, int line);
void store(void* p, const void* x, Element type, unsigned ldm, bool col_major, int line);
void mma(void* d, Element d_type, const void* a, const void* b, Element ab_type, const void* c, Element c_type, int line);
}  // namespace attnlab::emu::raw::wmma
