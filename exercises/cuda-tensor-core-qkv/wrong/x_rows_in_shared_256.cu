// Wrong on purpose: like right/shared_staging.cu, but each warp converts its
// 16 whole rows of x to __half in shared memory once, sized for D up to 256,
// "more than a head's 64", and loads its A fragments from there. At the
// model's width, D = 768, the conversion runs past the end of xs. Every D up
// to 256 is right.
#include <attnlab/cuda.hpp>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

constexpr int kMaxD = 256;  // room for every D the small cases have

// out (3, T, D); one block of one warp per 16 x 16 tile of C = x · w.
__global__ void qkv_wmma_rows(float* out, const float* x, const float* w, int T, int D) {
    __shared__ __align__(32) __half xs[16 * kMaxD];  // rows t0.. of x, whole, row stride D
    __shared__ __align__(32) __half ws[16 * 16];
    __shared__ __align__(32) float cs[16 * 16];
    const int N = 3 * D, lane = threadIdx.x;
    const int t0 = blockIdx.y * 16, n0 = blockIdx.x * 16;
    for (int e = lane; e < 16 * D; e += 32) {
        const int r = e / D;
        xs[e] = __float2half(t0 + r < T ? x[(t0 + r) * D + e % D] : 0.0f);
    }
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < D; k0 += 16) {
        for (int e = lane; e < 256; e += 32) ws[e] = __float2half(w[(k0 + e / 16) * N + n0 + e % 16]);
        __syncwarp();  // the tile of w (and, the first time, xs) is complete
        wmma::load_matrix_sync(a, xs + k0, D);
        wmma::load_matrix_sync(b, ws, 16);
        wmma::mma_sync(acc, a, b, acc);
        __syncwarp();  // loaded before the next round overwrites ws
    }
    wmma::store_matrix_sync(cs, acc, 16, wmma::mem_row_major);
    __syncwarp();
    for (int e = lane; e < 256; e += 32) {
        const int t = t0 + e / 16, n = n0 + e % 16;
        if (t < T) out[((n / D) * T + t) * D + n % D] = cs[e];
    }
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    qkv_wmma_rows<<<dim3(3 * D / 16, ceil_div(T, 16)), 32>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
