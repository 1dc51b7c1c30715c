// Correct: 2-D grid (16x16 blocks), x over keys, y over rows, CUDA_CHECK macro.
#include <cuda_runtime.h>
#include <math.h>
#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { printf("CUDA error %s\n", cudaGetErrorString(e_)); } } while (0)
__global__ void mask2d(float* __restrict__ out, const float* __restrict__ s, int T, int BH) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (j >= T || row >= BH * T) return;
    int i = row % T;
    size_t idx = (size_t)row * T + j;
    out[idx] = (j <= i) ? s[idx] : -INFINITY;
}
void causal_mask(DeviceTensor& out, const DeviceTensor& scores) {
    int T = scores.size(3);
    int BH = scores.size(0) * scores.size(1);
    dim3 block(16, 16);
    dim3 grid((T + 15) / 16, (BH * T + 15) / 16);
    mask2d<<<grid, block>>>(out.data(), scores.data(), T, BH);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
}
