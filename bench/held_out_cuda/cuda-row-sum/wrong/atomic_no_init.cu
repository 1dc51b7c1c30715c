// Wrong: 2 blocks per row accumulate with atomicAdd into out, which is never zeroed (garbage + sum); expect uninitialized_read of out.
#include <cuda_runtime.h>
__global__ void rowsum_atomic(float* out, const float* x, int N) {
    int row = blockIdx.x / 2, half = blockIdx.x % 2;
    float v = 0.f;
    for (int j = half * blockDim.x + threadIdx.x; j < N; j += 2 * blockDim.x) v += x[(size_t)row * N + j];
    for (int o = 16; o; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(&out[row], v);
}
void row_sum(DeviceTensor& out, const DeviceTensor& x) {
    rowsum_atomic<<<2 * out.numel(), 64>>>(out.data(), x.data(), (int)x.size(3));
}
