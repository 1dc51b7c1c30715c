// The fused QKV projection on the GPU: out (3, T, D) from x (T, D) and w_qkv (D, 3D)
//
//     C = x · w_qkv                      (T, 3D)
//     out[p, t, j] = C[t, p*D + j]       p = 0, 1, 2 for Q, K, V
//
// attnlab calls fused_qkv once per case; x and w_qkv are already in device
// memory, out holds garbage until a kernel writes it. Write C as a tiled
// GEMM: each block loads 16 x 16 tiles of x and w_qkv into __shared__ memory,
// with __syncthreads() where a tile must be complete or no longer read.
// T and D need not be multiples of 16.
#include <attnlab/cuda.hpp>

constexpr int kTile = 16;

// out: (3, T, D)   x: (T, D)   w: (D, 3D)
__global__ void qkv_gemm_kernel(float* out, const float* x, const float* w, int T, int D) {
    // TODO: this thread's element (t, n) of C, computed tile by tile over k,
    //       stored at its place in out.
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);

    // TODO: launch qkv_gemm_kernel<<<grid, block>>>(out.data(), x.data(), w_qkv.data(), T, D)
    //       with one 16 x 16 block per 16 x 16 tile of C. As it stands, nothing is launched.
    (void)out; (void)T; (void)D;
}
