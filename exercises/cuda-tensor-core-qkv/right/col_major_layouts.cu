// A correct alternative with the other layouts: W is copied transposed, (3D, D),
// and read as a col_major matrix_b; each tile of C is stored column by column
// (mem_col_major) into a (3D, Tp) buffer; the accumulator starts from a
// loaded tile of zeros instead of fill_fragment.
#include <attnlab/cuda.hpp>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// xh (Tp, D): x with zero rows below T.   wt (N, D): wt[n][k] = w[k][n].
__global__ void convert(__half* xh, __half* wt, const float* x, const float* w, int T, int Tp, int D, int N) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < Tp * D) xh[i] = __float2half(i / D < T ? x[i] : 0.0f);
    if (i < N * D) {
        const int n = i / D, k = i % D;
        wt[i] = __float2half(w[k * N + n]);
    }
}

// ct (N, Tp): ct[n][t] = C[t][n]
__global__ void qkv_wmma_cols(float* ct, const __half* xh, const __half* wt, const float* zeros, int Tp, int D) {
    const int tr = blockIdx.y, tc = blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;  // element (k, n) at p[n*ldm + k]
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::load_matrix_sync(acc, zeros, 16, wmma::mem_row_major);
    for (int k0 = 0; k0 < D; k0 += 16) {
        wmma::load_matrix_sync(a, xh + tr * 16 * D + k0, D);
        wmma::load_matrix_sync(b, wt + tc * 16 * D + k0, D);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(ct + tc * 16 * Tp + tr * 16, acc, Tp, wmma::mem_col_major);
}

__global__ void split_from_columns(float* out, const float* ct, int T, int Tp, int D) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 3 * T * D) return;
    const int j = i % D, t = (i / D) % T, p = i / (D * T);
    out[i] = ct[(p * D + j) * Tp + t];
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1), N = 3 * D, Tp = ceil_div(T, 16) * 16;
    __half *xh = nullptr, *wt = nullptr;
    float *ct = nullptr, *zeros = nullptr;
    cudaMalloc(&xh, sizeof(__half) * Tp * D);
    cudaMalloc(&wt, sizeof(__half) * N * D);
    cudaMalloc(&ct, sizeof(float) * N * Tp);
    cudaMalloc(&zeros, sizeof(float) * 256);
    cudaMemset(zeros, 0, sizeof(float) * 256);
    convert<<<ceil_div(N * D > Tp * D ? N * D : Tp * D, 256), 256>>>(xh, wt, x.data(), w_qkv.data(), T, Tp, D, N);
    qkv_wmma_cols<<<dim3(N / 16, Tp / 16), 32>>>(ct, xh, wt, zeros, Tp, D);
    split_from_columns<<<ceil_div(3 * T * D, 256), 256>>>(out.data(), ct, T, Tp, D);
    cudaFree(xh);
    cudaFree(wt);
    cudaFree(ct);
    cudaFree(zeros);
}
