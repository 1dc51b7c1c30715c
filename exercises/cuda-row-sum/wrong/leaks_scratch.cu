// Wrong: the sums are right, but the host function cudaMalloc's a scratch
// buffer and never frees it. The check must say it leaks, and name no
// mistake about the sums (they are right).
#include <attnlab/cuda.hpp>

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;

// The sum of v over the 32 lanes of this warp, in lane 0 (the other lanes
// end with partial sums). Every lane of the warp must call it.
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

    // 1. Each thread sums its own elements: tid, tid + 128, ... (N may exceed the block).
    float sum = 0.0f;
    for (int j = tid; j < N; j += kThreads) sum += xr[j];

    // 2. Inside each warp: registers only, no shared memory, no __syncthreads.
    sum = warp_sum(sum);
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();  // every warp's sum is written before warp 0 reads them

    // 3. Warp 0 adds the 4 warp sums (its other lanes bring 0).
    if (warp == 0) {
        float s = lane < kWarps ? warp_sums[lane] : 0.0f;
        s = warp_sum(s);
        if (lane == 0) out[row] = s;
    }
}

// attnlab calls this once per case: x is already in device memory, out has
// shape (B, H, R) and holds garbage until a kernel writes it.
void row_sum(DeviceTensor& out, const DeviceTensor& x) {
    const int N = x.size(3);
    const int rows = out.numel();  // B * H * R: one block each
    float* scratch = nullptr;
    cudaMalloc(&scratch, rows * sizeof(float));
    cudaMemset(scratch, 0, rows * sizeof(float));
    row_sum_kernel<<<rows, kThreads>>>(out.data(), x.data(), N);
}
