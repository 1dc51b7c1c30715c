// Wrong on purpose: no barrier between the levels of the tree. A thread may
// read partial[tid + stride] before the thread that owns it has added its
// own pair there: a shared-memory race.
#include <attnlab/cuda.hpp>

constexpr int kThreads = 128;  // a power of two, so the tree halves evenly

// out: (B, H, R)   x: (B, H, R, N); block r sums row r.
__global__ void row_sum_kernel(float* out, const float* x, int N) {
    __shared__ float partial[kThreads];
    const int row = blockIdx.x;
    const int tid = threadIdx.x;
    const float* xr = x + (long long)row * N;

    // 1. Each thread sums its own elements: tid, tid + 128, ... (N may exceed the block).
    float sum = 0.0f;
    for (int j = tid; j < N; j += kThreads) sum += xr[j];
    partial[tid] = sum;  // every thread writes, even one with no element: its 0 counts
    __syncthreads();     // all 128 partial sums are in place before anyone reads one

    // 2. The tree: at each level the first half adds the second half onto itself.
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
    }
    if (tid == 0) out[row] = partial[0];
}

void row_sum(DeviceTensor& out, const DeviceTensor& x) {
    const int N = x.size(3);
    const int rows = out.numel();  // B * H * R
    row_sum_kernel<<<rows, kThreads>>>(out.data(), x.data(), N);
}
