// Wrong: 2 blocks per row both store (out[row] = partial) instead of atomicAdd: race across blocks; expect global_race.
#include <cuda_runtime.h>
__global__ void rowsum2(float* out, const float* x, int N) {
    __shared__ float s[64];
    int row = blockIdx.x / 2, half = blockIdx.x % 2;
    float v = 0.f;
    for (int j = half * 64 + threadIdx.x; j < N; j += 128) v += x[(size_t)row * N + j];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int st = 32; st; st >>= 1) { if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st]; __syncthreads(); }
    if (threadIdx.x == 0) out[row] = s[0];
}
void row_sum(DeviceTensor& out, const DeviceTensor& x) {
    rowsum2<<<2 * out.numel(), 64>>>(out.data(), x.data(), (int)x.size(3));
}
