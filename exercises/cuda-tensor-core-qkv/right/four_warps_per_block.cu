// A correct alternative: blocks of 128 threads, one warp per output tile,
// 4 tiles per block; a warp past the last tile leaves as a whole warp.
#include <attnlab/cuda.hpp>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

__global__ void to_half(__half* dst, const float* src, int n_real, int n_total) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_total) dst[i] = __float2half(i < n_real ? src[i] : 0.0f);
}

// c (Tp, N) = xh (Tp, D) · wh (D, N); warp w of block b takes tile b*4 + w.
__global__ void qkv_wmma_4(float* c, const __half* xh, const __half* wh, int Tp, int D, int N) {
    const int tile = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int tiles_per_row = N / 16;
    if (tile >= (Tp / 16) * tiles_per_row) return;  // the same for all 32 lanes of a warp
    const int tr = tile / tiles_per_row, tc = tile % tiles_per_row;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < D; k0 += 16) {
        wmma::load_matrix_sync(a, xh + tr * 16 * D + k0, D);
        wmma::load_matrix_sync(b, wh + k0 * N + tc * 16, N);
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(c + tr * 16 * N + tc * 16, acc, N, wmma::mem_row_major);
}

__global__ void split_qkv(float* out, const float* c, int T, int D) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 3 * T * D) return;
    const int j = i % D, t = (i / D) % T, p = i / (D * T);
    out[i] = c[t * 3 * D + p * D + j];
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1), N = 3 * D, Tp = ceil_div(T, 16) * 16;
    __half *xh = nullptr, *wh = nullptr;
    float* c = nullptr;
    cudaMalloc(&xh, sizeof(__half) * Tp * D);
    cudaMalloc(&wh, sizeof(__half) * D * N);
    cudaMalloc(&c, sizeof(float) * Tp * N);
    to_half<<<ceil_div(Tp * D, 256), 256>>>(xh, x.data(), T * D, Tp * D);  // row-major: the padding rows come last
    to_half<<<ceil_div(D * N, 256), 256>>>(wh, w_qkv.data(), D * N, D * N);
    const int tiles = (Tp / 16) * (N / 16);
    qkv_wmma_4<<<ceil_div(tiles, 4), 128>>>(c, xh, wh, Tp, D, N);
    split_qkv<<<ceil_div(3 * T * D, 256), 256>>>(out.data(), c, T, D);
    cudaFree(xh);
    cudaFree(wh);
    cudaFree(c);
}
