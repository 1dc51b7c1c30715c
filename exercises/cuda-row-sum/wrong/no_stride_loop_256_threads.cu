// Wrong on purpose: a block of 256 threads, each adding one element,
// x[tid], with no loop striding over the rest. Every row of up to 256
// numbers comes out right; a row of 257 loses its last number.
#include <attnlab/cuda.hpp>

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// out: (B, H, R)   x: (B, H, R, N); block r sums row r.
__global__ void row_sum_kernel(float* out, const float* x, int N) {
    __shared__ float warp_sums[kWarps];
    const int row = blockIdx.x;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const float* xr = x + (long long)row * N;

    float sum = tid < N ? xr[tid] : 0.0f;  // one element per thread: the block is "long enough"
    sum = warp_sum(sum);
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        float s = lane < kWarps ? warp_sums[lane] : 0.0f;
        s = warp_sum(s);
        if (lane == 0) out[row] = s;
    }
}

void row_sum(DeviceTensor& out, const DeviceTensor& x) {
    row_sum_kernel<<<out.numel(), kThreads>>>(out.data(), x.data(), x.size(3));
}
