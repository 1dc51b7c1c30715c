// A correct alternative with no __half copies in global memory: each warp
// converts its 16 x 16 tiles of x and w from float into __shared__ __half
// tiles (32-byte aligned), zero-padding the rows past T, and loads its
// fragments from there. The output tile goes through shared memory too, and
// only its rows below T are written to out.
#include <attnlab/cuda.hpp>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// out (3, T, D); one block of one warp per 16 x 16 tile of C = x · w.
__global__ void qkv_wmma_shared(float* out, const float* x, const float* w, int T, int D) {
    __shared__ __align__(32) __half xs[16 * 16];
    __shared__ __align__(32) __half ws[16 * 16];
    __shared__ __align__(32) float cs[16 * 16];
    const int N = 3 * D, lane = threadIdx.x;
    const int t0 = blockIdx.y * 16, n0 = blockIdx.x * 16;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < D; k0 += 16) {
        for (int e = lane; e < 256; e += 32) {
            const int r = e / 16, col = e % 16;
            xs[e] = __float2half(t0 + r < T ? x[(t0 + r) * D + k0 + col] : 0.0f);
            ws[e] = __float2half(w[(k0 + r) * N + n0 + col]);
        }
        __syncwarp();  // the tiles are complete before the warp loads them
        wmma::load_matrix_sync(a, xs, 16);
        wmma::load_matrix_sync(b, ws, 16);
        wmma::mma_sync(acc, a, b, acc);
        __syncwarp();  // loaded before the next round overwrites them
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
    qkv_wmma_shared<<<dim3(3 * D / 16, ceil_div(T, 16)), 32>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
