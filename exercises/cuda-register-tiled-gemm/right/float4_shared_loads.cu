// A correct alternative: each thread owns a contiguous 4 x 4 block of C, and
// the tile of x is stored transposed (k first), so the 4 numbers of x and the
// 4 numbers of w a step needs lie side by side in shared memory: one float4
// load each, 2 shared load requests for 16 multiply-adds.
#include <attnlab/cuda.hpp>

constexpr int kBM = 64, kBN = 64, kBK = 8;
constexpr int kTM = 4, kTN = 4;
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);  // 256

// out: (3, T, D)   x: (T, D)   w: (D, 3D)
__global__ void qkv_float4_micro_tiles(float* out, const float* x, const float* w, int T, int D) {
    __shared__ __align__(16) float xs_t[kBK][kBM];  // x's tile transposed: xs_t[k][r] = x[t0 + r, k0 + k]
    __shared__ __align__(16) float ws[kBK][kBN];
    const int N = 3 * D;
    const int tid = threadIdx.x;
    const int r0 = (tid / (kBN / kTN)) * kTM, c0 = (tid % (kBN / kTN)) * kTN;  // this thread's 4 x 4 corner
    const int t0 = blockIdx.y * kBM, n0 = blockIdx.x * kBN;

    float acc[kTM][kTN] = {};
    for (int k0 = 0; k0 < D; k0 += kBK) {
        for (int e = tid; e < kBM * kBK; e += kThreads) {  // 2 elements of each tile per thread
            const int r = e / kBK, k = e % kBK;
            xs_t[k][r] = (t0 + r < T && k0 + k < D) ? x[(t0 + r) * D + k0 + k] : 0.0f;
            const int kw = e / kBN, c = e % kBN;
            ws[kw][c] = (k0 + kw < D && n0 + c < N) ? w[(k0 + kw) * N + n0 + c] : 0.0f;
        }
        __syncthreads();
        for (int k = 0; k < kBK; ++k) {
            const float4 a = *reinterpret_cast<const float4*>(&xs_t[k][r0]);
            const float4 b = *reinterpret_cast<const float4*>(&ws[k][c0]);
            const float av[kTM] = {a.x, a.y, a.z, a.w}, bv[kTN] = {b.x, b.y, b.z, b.w};
            for (int i = 0; i < kTM; ++i)
                for (int j = 0; j < kTN; ++j) acc[i][j] += av[i] * bv[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < kTM; ++i)
        for (int j = 0; j < kTN; ++j) {
            const int t = t0 + r0 + i, n = n0 + c0 + j;
            if (t < T && n < N) out[((n / D) * T + t) * D + n % D] = acc[i][j];
        }
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    qkv_float4_micro_tiles<<<dim3(ceil_div(3 * D, kBN), ceil_div(T, kBM)), kThreads>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
