// attnlab-bench-emulator's own kernel, plain CUDA built for the emulator as
// a learner's .cu is (attnlab_emulated_cuda_objects in bench/CMakeLists.txt):
// the cost of __syncthreads alone, its one store the only memory it touches.
#include "attnlab/cuda_device.hpp"

namespace attnlab::bench {

__global__ void barriers_only(float* out, int n) {
    for (int i = 0; i < n; ++i) __syncthreads();
    if (threadIdx.x == 0) out[0] = float(n);
}

}  // namespace attnlab::bench
