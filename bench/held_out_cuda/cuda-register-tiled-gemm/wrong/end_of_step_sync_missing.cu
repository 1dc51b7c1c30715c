// Wrong: the __syncthreads after the loads is there, the one at the end of each k step is not: a fast warp overwrites xs/ws with the next step's tile while slower warps still multiply the current one; expect shared_race (loop wrap-around advice).
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
            for (int i = 0; i < 4; ++i) a[i] = xs[ty * 4 + i][k];
            for (int j = 0; j < 4; ++j) b[j] = ws[k][tx * 4 + j];
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) acc[i][j] += a[i] * b[j];
        }
        // missing: __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            const int t = row0 + ty * 4 + i, c = col0 + tx * 4 + j;
            if (t < T && c < N) out[(c / D) * T * D + t * D + c % D] = acc[i][j];
        }
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    qkv_tiled<<<dim3(ceil_div(3 * D, BN), ceil_div(T, BM)), dim3(16, 16)>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
