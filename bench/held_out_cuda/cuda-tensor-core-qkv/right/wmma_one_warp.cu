// Correct: __half conversion kernels (x zero-padded to Tp rows), one warp per 16x16 tile of C with wmma row_major fragments, split kernel, cudaFree.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;
__global__ void to_half_pad(__half* dst, const float* src, int rows, int rows_pad, int cols) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows_pad * cols) return;
    int r = i / cols;
    dst[i] = r < rows ? __float2half(src[i]) : __float2half(0.0f);
}
__global__ void wmma_gemm(float* C, const __half* A, const __half* Bm, int N, int K) {
    int tn = blockIdx.x, tm = blockIdx.y;   // one warp (32 threads) per block
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 0.0f);
    for (int k0 = 0; k0 < K; k0 += 16) {
        wmma::load_matrix_sync(a, A + (size_t)tm * 16 * K + k0, K);
        wmma::load_matrix_sync(b, Bm + (size_t)k0 * N + tn * 16, N);
        wmma::mma_sync(c, a, b, c);
    }
    wmma::store_matrix_sync(C + (size_t)tm * 16 * N + tn * 16, c, N, wmma::mem_row_major);
}
__global__ void split_qkv(float* out, const float* c, int T, int D) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 3 * T * D) return;
    const int j = i % D, t = (i / D) % T, p = i / (D * T);
    out[i] = c[t * 3 * D + p * D + j];
}
void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1), N = 3 * D, Tp = ceil_div(T, 16) * 16;
    __half *xh, *wh; float* C;
    cudaMalloc(&xh, sizeof(__half) * Tp * D);
    cudaMalloc(&wh, sizeof(__half) * D * N);
    cudaMalloc(&C, sizeof(float) * Tp * N);
    to_half_pad<<<ceil_div(Tp * D, 256), 256>>>(xh, x.data(), T, Tp, D);
    to_half_pad<<<ceil_div(D * N, 256), 256>>>(wh, w_qkv.data(), D, D, N);
    wmma_gemm<<<dim3(N / 16, Tp / 16), 32>>>(C, xh, wh, N, D);
    split_qkv<<<ceil_div(3 * T * D, 128), 128>>>(out.data(), C, T, D);
    cudaFree(xh); cudaFree(wh); cudaFree(C);
}
