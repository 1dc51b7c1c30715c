// Correct (a probe): 4 x 4 micro-tile whose inner loop reads both operands straight from shared memory, acc[i][j] += xs[ty*4+i][k] * ws[k][tx*4+j], no explicit register arrays; with the loops unrolled nvcc keeps each of the 8 values in a register (no store or barrier between), so the PTX of nvcc -O2 has 8 ld.shared per 16 fma per k step, like the explicit version. Does attnlab count source accesses (32 per 16 FMAs: 2.0, over the limit) or instructions? [attnlab 2026-12-03: shared_loads_not_reused, 2.49 per warp FMA counted per source access; nvcc -O2 PTX has 128 ld.shared.f32 for 256 fma.rn.f32 per k-tile, 0.5]
#include <cuda_runtime.h>

constexpr int kBM = 64, kBN = 64, kBK = 16, kTM = 4, kTN = 4;

__global__ void qkv_rt(float* out, const float* x, const float* w, int T, int D) {
    __shared__ float xs[kBM][kBK];
    __shared__ float ws[kBK][kBN];
    const int N = 3 * D, tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
    float acc[kTM][kTN] = {};
    for (int k0 = 0; k0 < D; k0 += kBK) {
        for (int e = tid; e < kBM * kBK; e += 256) {
            const int m = e / kBK, k = e % kBK;
            xs[m][k] = (row0 + m < T && k0 + k < D) ? x[(row0 + m) * D + k0 + k] : 0.f;
        }
        for (int e = tid; e < kBK * kBN; e += 256) {
            const int k = e / kBN, n = e % kBN;
            ws[k][n] = (k0 + k < D && col0 + n < N) ? w[(k0 + k) * N + col0 + n] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < kBK; ++k)
#pragma unroll
            for (int i = 0; i < kTM; ++i)
#pragma unroll
                for (int j = 0; j < kTN; ++j) acc[i][j] += xs[ty * kTM + i][k] * ws[k][tx * kTN + j];
        __syncthreads();
    }
    for (int i = 0; i < kTM; ++i)
        for (int j = 0; j < kTN; ++j) {
            const int t = row0 + ty * kTM + i, c = col0 + tx * kTN + j;
            if (t < T && c < N) out[(c / D) * T * D + t * D + c % D] = acc[i][j];
        }
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    qkv_rt<<<dim3(ceil_div(3 * D, kBN), ceil_div(T, kBM)), dim3(16, 16)>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
