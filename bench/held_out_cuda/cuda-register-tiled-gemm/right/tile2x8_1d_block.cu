// Correct: 1-D block of 128 threads, block tile 32 x 64 x 16, each thread a 2 x 8 micro-tile (row pair tid / 8, eight consecutive columns), W-tile row read as two float4s; 2 + 2 shared load instructions per 16 FMAs.
#include <cuda_runtime.h>

constexpr int MB = 32, NB = 64, KB = 16;

__global__ void gemm_2x8(float* out, const float* x, const float* w, int T, int D) {
    __shared__ float sx[MB][KB];
    __shared__ __align__(16) float sw[KB][NB];
    const int N = 3 * D;
    const int tid = threadIdx.x;
    const int r0 = (tid / 8) * 2;   // 16 row pairs
    const int c0 = (tid % 8) * 8;   // 8 groups of 8 columns
    const int bm = blockIdx.y * MB, bn = blockIdx.x * NB;
    float acc[2][8];
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.f;

    for (int k0 = 0; k0 < D; k0 += KB) {
        for (int e = tid; e < MB * KB; e += 128) {
            const int m = e / KB, k = e % KB;
            const int gr = bm + m, gk = k0 + k;
            sx[m][k] = (gr < T && gk < D) ? x[gr * D + gk] : 0.f;
        }
        for (int e = tid; e < KB * NB; e += 128) {
            const int k = e / NB, n = e % NB;
            const int gk = k0 + k, gc = bn + n;
            sw[k][n] = (gk < D && gc < N) ? w[gk * N + gc] : 0.f;
        }
        __syncthreads();
        for (int k = 0; k < KB; ++k) {
            const float a0 = sx[r0][k], a1 = sx[r0 + 1][k];
            const float4 b0 = *reinterpret_cast<const float4*>(&sw[k][c0]);
            const float4 b1 = *reinterpret_cast<const float4*>(&sw[k][c0 + 4]);
            const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
            for (int j = 0; j < 8; ++j) {
                acc[0][j] += a0 * b[j];
                acc[1][j] += a1 * b[j];
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; ++i) {
        const int t = bm + r0 + i;
        if (t >= T) break;
        for (int j = 0; j < 8; ++j) {
            const int c = bn + c0 + j;
            if (c < N) {
                const int which = c / D;
                out[(which * T + t) * D + (c - which * D)] = acc[i][j];
            }
        }
    }
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    gemm_2x8<<<dim3((3 * D + NB - 1) / NB, (T + MB - 1) / MB), 128>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
