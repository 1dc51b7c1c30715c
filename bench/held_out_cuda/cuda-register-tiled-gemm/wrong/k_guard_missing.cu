// Wrong: the tile loads guard rows (r < T) and columns (c < 3D) but not k (k0 + k < D): the last, partial step along k reads x past its row (into the next row) and w past its last row; expect out_of_bounds (w read past D rows) or wrong_answer.
#include <cuda_runtime.h>

constexpr int BM = 64, BN = 64, BK = 16;

__global__ void qkv_tiled(float* out, const float* x, const float* w, int T, int D) {
    __shared__ float xs[BK][BM + 4];
    __shared__ float ws[BK][BN];
    const int N = 3 * D, tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < D; k0 += BK) {
        for (int e = tid; e < BM * BK; e += 256) {
            const int m = e / BK, k = e % BK;
            xs[k][m] = row0 + m < T ? x[(row0 + m) * D + k0 + k] : 0.f;   // k0 + k may be >= D
        }
        for (int e = tid; e < BK * BN; e += 256) {
            const int k = e / BN, n = e % BN;
            ws[k][n] = col0 + n < N ? w[(k0 + k) * N + col0 + n] : 0.f;   // row k0 + k may be >= D
        }
        __syncthreads();
        for (int k = 0; k < BK; ++k) {
            float a[4], b[4];
            for (int i = 0; i < 4; ++i) a[i] = xs[k][ty + 16 * i];
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
    qkv_tiled<<<dim3(ceil_div(3 * D, BN), ceil_div(T, BM)), dim3(16, 16)>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
