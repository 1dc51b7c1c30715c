#pragma once
// A GPU's register file and how a block is charged for it (cuda_occupancy.h):
// the one rule both the learner's program (refusing a launch, as a GPU does)
// and attnlab (deciding whether a check must run again with NVRTC's counts)
// apply.
#include <cstdint>

namespace attnlab {

// Registers of one SM: 64 K 32-bit registers on every architecture attnlab knows.
inline constexpr int64_t kRegistersPerSm = 65536;
// The most a thread may be given (ptxas never allocates more).
inline constexpr int kMaxRegistersPerThread = 255;

// Registers a block of `threads` needs at `per_thread` registers per thread:
// each warp is given them in units of 256.
inline int64_t registers_per_block(int per_thread, int64_t threads) {
    const int64_t warps = (threads + 31) / 32;
    const int64_t per_warp = (int64_t(per_thread) * 32 + 255) / 256 * 256;
    return warps * per_warp;
}

// A GPU refuses the launch (cudaErrorLaunchOutOfResources).
inline bool block_exceeds_register_file(int per_thread, int64_t threads) {
    return per_thread > 0 && registers_per_block(per_thread, threads) > kRegistersPerSm;
}

}  // namespace attnlab
