#pragma once
// cp.async on attnlab's emulator, as CUDA's <cuda_pipeline_primitives.h>
// spells it: copy 4, 8 or 16 bytes from global to shared memory without
// passing through a register, commit the copies issued so far as one group,
// wait until all but the newest `prior` groups have landed. The data lands in
// shared memory only at the copying thread's wait; a read or write of it
// before then (by any thread, the copying one too) is a race, and other
// threads see it after a __syncthreads that follows the wait. Under nvcc the
// toolkit's header takes this one's place.
#include "attnlab/cuda_device.hpp"

// dst: shared, src: global, both aligned to size_and_align (4, 8 or 16);
// the last zfill bytes of the destination are zeros instead of the source's.
inline void __pipeline_memcpy_async(void* __restrict__ dst_shared, const void* __restrict__ src_global, size_t size_and_align,
                                    size_t zfill = 0, int line = __builtin_LINE()) {
    attnlab::emu::raw::async_copy(dst_shared, src_global, size_and_align, zfill, line);
}
inline void __pipeline_commit() { attnlab::emu::raw::async_commit(); }
inline void __pipeline_wait_prior(size_t prior) { attnlab::emu::raw::async_wait_prior(prior); }
