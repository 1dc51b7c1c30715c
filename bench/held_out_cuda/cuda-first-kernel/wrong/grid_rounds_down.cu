// Wrong: grid = n / 256 (rounds down), tail never written; expect output_not_written.
#include <cuda_runtime.h>
#include <math.h>
__device__ __forceinline__ float masked(float s, int i, int j) { return j > i ? -INFINITY : s; }
__global__ void mask_gs(float* out, const float* scores, int T, size_t n) {
    for (size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x; idx < n; idx += (size_t)1 << 40) {
        int j = idx % T, i = (idx / T) % T;
        out[idx] = masked(scores[idx], i, j);
    }
}
void causal_mask(DeviceTensor& out, const DeviceTensor& scores) {
    mask_gs<<<(int)(scores.numel() / 256), 256>>>(out.data(), scores.data(), (int)scores.size(3), (size_t)scores.numel());
}
