// Correct: 16 x 16 threads, each a contiguous 4 x 4 micro-tile (rows 4ty.., cols 4tx..); the x tile is stored transposed, As[k][m], so both register fills are one float4 shared load each (2 shared loads for 16 FMAs); out written as (3, T, D).
#include <cuda_runtime.h>

#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4

// out: (3, T, D)   x: (T, D)   w: (D, 3D)
__global__ void __launch_bounds__(256) sgemm_qkv_4x4(float* __restrict__ out, const float* __restrict__ x,
                                                     const float* __restrict__ w, int T, int D) {
    __shared__ __align__(16) float As[BK][BM];  // As[k][m] = x[row0 + m][k0 + k]
    __shared__ __align__(16) float Bs[BK][BN];  // Bs[k][n] = w[k0 + k][col0 + n]
    const int N = 3 * D;
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;

    for (int k0 = 0; k0 < D; k0 += BK) {
        // x tile 64 x 16: 1024 elements, 4 per thread; consecutive threads take consecutive k
#pragma unroll
        for (int l = 0; l < 4; ++l) {
            const int e = tid + l * 256;
            const int m = e / BK, k = e % BK;
            const int r = row0 + m, c = k0 + k;
            As[k][m] = (r < T && c < D) ? x[(size_t)r * D + c] : 0.f;
        }
        // w tile 16 x 64: 4 per thread, consecutive threads take consecutive n
#pragma unroll
        for (int l = 0; l < 4; ++l) {
            const int e = tid + l * 256;
            const int k = e / BN, n = e % BN;
            const int r = k0 + k, c = col0 + n;
            Bs[k][n] = (r < D && c < N) ? w[(size_t)r * N + c] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            const float4 a = *reinterpret_cast<const float4*>(&As[k][ty * TM]);
            const float4 b = *reinterpret_cast<const float4*>(&Bs[k][tx * TN]);
            const float av[4] = {a.x, a.y, a.z, a.w};
            const float bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int t = row0 + ty * TM + i;
        if (t >= T) continue;
#pragma unroll
        for (int j = 0; j < TN; ++j) {
            const int c = col0 + tx * TN + j;
            if (c >= N) continue;
            const int p = c / D, d = c - p * D;
            out[((size_t)p * T + t) * D + d] = acc[i][j];
        }
    }
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    dim3 block(16, 16);
    dim3 grid((3 * D + BN - 1) / BN, (T + BM - 1) / BM);
    sgemm_qkv_4x4<<<grid, block>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
