// Wrong on purpose here: cuda-qkv-gemm's plain shared-memory tiled GEMM, one
// output per thread. Its values are right, but each multiply-add loads both
// factors from shared memory: 2 shared load requests per warp FMA.
#include <attnlab/cuda.hpp>

constexpr int kTile = 16;  // a block computes one 16 x 16 tile of C with 256 threads

// out: (3, T, D)   x: (T, D)   w: (D, 3D)
// C[t, n] = sum_k x[t, k] * w[k, n], and column n of C is column n % D of part n / D.
__global__ void qkv_gemm_kernel(float* out, const float* x, const float* w, int T, int D) {
    __shared__ float xs[kTile][kTile];  // a 16 x 16 tile of x: rows t0.., columns k0..
    __shared__ float ws[kTile][kTile];  // a 16 x 16 tile of w: rows k0.., columns n0..
    const int N = 3 * D;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int t = blockIdx.y * kTile + ty;  // this thread's row of C
    const int n = blockIdx.x * kTile + tx;  // this thread's column of C

    float acc = 0.0f;
    for (int k0 = 0; k0 < D; k0 += kTile) {
        // Each thread loads one element of each tile; outside the matrices, a 0.
        xs[ty][tx] = (t < T && k0 + tx < D) ? x[t * D + k0 + tx] : 0.0f;
        ws[ty][tx] = (k0 + ty < D && n < N) ? w[(k0 + ty) * N + n] : 0.0f;
        __syncthreads();  // both tiles are complete before anyone reads them
        for (int k = 0; k < kTile; ++k) acc += xs[ty][k] * ws[k][tx];
        __syncthreads();  // everyone is done reading before the next tiles overwrite them
    }
    if (t < T && n < N) {
        const int part = n / D, c = n % D;  // Q, K or V, and the column inside it
        out[(part * T + t) * D + c] = acc;
    }
}

// attnlab calls this once per case: x and w_qkv are already in device memory,
// out has shape (3, T, D) and holds garbage until a kernel writes it.
void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    const dim3 block(kTile, kTile);
    const dim3 grid(ceil_div(3 * D, kTile), ceil_div(T, kTile));  // x: columns of C, y: rows
    qkv_gemm_kernel<<<grid, block>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
