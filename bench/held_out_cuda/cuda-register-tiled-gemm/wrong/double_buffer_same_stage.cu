// Wrong: double-buffered GEMM whose prefetched tiles are stored into the stage being computed from (stash(cur) instead of stash(cur ^ 1)): a fast warp overwrites xs[cur]/ws[cur] while slower warps still multiply from it, and the next step reads the other, stale stage; expect shared_race. [attnlab 2026-12-03: shared_race with the loop-wraparound advice "add a __syncthreads at the end of the loop body", which is already there: the write sits in a lambda defined above the loop]
#include <cuda_runtime.h>

constexpr int BM = 64, BN = 64, BK = 16;

// out: (3, T, D)   x: (T, D)   w: (D, 3D)
__global__ void qkv_db(float* out, const float* x, const float* w, int T, int D) {
    __shared__ float xs[2][BK][BM];   // transposed: xs[s][k][m]
    __shared__ float ws[2][BK][BN];
    const int N = 3 * D;
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16, tid = threadIdx.x;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float rx[4], rw[4];               // the next step's share of the tiles
    float acc[4][4] = {};

    auto fetch = [&](int k0) {
        for (int l = 0; l < 4; ++l) {
            const int e = tid + 256 * l;
            const int m = e / BK, k = e % BK;     // x tile: 64 rows x 16
            rx[l] = (bm + m < T && k0 + k < D) ? x[(size_t)(bm + m) * D + k0 + k] : 0.f;
            const int kk = e / BN, n = e % BN;    // w tile: 16 rows x 64
            rw[l] = (k0 + kk < D && bn + n < N) ? w[(size_t)(k0 + kk) * N + bn + n] : 0.f;
        }
    };
    auto stash = [&](int s) {
        for (int l = 0; l < 4; ++l) {
            const int e = tid + 256 * l;
            xs[s][e % BK][e / BK] = rx[l];
            ws[s][e / BN][e % BN] = rw[l];
        }
    };

    const int steps = (D + BK - 1) / BK;
    fetch(0);
    stash(0);
    __syncthreads();
    for (int s = 0; s < steps; ++s) {
        const int cur = s & 1;
        if (s + 1 < steps) fetch((s + 1) * BK);   // global loads in flight during the math
        for (int k = 0; k < BK; ++k) {
            float a[4], b[4];
            for (int i = 0; i < 4; ++i) a[i] = xs[cur][k][ty * 4 + i];
            for (int j = 0; j < 4; ++j) b[j] = ws[cur][k][tx + 16 * j];
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
        }
        if (s + 1 < steps) stash(cur);  // should be the other stage, cur ^ 1
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i) {
        const int t = bm + ty * 4 + i;
        for (int j = 0; j < 4; ++j) {
            const int c = bn + tx + 16 * j;
            if (t < T && c < N) out[((size_t)(c / D) * T + t) * D + c % D] = acc[i][j];
        }
    }
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    qkv_db<<<dim3(ceil_div(3 * D, BN), ceil_div(T, BM)), 256>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
