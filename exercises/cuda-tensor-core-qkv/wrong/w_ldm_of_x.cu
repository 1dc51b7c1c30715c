// Wrong on purpose: W's fragment is loaded with ldm = D, x's row length,
// although w_qkv's rows are N = 3D elements apart.
#include <attnlab/cuda.hpp>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

constexpr int kTile = 16;

// dst (rows_padded, cols) in __half from src (rows, cols) in float; the
// padding rows rows ... rows_padded - 1 become 0.
__global__ void to_half_padded(__half* dst, const float* src, int rows, int rows_padded, int cols) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows_padded * cols) return;
    const int r = i / cols;
    dst[i] = __float2half(r < rows ? src[i] : 0.0f);
}

// c (Tp, N) = xh (Tp, D) · wh (D, N); one warp (32 threads) per 16 x 16 tile of c.
__global__ void qkv_wmma(float* c, const __half* xh, const __half* wh, int D, int N) {
    const int tile_row = blockIdx.y, tile_col = blockIdx.x;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < D; k0 += kTile) {  // hd = 64: 4 steps of 16
        wmma::load_matrix_sync(a, xh + tile_row * kTile * D + k0, D);   // rows of x, columns k0..k0+15
        wmma::load_matrix_sync(b, wh + k0 * N + tile_col * kTile, D);   // ldm D: the width of x, not of w
        wmma::mma_sync(acc, a, b, acc);
    }
    wmma::store_matrix_sync(c + tile_row * kTile * N + tile_col * kTile, acc, N, wmma::mem_row_major);
}

// out (3, T, D) from c (Tp, 3D): out[p, t, j] = c[t, p*D + j] for the T real rows.
__global__ void split_qkv(float* out, const float* c, int T, int D) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 3 * T * D) return;
    const int j = i % D, t = (i / D) % T, p = i / (D * T);
    out[i] = c[t * 3 * D + p * D + j];
}

// attnlab calls this once per case: x (T, D) and w_qkv (D, 3D) are in device
// memory as float, D is a multiple of 16, T is not always one.
void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1), N = 3 * D;
    const int Tp = ceil_div(T, kTile) * kTile;  // rows rounded up to whole tiles
    __half *xh = nullptr, *wh = nullptr;
    float* c = nullptr;
    cudaMalloc(&xh, sizeof(__half) * Tp * D);
    cudaMalloc(&wh, sizeof(__half) * D * N);
    cudaMalloc(&c, sizeof(float) * Tp * N);
    to_half_padded<<<ceil_div(Tp * D, 256), 256>>>(xh, x.data(), T, Tp, D);
    to_half_padded<<<ceil_div(D * N, 256), 256>>>(wh, w_qkv.data(), D, D, N);
    qkv_wmma<<<dim3(N / kTile, Tp / kTile), 32>>>(c, xh, wh, D, N);
    split_qkv<<<ceil_div(3 * T * D, 256), 256>>>(out.data(), c, T, D);
    cudaFree(xh);
    cudaFree(wh);
    cudaFree(c);
}
