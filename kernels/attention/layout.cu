// Layout kernels: split/merge heads and the fused QKV projection (a tiled GEMM).
// Plain CUDA: nvcc compiles it as it is; for attnlab's CPU emulator it takes
// the path a learner's .cu takes (see cuda_compat.cuh).
//
// Notation: B batch, T tokens, D model width, H heads, hd = D / H head width.
#include "cuda_compat.cuh"

namespace attnlab::kernels::ATTNLAB_KERNEL_NS {

// ------------------------------------------------------------ split heads

// out: (B, H, T, hd), inp: (B, T, C) whose columns col0 .. col0 + H·hd - 1 are
// the D features to split (C = D for x; C = 3D with col0 = 0, D, 2D for the
// Q, K, V thirds of a fused qkv).
// Launch: one thread per output element, flat over (B, H, T, hd), 256 per
// block. Consecutive threads write consecutive out elements (coalesced) and
// read hd-long runs of one input row.
__global__ void split_heads_v1(float* out, const float* inp, int B, int T, int H,
                               int hd, int C, int col0) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * H * T * hd) return;
    const int j = idx % hd;
    const int t = (idx / hd) % T;
    const int h = (idx / (hd * T)) % H;
    const int b = idx / (hd * T * H);
    out[idx] = inp[(b * T + t) * C + col0 + h * hd + j];
}

emu::LaunchReport split_heads(float* out, const float* inp, int B, int T, int H, int hd,
                              int C, int col0) {
    const int threads = 256, total = B * H * T * hd;
    return ATTNLAB_LAUNCH(split_heads_v1, dim3((total + threads - 1) / threads), dim3(threads), 0, out,
                          inp, B, T, H, hd, C, col0);
}

// ------------------------------------------------------------ merge heads

// out: (B, T, D), inp: (B, H, T, hd), D = H·hd. The inverse of split_heads_v1.
// Launch: one thread per output element, flat over (B, T, D), 256 per block:
// writes are coalesced, reads are hd-long runs of one head's row.
__global__ void merge_heads_v1(float* out, const float* inp, int B, int T, int H, int hd) {
    const int D = H * hd;
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * T * D) return;
    const int c = idx % D;
    const int t = (idx / D) % T;
    const int b = idx / (D * T);
    const int h = c / hd, j = c % hd;
    out[idx] = inp[((b * H + h) * T + t) * hd + j];
}

emu::LaunchReport merge_heads(float* out, const float* inp, int B, int T, int H, int hd) {
    const int threads = 256, total = B * T * H * hd;
    return ATTNLAB_LAUNCH(merge_heads_v1, dim3((total + threads - 1) / threads), dim3(threads), 0, out,
                          inp, B, T, H, hd);
}

// -------------------------------------------------------------- tiled GEMM

#define GEMM_TILE 16

// out: (M, N), a: (M, K), w: (K, N); out = a · w. For the fused QKV
// projection M = B·T, K = D, N = 3D.
// Launch: grid (ceil(N/16), ceil(M/16)), block (16, 16); thread (tx, ty) owns
// out[row = 16·by + ty][col = 16·bx + tx]. Per step of 16 along K, the block
// stages a 16×16 tile of a and of w in shared memory (each thread loads one
// element of each; lanes of a warp read consecutive columns: coalesced), then
// every thread does 16 multiply-adds from shared memory. Tiles past the
// matrix edge are padded with zeros, so any M, N, K work.
__global__ void matmul_tiled_v1(float* out, const float* a, const float* w,
                                int M, int N, int K) {
    __shared__ float a_tile[GEMM_TILE][GEMM_TILE];
    __shared__ float w_tile[GEMM_TILE][GEMM_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * GEMM_TILE + ty;
    const int col = blockIdx.x * GEMM_TILE + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += GEMM_TILE) {
        const float a_val = (row < M && k0 + tx < K) ? float(a[row * K + k0 + tx]) : 0.0f;
        const float w_val = (k0 + ty < K && col < N) ? float(w[(k0 + ty) * N + col]) : 0.0f;
        a_tile[ty][tx] = a_val;
        w_tile[ty][tx] = w_val;
        __syncthreads();  // the tiles are complete before anyone reads them
        for (int kk = 0; kk < GEMM_TILE; ++kk) acc += a_tile[ty][kk] * w_tile[kk][tx];
        __syncthreads();  // everyone is done reading before the next tiles overwrite them
    }
    if (row < M && col < N) out[row * N + col] = acc;
}

emu::LaunchReport matmul(float* out, const float* a, const float* w, int M, int N,
                         int K) {
    const dim3 grid((N + GEMM_TILE - 1) / GEMM_TILE, (M + GEMM_TILE - 1) / GEMM_TILE);
    return ATTNLAB_LAUNCH(matmul_tiled_v1, grid, dim3(GEMM_TILE, GEMM_TILE), 0, out, a, w, M, N, K);
}

}  // namespace attnlab::kernels::ATTNLAB_KERNEL_NS
