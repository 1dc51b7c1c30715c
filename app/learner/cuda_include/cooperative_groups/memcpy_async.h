#pragma once
// cg::memcpy_async on attnlab's emulator: the group's threads copy `bytes`
// from global to shared memory together, 16 bytes each in turn where both
// pointers allow it (4 otherwise), as one committed group of cp.async copies;
// cg::wait(group) waits for every group and synchronises the group,
// cg::wait_prior<N>(group) for all but the newest N. Until the wait the data
// has not landed (cuda_pipeline_primitives.h says what that means).
#include "../cooperative_groups.h"
#include "../cuda_pipeline_primitives.h"

namespace cooperative_groups {

template <class Group>
void memcpy_async(const Group& group, void* dst, const void* src, size_t bytes, int line = __builtin_LINE()) {
    const size_t piece = (reinterpret_cast<uintptr_t>(dst) | reinterpret_cast<uintptr_t>(src) | bytes) % 16 == 0 ? 16 : 4;
    for (size_t at = size_t(group.thread_rank()) * piece; at < bytes; at += size_t(group.size()) * piece)
        __pipeline_memcpy_async(static_cast<char*>(dst) + at, static_cast<const char*>(src) + at, piece, 0, line);
    __pipeline_commit();
}
template <class Group> void wait(const Group& group) {
    __pipeline_wait_prior(0);
    group.sync();
}
template <unsigned N, class Group> void wait_prior(const Group& group) {
    __pipeline_wait_prior(N);
    group.sync();
}

}  // namespace cooperative_groups
