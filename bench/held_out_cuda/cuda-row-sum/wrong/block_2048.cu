// Wrong: 2048 threads per block (over the 1024 limit); expect invalid launch naming cudaErrorInvalidConfiguration.
#include <cuda_runtime.h>
__global__ void rowsum_big(float* out, const float* x, int N) {
    __shared__ float s[2048];
    float v = 0.f;
    for (int j = threadIdx.x; j < N; j += blockDim.x) v += x[(size_t)blockIdx.x * N + j];
    s[threadIdx.x] = v;
    __syncthreads();
    for (int st = 1024; st; st >>= 1) { if (threadIdx.x < st) s[threadIdx.x] += s[threadIdx.x + st]; __syncthreads(); }
    if (threadIdx.x == 0) out[blockIdx.x] = s[0];
}
void row_sum(DeviceTensor& out, const DeviceTensor& x) {
    rowsum_big<<<out.numel(), 2048>>>(out.data(), x.data(), (int)x.size(3));
}
