// Correct: two shared stages and a register prefetch (as in the CUTLASS / "how to optimize a CUDA SGEMM" double-buffered kernels): step s computes from stage s % 2 while the next tiles, already in registers, are stored to the other stage; one __syncthreads per step suffices, because the stage written in step s was last read in step s - 1, before that step's barrier. 4 x 4 micro-tile, columns strided by 16.
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
        if (s + 1 < steps) stash(cur ^ 1);
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
