// Wrong on purpose: one block per strip of 16 columns of C, one thread per
// row, in a fixed block of 256 threads and no loop over the rows. The tile of
// w is shared, so the reads stay few; but a C with more rows than the block
// (T = 257) keeps its last rows unwritten. Every T up to 256 is right.
#include <attnlab/cuda.hpp>

constexpr int kThreads = 256;  // one per row: enough for every T the small cases have
constexpr int kCols = 16;      // the strip of C a block owns, and the height of a tile of w

// out: (3, T, D)   x: (T, D)   w: (D, 3D)
__global__ void qkv_strip_kernel(float* out, const float* x, const float* w, int T, int D) {
    __shared__ float ws[kCols][kCols];  // rows k0.., columns n0.. of w
    const int N = 3 * D;
    const int t = threadIdx.x;  // this thread's row of C: none past the block
    const int n0 = blockIdx.x * kCols;
    float acc[kCols] = {};
    for (int k0 = 0; k0 < D; k0 += kCols) {
        const int r = threadIdx.x / kCols, c = threadIdx.x % kCols;  // 256 threads, 256 elements of the tile
        ws[r][c] = (k0 + r < D && n0 + c < N) ? w[(k0 + r) * N + n0 + c] : 0.0f;
        __syncthreads();
        if (t < T)
            for (int k = 0; k < kCols && k0 + k < D; ++k) {
                const float xv = x[t * D + k0 + k];
                for (int c = 0; c < kCols; ++c) acc[c] += xv * ws[k][c];
            }
        __syncthreads();
    }
    if (t >= T) return;
    for (int c = 0; c < kCols && n0 + c < N; ++c) {
        const int n = n0 + c;
        out[((n / D) * T + t) * D + n % D] = acc[c];
    }
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    qkv_strip_kernel<<<ceil_div(3 * D, kCols), kThreads>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
