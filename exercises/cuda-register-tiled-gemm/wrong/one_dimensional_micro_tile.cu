// Wrong on purpose here: a 1-D micro-tile. Each thread computes 8 rows of one
// column of C, so the number it loads from the tile of w serves 8 multiply-adds,
// but each number of x still serves one: 8 + 1 shared loads for 8 FMAs, at
// least 1 per FMA whatever the length. Only a 2-D micro-tile reuses both.
#include <attnlab/cuda.hpp>

constexpr int kBM = 64, kBN = 64, kBK = 8;
constexpr int kTM = 8;                         // rows per thread
constexpr int kThreads = kBM / kTM * kBN;      // 512 threads: 64 columns x 8 groups of rows

// out: (3, T, D)   x: (T, D)   w: (D, 3D)
__global__ void qkv_column_strips(float* out, const float* x, const float* w, int T, int D) {
    __shared__ float xs[kBM][kBK + 1];  // +1: the 8 rows a thread reads fall in different banks
    __shared__ float ws[kBK][kBN];
    const int N = 3 * D;
    const int col = threadIdx.x % kBN, row_group = threadIdx.x / kBN;  // rows row_group*8 .. +7
    const int t0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;

    float acc[kTM] = {};
    for (int k0 = 0; k0 < D; k0 += kBK) {
        {
            const int r = threadIdx.x / kBK, k = threadIdx.x % kBK;  // 512 = 64 x 8 elements of each tile
            xs[r][k] = (t0 + r < T && k0 + k < D) ? x[(t0 + r) * D + k0 + k] : 0.0f;
            const int kw = threadIdx.x / kBN, c = threadIdx.x % kBN;
            ws[kw][c] = (k0 + kw < D && n0 + c < N) ? w[(k0 + kw) * N + n0 + c] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < kBK; ++k) {
            const float b = ws[k][col];  // one load, reused 8 times
            for (int i = 0; i < kTM; ++i) acc[i] += xs[row_group * kTM + i][k] * b;  // one load per FMA
        }
        __syncthreads();
    }
    const int n = n0 + col;
    for (int i = 0; i < kTM; ++i) {
        const int t = t0 + row_group * kTM + i;
        if (t < T && n < N) out[((n / D) * T + t) * D + n % D] = acc[i];
    }
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    qkv_column_strips<<<dim3(ceil_div(3 * D, kBN), ceil_div(T, kBM)), kThreads>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
