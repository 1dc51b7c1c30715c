// A correct alternative: 32 x 32 tiles with blocks of 32 x 8 threads, each
// thread computing 4 rows of C, so a tile of x and w is reused 4 times more.
#include <attnlab/cuda.hpp>

constexpr int kTile = 32, kRows = 8, kPerThread = kTile / kRows;

// out: (3, T, D)   x: (T, D)   w: (D, 3D)
__global__ void qkv_gemm_32(float* out, const float* x, const float* w, int T, int D) {
    __shared__ float xs[kTile][kTile + 1];  // +1: the column reads of xs hit different banks
    __shared__ float ws[kTile][kTile];
    const int N = 3 * D;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int t0 = blockIdx.y * kTile, n = blockIdx.x * kTile + tx;
    float acc[kPerThread] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (int k0 = 0; k0 < D; k0 += kTile) {
        for (int r = ty; r < kTile; r += kRows) {
            const int t = t0 + r, k = k0 + r;
            xs[r][tx] = (t < T && k0 + tx < D) ? x[t * D + k0 + tx] : 0.0f;
            ws[r][tx] = (k < D && n < N) ? w[k * N + n] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < kTile; ++k) {
            const float wv = ws[k][tx];
            for (int i = 0; i < kPerThread; ++i) acc[i] += xs[ty + i * kRows][k] * wv;
        }
        __syncthreads();
    }
    for (int i = 0; i < kPerThread; ++i) {
        const int t = t0 + ty + i * kRows;
        if (t < T && n < N) out[((n / D) * T + t) * D + n % D] = acc[i];
    }
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    qkv_gemm_32<<<dim3(ceil_div(3 * D, kTile), ceil_div(T, kTile)), dim3(kTile, kRows)>>>(
        out.data(), x.data(), w_qkv.data(), T, D);
}
