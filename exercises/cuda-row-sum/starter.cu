// Row sums on the GPU: (B, H, R, N) -> (B, H, R)
//
//     out[b, h, r] = x[b, h, r, 0] + x[b, h, r, 1] + ... + x[b, h, r, N-1]
//
// attnlab calls row_sum once per case. x is already in device memory; out
// has shape (B, H, R) and holds garbage until a kernel writes it. One block
// per row: its threads each add up part of the row, then combine their
// partial sums (step 1: a tree in __shared__ memory with __syncthreads();
// step 2: the levels inside a warp with __shfl_down_sync). N may be larger
// than the block, and need not be a multiple of 32.
#include <attnlab/cuda.hpp>

constexpr int kThreads = 128;

// out: (B, H, R)   x: (B, H, R, N); block r sums row r.
__global__ void row_sum_kernel(float* out, const float* x, int N) {
    // TODO: each thread sums its elements of row blockIdx.x, the block
    //       combines the partial sums, and one thread writes out[blockIdx.x].
}

void row_sum(DeviceTensor& out, const DeviceTensor& x) {
    const int N = x.size(3);
    const int rows = out.numel();  // B * H * R

    // TODO: launch row_sum_kernel<<<rows, kThreads>>>(out.data(), x.data(), N).
    //       As it stands, nothing is launched.
    (void)out; (void)N; (void)rows;
}
