// Correct: grid-stride loop with a fixed 64-block grid, size_t indices, __device__ helper.
#include <cuda_runtime.h>
#include <math.h>
__device__ __forceinline__ float masked(float s, int i, int j) { return j > i ? -INFINITY : s; }
__global__ void mask_gs(float* out, const float* scores, int T, size_t n) {
    for (size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x; idx < n; idx += (size_t)gridDim.x * blockDim.x) {
        int j = idx % T, i = (idx / T) % T;
        out[idx] = masked(scores[idx], i, j);
    }
}
void causal_mask(DeviceTensor& out, const DeviceTensor& scores) {
    mask_gs<<<64, 256>>>(out.data(), scores.data(), (int)scores.size(3), (size_t)scores.numel());
}
