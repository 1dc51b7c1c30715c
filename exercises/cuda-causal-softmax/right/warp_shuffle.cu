// A correct alternative: one warp per row, max and sum by warp shuffles. No
// shared memory and no __syncthreads(): the 32 lanes of a warp exchange
// registers directly, and a shuffle waits for every lane in its mask.
#include <attnlab/cuda.hpp>

constexpr int kWarpsPerBlock = 4;
constexpr unsigned kFullMask = 0xffffffffu;

// The maximum / sum of v over the 32 lanes, returned to every lane (butterfly:
// after the steps 16, 8, 4, 2, 1 each lane has combined all 32 values).
__device__ float warp_max(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(kFullMask, v, offset));
    return v;
}
__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(kFullMask, v, offset);
    return v;
}

// out: (B, H, T, T)   scores: (B, H, T, T)
__global__ void causal_softmax_warp(float* out, const float* scores, int rows, int T) {
    // Launch layout: blocks of kWarpsPerBlock warps, one warp per row; lane
    // takes keys lane, lane + 32, ... of that row.
    const int lane = threadIdx.x % 32;
    const int row = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
    if (row >= rows) return;  // the whole warp leaves together: no shuffle is left waiting
    const int i = row % T;
    const float* s = scores + row * T;
    float* o = out + row * T;

    float m = -INFINITY;
    for (int j = lane; j <= i; j += 32) m = fmaxf(m, s[j]);
    m = warp_max(m);
    float sum = 0.0f;
    for (int j = lane; j <= i; j += 32) sum += expf(s[j] - m);
    const float inv_sum = 1.0f / warp_sum(sum);
    for (int j = lane; j < T; j += 32) o[j] = j <= i ? expf(s[j] - m) * inv_sum : 0.0f;
}

void causal_softmax(DeviceTensor& out, const DeviceTensor& scores) {
    const int T = scores.size(3);
    const int rows = scores.numel() / T;
    causal_softmax_warp<<<ceil_div(rows, kWarpsPerBlock), 32 * kWarpsPerBlock>>>(out.data(), scores.data(), rows, T);
}
