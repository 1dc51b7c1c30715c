#pragma once
// One kernel source, two targets. The kernels are plain CUDA (float*,
// `__shared__ float tile[16][16];`, `extern __shared__ float smem[];`) and
// launch with
//   ATTNLAB_LAUNCH(kernel, grid, block, smem, args...)
// = kernel<<<grid, block, smem>>>(args...), which returns an emu::LaunchReport
// on both targets.
//   nvcc:     compiles the .cu as it is (native_backend.cu);
//   emulator: the build rewrites the .cu as a learner's is rewritten
//             (cuda_source.cpp: each `__shared__` becomes a checked variable
//             of the block's shared memory) and compiles it with the flags of
//             a learner's .cu (cmake/AttnlabEmulatedCuda.cmake), so the
//             emulator's checks and counters see attnlab's kernels exactly as
//             they see a learner's: one set of rules (kernels/CMakeLists.txt).
// Kernels live in namespace attnlab::kernels::ATTNLAB_KERNEL_NS, so the nvcc
// and the emulator builds of the same source never share a symbol.
#include "attnlab/common/launch_report.hpp"

#if defined(__CUDACC__)
#include <cuda_runtime.h>
#include <string>
#define ATTNLAB_KERNEL_NS native
namespace attnlab::kernels::native {
// The launch's outcome as the emulator would report it (no counters on a GPU).
inline emu::LaunchReport launch_status(const char* name, dim3 grid, dim3 block, size_t smem) {
    emu::LaunchReport r;
    r.kernel = name;
    r.grid = {grid.x, grid.y, grid.z};
    r.block = {block.x, block.y, block.z};
    r.dynamic_shared_bytes = smem;
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) {
        r.fault.kind = emu::FaultKind::InvalidLaunch;
        r.fault.detail = std::string("CUDA: ") + cudaGetErrorString(err);
    }
    return r;
}
// Above 48 KiB a kernel must opt in to more dynamic shared memory.
template <class K> void allow_shared(K kernel, size_t smem) {
    if (smem > 48 * 1024) cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
}
}  // namespace attnlab::kernels::native
#define ATTNLAB_LAUNCH(kernel, grid, block, smem, ...)                                            \
    ([&] {                                                                                      \
        ::attnlab::kernels::native::allow_shared(kernel, smem);                                \
        kernel<<<grid, block, smem>>>(__VA_ARGS__);                                             \
        return ::attnlab::kernels::native::launch_status(#kernel, grid, block, smem);           \
    }())

// CUDA has no float atomicMax; the emulator does, so give nvcc one too.
__device__ inline float atomicMax(float* address, float val) {
    int* bits = reinterpret_cast<int*>(address);
    int old = *bits;
    while (__int_as_float(old) < val) {
        const int seen = atomicCAS(bits, old, __float_as_int(val));
        if (seen == old) break;
        old = seen;
    }
    return __int_as_float(old);
}

#else  // the host compiler: attnlab's CPU emulator, through the learners' device header
#include "attnlab/cuda_device.hpp"
#include "attnlab/emu/launch.hpp"
#define ATTNLAB_KERNEL_NS emulated
#define ATTNLAB_LAUNCH(kernel, grid, block, smem, ...) \
    ::attnlab::emu::launch(#kernel, kernel, grid, block, smem, __VA_ARGS__)
#endif
