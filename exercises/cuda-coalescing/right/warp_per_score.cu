// A correct alternative: one warp per score (i, j). Lane d reads q[i, d] and
// k[j, d], so a warp reads consecutive floats of one row of q and one row of
// k; a butterfly of shuffles adds the lanes' products.
#include <attnlab/cuda.hpp>

constexpr int kWarpsPerBlock = 4;

// out: (B, H, T, T)   q, k: (B, H, T, hd)
__global__ void scores_warp(float* out, const float* q, const float* k,
                            int n_scores, int T, int hd, float scale) {
    // Launch layout: blocks of kWarpsPerBlock warps; warp w of the grid computes
    // score w of out (flat index), lane d takes d, d + 32, ... of the dot product.
    const int lane = threadIdx.x % 32;
    const int w = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
    if (w >= n_scores) return;  // whole warps leave together
    const int j = w % T, i = (w / T) % T, bh = w / (T * T);
    const float* q_row = q + (bh * T + i) * hd;
    const float* k_row = k + (bh * T + j) * hd;
    float acc = 0.0f;
    for (int d = lane; d < hd; d += 32) {
        const float qv = q_row[d];
        const float kv = k_row[d];
        acc += qv * kv;
    }
    for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
    if (lane == 0) out[w] = acc * scale;
}

void attention_scores(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k) {
    const int T = q.size(2), hd = q.size(3);
    const int n_scores = out.numel();
    const float scale = 1.0f / sqrtf(static_cast<float>(hd));
    scores_warp<<<ceil_div(n_scores, kWarpsPerBlock), 32 * kWarpsPerBlock>>>(out.data(), q.data(), k.data(), n_scores,
                                                                          T, hd, scale);
}
