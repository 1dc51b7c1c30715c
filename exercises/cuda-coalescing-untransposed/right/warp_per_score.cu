// A correct alternative: one warp per score (i, j). Lane d reads q[b, i, h, d]
// and k[b, j, h, d], so a warp reads consecutive floats of one head's row of q
// and of k (hd floats, whole sectors when hd is a multiple of 8); a butterfly
// of shuffles adds the lanes' products.
#include <attnlab/cuda.hpp>

constexpr int kWarpsPerBlock = 4;

// out: (B, H, T, T)   q, k: (B, T, H, hd)
__global__ void scores_warp(float* out, const float* q, const float* k,
                            int n_scores, int H, int T, int hd, float scale) {
    // Launch layout: blocks of kWarpsPerBlock warps; warp w of the grid computes
    // score w of out (flat index over (b, h, i, j)), lane d takes d, d + 32, ...
    const int lane = threadIdx.x % 32;
    const int w = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
    if (w >= n_scores) return;  // whole warps leave together
    const int j = w % T, i = (w / T) % T, bh = w / (T * T);
    const int b = bh / H, h = bh % H;
    const float* q_row = q + ((b * T + i) * H + h) * hd;  // q[b, i, h, 0]
    const float* k_row = k + ((b * T + j) * H + h) * hd;  // k[b, j, h, 0]
    float acc = 0.0f;
    for (int d = lane; d < hd; d += 32) {
        const float qv = q_row[d];
        const float kv = k_row[d];
        acc += qv * kv;
    }
    for (int offset = 16; offset > 0; offset /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
    if (lane == 0) out[w] = acc * scale;
}

void attention_scores_untransposed(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k) {
    const int T = q.size(1), H = q.size(2), hd = q.size(3);
    const int n_scores = out.numel();
    const float scale = 1.0f / sqrtf(static_cast<float>(hd));
    scores_warp<<<ceil_div(n_scores, kWarpsPerBlock), 32 * kWarpsPerBlock>>>(out.data(), q.data(), k.data(), n_scores,
                                                                          H, T, hd, scale);
}
