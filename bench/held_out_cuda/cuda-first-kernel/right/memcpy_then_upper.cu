// Correct (valid CUDA): cudaMemcpy device-to-device copies scores into out, then a kernel writes -INFINITY above the diagonal only. [attnlab: output_not_written, cudaMemcpy writes not counted]
#include <cuda_runtime.h>
#include <math.h>
__global__ void mask_upper(float* out, int T, long long n) {
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;
    int j = idx % T, i = (idx / T) % T;
    if (j > i) out[idx] = -INFINITY;
}
void causal_mask(DeviceTensor& out, const DeviceTensor& scores) {
    long long n = scores.numel();
    cudaMemcpy(out.data(), scores.data(), n * sizeof(float), cudaMemcpyDeviceToDevice);
    mask_upper<<<ceil_div(n, 256), 256>>>(out.data(), (int)scores.size(3), n);
}
