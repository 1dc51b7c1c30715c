// Correct: classic 32x32 shared-memory tiling of Q and K (padded [32][33]), block per (i-tile, j-tile, bh).
#include <cuda_runtime.h>
#define TS 32
__global__ void scores_tiled(float* out, const float* q, const float* k, int T, int hd, float scale) {
    __shared__ float qs[TS][TS + 1];
    __shared__ float ks[TS][TS + 1];
    int bh = blockIdx.z;
    int i0 = blockIdx.y * TS, j0 = blockIdx.x * TS;
    int tx = threadIdx.x, ty = threadIdx.y;   // block 32 x 8
    const float* qb = q + (size_t)bh * T * hd;
    const float* kb = k + (size_t)bh * T * hd;
    float acc[4] = {0, 0, 0, 0};
    for (int d0 = 0; d0 < hd; d0 += TS) {
        for (int r = ty; r < TS; r += 8) {
            int d = d0 + tx;
            qs[r][tx] = (i0 + r < T && d < hd) ? qb[(i0 + r) * hd + d] : 0.f;
            ks[r][tx] = (j0 + r < T && d < hd) ? kb[(j0 + r) * hd + d] : 0.f;
        }
        __syncthreads();
        for (int dd = 0; dd < TS; ++dd)
            for (int m = 0; m < 4; ++m)
                acc[m] += qs[ty + 8 * m][dd] * ks[tx][dd];
        __syncthreads();
    }
    for (int m = 0; m < 4; ++m) {
        int i = i0 + ty + 8 * m, j = j0 + tx;
        if (i < T && j < T) out[((size_t)bh * T + i) * T + j] = acc[m] * scale;
    }
}
void attention_scores(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k) {
    int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    dim3 grid((T + TS - 1) / TS, (T + TS - 1) / TS, B * H);
    scores_tiled<<<grid, dim3(TS, 8)>>>(out.data(), q.data(), k.data(), T, hd, rsqrtf((float)hd));
}
