// Wrong on purpose: one block per column of tiles of C, one warp per row of
// tiles, in a fixed block of 16 warps and no loop over the rows: 16 tiles
// are 256 rows. A C with more (T = 257: 17 row tiles) keeps its last tile
// unwritten, and the split reads those rows of the scratch buffer unset.
// Every T up to 256 is right.
#include <attnlab/cuda.hpp>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

constexpr int kTile = 16;
constexpr int kWarps = 16;  // one per row of tiles: enough for every T the small cases have

// dst (rows_padded, cols) in __half from src (rows, cols) in float; the
// padding rows rows ... rows_padded - 1 become 0.
__global__ void to_half_padded(__half* dst, const float* src, int rows, int rows_padded, int cols) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows_padded * cols) return;
    const int r = i / cols;
    dst[i] = __float2half(r < rows ? src[i] : 0.0f);
}

// c (Tp, N) = xh (Tp, D) · wh (D, N); block j computes column of tiles j,
// warp i of it the tile in row of tiles i.
__global__ void qkv_wmma(float* c, const __half* xh, const __half* wh, int Tp, int D, int N) {
    const int tile_row = threadIdx.x / 32, tile_col = blockIdx.x;
    if (tile_row * kTile >= Tp) return;  // a whole warp past the last tile leaves
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < D; k0 += kTile) {  // hd = 64: 4 steps of 16
        wmma::load_matrix_sync(a, xh + tile_row * kTile * D + k0, D);   // rows of x, columns k0..k0+15
        wmma::load_matrix_sync(b, wh + k0 * N + tile_col * kTile, N);   // rows k0..k0+15 of w
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
    qkv_wmma<<<N / kTile, 32 * kWarps>>>(c, xh, wh, Tp, D, N);
    split_qkv<<<ceil_div(3 * T * D, 256), 256>>>(out.data(), c, T, D);
    cudaFree(xh);
    cudaFree(wh);
    cudaFree(c);
}
