// Wrong on purpose: the block grew from 128 to 256 threads, but warp 0 still
// adds only 4 warp sums, a count written for the 128-thread version. Every
// thread strides over the row, yet the elements threads 128-255 added are
// lost: right for a row of up to 128 numbers, wrong for any longer one.
#include <attnlab/cuda.hpp>

constexpr int kThreads = 256;

__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// out: (B, H, R)   x: (B, H, R, N); block r sums row r.
__global__ void row_sum_kernel(float* out, const float* x, int N) {
    __shared__ float warp_sums[kThreads / 32];
    const int row = blockIdx.x;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const float* xr = x + (long long)row * N;

    float sum = 0.0f;
    for (int j = tid; j < N; j += kThreads) sum += xr[j];
    sum = warp_sum(sum);
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        float s = lane < 4 ? warp_sums[lane] : 0.0f;  // 4: the warps of a 128-thread block, not of this one
        s = warp_sum(s);
        if (lane == 0) out[row] = s;
    }
}

void row_sum(DeviceTensor& out, const DeviceTensor& x) {
    row_sum_kernel<<<out.numel(), kThreads>>>(out.data(), x.data(), x.size(3));
}
