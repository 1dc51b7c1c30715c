// Correct: template<BM, BN, BK, TM, TN> instantiated 128 x 64 x 8 with an 8 x 4 micro-tile; thread (tx, ty) owns rows ty + 16i and columns tx + 16j (strided), scalar register fills from xs[m][k] / ws[k][n]; 12 shared loads per 32 FMAs.
#include <cuda_runtime.h>

template <int BM, int BN, int BK, int TM, int TN>
__global__ void qkv_gemm_rt(float* out, const float* x, const float* w, int T, int D) {
    constexpr int TX = BN / TN, TY = BM / TM, NT = TX * TY;
    __shared__ float xs[BM][BK + 1];
    __shared__ float ws[BK][BN];
    const int N = 3 * D;
    const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;
    const int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
    float c[TM][TN] = {};
    float a[TM], b[TN];

    for (int k0 = 0; k0 < D; k0 += BK) {
        for (int e = threadIdx.x; e < BM * BK; e += NT) {
            const int m = e / BK, k = e % BK;
            xs[m][k] = (bm + m < T && k0 + k < D) ? x[(size_t)(bm + m) * D + k0 + k] : 0.0f;
        }
        for (int e = threadIdx.x; e < BK * BN; e += NT) {
            const int k = e / BN, n = e % BN;
            ws[k][n] = (k0 + k < D && bn + n < N) ? w[(size_t)(k0 + k) * N + bn + n] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) a[i] = xs[ty + TY * i][k];
#pragma unroll
            for (int j = 0; j < TN; ++j) b[j] = ws[k][tx + TX * j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) c[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i) {
        const int t = bm + ty + TY * i;
        for (int j = 0; j < TN; ++j) {
            const int col = bn + tx + TX * j;
            if (t < T && col < N) out[(size_t)(col / D) * T * D + (size_t)t * D + col % D] = c[i][j];
        }
    }
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    constexpr int BM = 128, BN = 64, BK = 8, TM = 8, TN = 4;
    const dim3 grid(ceil_div(3 * D, BN), ceil_div(T, BM));
    qkv_gemm_rt<BM, BN, BK, TM, TN><<<grid, (BM / TM) * (BN / TN)>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
