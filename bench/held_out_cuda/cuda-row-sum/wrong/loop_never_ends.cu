// Wrong: stride loop increments by blockDim.x only when tid == 0 (j += 0 for others): infinite loop; expect step_limit / timeout.
#include <cuda_runtime.h>
__global__ void rowsum_hang(float* out, const float* x, int N) {
    __shared__ float s[128];
    float v = 0.f;
    for (int j = threadIdx.x; j < N; j += (threadIdx.x == 0 ? blockDim.x : 0)) v += x[(size_t)blockIdx.x * N + j];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int st = 64; st; st >>= 1) { if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st]; __syncthreads(); }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
void row_sum(DeviceTensor& out, const DeviceTensor& x) {
    rowsum_hang<<<out.numel(), 128>>>(out.data(), x.data(), (int)x.size(3));
}
