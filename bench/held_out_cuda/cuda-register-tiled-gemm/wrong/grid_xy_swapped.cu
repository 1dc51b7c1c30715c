// Wrong: grid launched as (row tiles, column tiles) while the kernel reads blockIdx.x as the column tile; only tiles inside both counts are computed (T = 257, D = 64: 5 x 3 grid for 3 x 5 tiles), the rest of out is never written; expect output_not_written.
#include <cuda_runtime.h>

constexpr int BM = 64, BN = 64, BK = 16;

__global__ void qkv_tiled(float* out, const float* x, const float* w, int T, int D) {
    __shared__ float xs[BM][BK + 1];
    __shared__ float ws[BK][BN];
    const int N = 3 * D, tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < D; k0 += BK) {
        for (int e = tid; e < BM * BK; e += 256) {
            const int m = e / BK, k = e % BK;
            xs[m][k] = (row0 + m < T && k0 + k < D) ? x[(row0 + m) * D + k0 + k] : 0.f;
        }
        for (int e = tid; e < BK * BN; e += 256) {
            const int k = e / BN, n = e % BN;
            ws[k][n] = (k0 + k < D && col0 + n < N) ? w[(k0 + k) * N + col0 + n] : 0.f;
        }
        __syncthreads();
        for (int k = 0; k < BK; ++k) {
            float a[4], b[4];
            for (int i = 0; i < 4; ++i) a[i] = xs[ty + 16 * i][k];
            for (int j = 0; j < 4; ++j) b[j] = ws[k][tx + 16 * j];
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            const int t = row0 + ty + 16 * i, c = col0 + tx + 16 * j;
            if (t < T && c < N) out[(c / D) * T * D + t * D + c % D] = acc[i][j];
        }
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    const dim3 grid(ceil_div(T, BM), ceil_div(3 * D, BN));  // swapped: x should count column tiles
    qkv_tiled<<<grid, dim3(16, 16)>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
