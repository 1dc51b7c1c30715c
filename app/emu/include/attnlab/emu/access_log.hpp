#pragma once
// One access in an emulated thread's log (ThreadState::global_loads and the
// other three logs), as the warp requests are counted from it
// (attnlab/emu/warp_requests.hpp).
#include <cstdint>

namespace attnlab::emu::detail {

// One access in a thread's log: its key (top 19 bits: a source line, or an
// access site with its width) and its unit: the 32-byte sector (global
// memory) or the 4-byte word (shared memory) the access starts in. A warp-wide
// request = one instruction over the lanes active in that round, in one
// barrier interval (diverged lanes are replayed as a warp runs them).
// attnlab's own kernels log source lines (4-byte accesses); learners' plain
// CUDA logs access sites (one per load or store instruction) with the access
// width's class in the key's top two bits (0: 4 bytes, 1: 8, 2: 16).
constexpr int kLogLineShift = 45;
constexpr uint64_t kLogAddressMask = (uint64_t(1) << kLogLineShift) - 1;
constexpr uint64_t kLogSiteFlag = uint64_t(1) << 18;  // in the key: an access site, not a line
inline uint64_t log_entry(int line, uint64_t unit) {
    return (uint64_t(line < 0 ? 0 : line > 0xffff ? 0xffff : line) << kLogLineShift) | (unit & kLogAddressMask);
}
inline uint64_t log_site_entry(unsigned site, unsigned width_class, uint64_t unit) {
    return ((kLogSiteFlag | uint64_t(width_class & 3) << 16 | (site & 0xffff)) << kLogLineShift) | (unit & kLogAddressMask);
}
// Where a log key's instruction sits in the program, for ordering a warp's
// diverged lanes: the site's code address (raw_access.cpp), or the line.
uint64_t site_code_address(unsigned site);
inline uint64_t log_program_position(uint64_t key) {
    return (key & kLogSiteFlag) ? site_code_address(unsigned(key & 0xffff)) : (key & 0xffff);
}
inline unsigned log_width_class(uint64_t key) { return unsigned(key >> 16) & 3; }

}  // namespace attnlab::emu::detail
