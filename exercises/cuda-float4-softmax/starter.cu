// A decoding step's softmax on the GPU, with float4 loads and stores
//
// For every row of x (B, H, T), one row of T scores per (b, h):
//
//     out[b, h, j] = exp(x[b, h, j] - m) / sum over k of exp(x[b, h, k] - m)
//
// where m is the row's maximum. The result must stay finite when a row holds
// numbers in the thousands. attnlab calls softmax_step once per case; x is
// already in device memory; out has shape (B, H, T) and holds garbage until a
// kernel writes it.
//
// This kernel is right, and the check still fails: one warp per row, each lane
// moving one float per instruction, 128 bytes per warp request at most. Where
// T >= 64, the loads and the stores must each move at least 160 bytes per warp
// request: make them float4 where the row allows it. x.data() and out.data()
// are 16-byte aligned; row r starts at float r * T.
#include <attnlab/cuda.hpp>

constexpr int kWarpsPerBlock = 4;  // 128 threads: four rows per block

__device__ float warp_max(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, offset));
    return v;
}

__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset);
    return v;
}

// out, x: (B, H, T)
__global__ void softmax_kernel(float* out, const float* x, int T, int rows) {
    const int row = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= rows) return;  // the whole warp shares the row, so it leaves together
    const float* in = x + (size_t)row * T;
    float* o = out + (size_t)row * T;

    // TODO: the same three passes, with float4 loads and stores where the row allows them.
    float m = -INFINITY;
    for (int j = lane; j < T; j += 32) m = fmaxf(m, in[j]);
    m = warp_max(m);

    float s = 0.0f;
    for (int j = lane; j < T; j += 32) s += expf(in[j] - m);
    const float inv_sum = 1.0f / warp_sum(s);

    for (int j = lane; j < T; j += 32) o[j] = expf(in[j] - m) * inv_sum;
}

void softmax_step(DeviceTensor& out, const DeviceTensor& x) {
    const int T = x.size(2);
    const int rows = x.numel() / T;  // B * H rows of T scores
    softmax_kernel<<<(rows + kWarpsPerBlock - 1) / kWarpsPerBlock, 32 * kWarpsPerBlock>>>(out.data(), x.data(), T, rows);
}
