// Wrong: C stored as out[t][n] (no split into Q,K,V parts: (T,3D) buffer read as (3,T,D)); expect qkv_split_without_transpose.
#include <cuda_runtime.h>
#define TILE 16
__global__ void gemm_qkv(float* out, const float* x, const float* w, int T, int D) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int N = 3 * D;
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < D; k0 += TILE) {
        As[threadIdx.y][threadIdx.x] = (row < T && k0 + threadIdx.x < D) ? x[row * D + k0 + threadIdx.x] : 0.f;
        Bs[threadIdx.y][threadIdx.x] = (k0 + threadIdx.y < D && col < N) ? w[(k0 + threadIdx.y) * N + col] : 0.f;
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TILE; ++kk) acc += As[threadIdx.y][kk] * Bs[kk][threadIdx.x];
        __syncthreads();
    }
    if (row < T && col < N) {
        int p = col / D, j = col % D;
        out[(size_t)row * N + col] = acc; (void)p; (void)j;
    }
}
void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    int T = x.size(0), D = x.size(1);
    dim3 grid(ceil_div(3 * D, TILE), ceil_div(T, TILE));
    gemm_qkv<<<grid, dim3(TILE, TILE)>>>(out.data(), x.data(), w_qkv.data(), T, D);
}
