// Wrong on purpose: a block keeps its 16 whole rows of x in shared memory,
// loaded once, and streams the tiles of w past them. The rows are sized for
// D up to 256, "more than a head's 64"; at the model's width, D = 768, the
// loads run past the end of xs. Every D up to 256 is right.
#include <attnlab/cuda.hpp>

constexpr int kTile = 16;
constexpr int kMaxD = 256;  // room for every D the small cases have

// out: (3, T, D)   x: (T, D)   w: (D, 3D)
__global__ void qkv_gemm_rows(float* out, const float* x, const float* w, int T, int D) {
    __shared__ float xs[kTile][kMaxD];  // rows t0.. of x, whole
    __shared__ float ws[kTile][kTile];  // a 16 x 16 tile of w: rows k0.., columns n0..
    const int N = 3 * D;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int t = blockIdx.y * kTile + ty;
    const int n = blockIdx.x * kTile + tx;

    for (int k = tx; k < D; k += kTile) xs[ty][k] = t < T ? x[t * D + k] : 0.0f;
    float acc = 0.0f;
    for (int k0 = 0; k0 < D; k0 += kTile) {
        ws[ty][tx] = (k0 + ty < D && n < N) ? w[(k0 + ty) * N + n] : 0.0f;
        __syncthreads();  // the tile of w (and, the first time, xs) is complete
        for (int k = 0; k < kTile && k0 + k < D; ++k) acc += xs[ty][k0 + k] * ws[k][tx];
        __syncthreads();  // everyone is done with this tile of w
    }
    if (t < T && n < N) out[((n / D) * T + t) * D + n % D] = acc;
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    const dim3 block(kTile, kTile);
    const dim3 grid(ceil_div(3 * D, kTile), ceil_div(T, kTile));
    qkv_gemm_rows<<<grid, block>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
