// Correct values; rows staged in shared memory per head, 16x16 output tiles. Expected pass, but flagged (see README: store waste counted as "loads"). [attnlab: kernel_rule 1.00x > 1x, the figure includes store waste though the message says loads]
// Correct: block per (16 queries, 16 keys, b*H+h); the hd-float head rows are staged into shared memory, lanes walk d (contiguous inside a head row).
#include <cuda_runtime.h>
#define TILE 16
__global__ void scores_bthd(float* out, const float* q, const float* k, int T, int H, int hd, float scale) {
    __shared__ float Qs[TILE][65];
    __shared__ float Ks[TILE][65];
    int bh = blockIdx.z, b = bh / H, h = bh % H;
    int i0 = blockIdx.y * TILE, j0 = blockIdx.x * TILE;
    int tid = threadIdx.y * TILE + threadIdx.x;
    for (int e = tid; e < TILE * hd; e += TILE * TILE) {
        int r = e / hd, d = e % hd;
        if (i0 + r < T) Qs[r][d] = q[(((size_t)b * T + i0 + r) * H + h) * hd + d];
        if (j0 + r < T) Ks[r][d] = k[(((size_t)b * T + j0 + r) * H + h) * hd + d];
    }
    __syncthreads();
    int i = i0 + threadIdx.y, j = j0 + threadIdx.x;
    if (i < T && j < T) {
        float s = 0.f;
        for (int d = 0; d < hd; ++d) s += Qs[threadIdx.y][d] * Ks[threadIdx.x][d];
        out[((size_t)bh * T + i) * T + j] = s * scale;
    }
}
void attention_scores_untransposed(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k) {
    int B = q.size(0), T = q.size(1), H = q.size(2), hd = q.size(3);
    dim3 grid(ceil_div(T, TILE), ceil_div(T, TILE), B * H);
    scores_bthd<<<grid, dim3(TILE, TILE)>>>(out.data(), q.data(), k.data(), T, H, hd, 1.0f / sqrtf((float)hd));
}
