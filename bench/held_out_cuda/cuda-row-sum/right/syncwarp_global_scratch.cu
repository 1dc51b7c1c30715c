// Correct (valid CUDA, minimal repro): one warp per row, lane partials to a cudaMalloc scratch, __syncwarp, lane 0 sums them [attnlab: global_race false positive; passes with __syncthreads].
#include <cuda_runtime.h>
__global__ void rs(float* out, const float* x, float* scratch, int N) {
    int lane = threadIdx.x;
    float v = 0.f;
    for (int j = lane; j < N; j += 32) v += x[(size_t)blockIdx.x * N + j];
    scratch[blockIdx.x * 32 + lane] = v;
    __syncwarp();
    if (lane == 0) { float s = 0.f; for (int l = 0; l < 32; ++l) s += scratch[blockIdx.x * 32 + l]; out[blockIdx.x] = s; }
}
void row_sum(DeviceTensor& out, const DeviceTensor& x) {
    float* scratch; cudaMalloc(&scratch, out.numel() * 32 * sizeof(float));
    rs<<<out.numel(), 32>>>(out.data(), x.data(), scratch, (int)x.size(3));
    cudaFree(scratch);
}
