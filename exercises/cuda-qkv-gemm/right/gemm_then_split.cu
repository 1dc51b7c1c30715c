// A correct alternative: a plain tiled GEMM into a (T, 3D) scratch buffer,
// then a second kernel that splits it into (3, T, D), one thread per element.
#include <attnlab/cuda.hpp>

constexpr int kTile = 16;

// c: (T, N) = x (T, K) · w (K, N)
__global__ void gemm(float* c, const float* x, const float* w, int T, int K, int N) {
    __shared__ float xs[kTile][kTile], ws[kTile][kTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int t = blockIdx.y * kTile + ty, n = blockIdx.x * kTile + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += kTile) {
        xs[ty][tx] = (t < T && k0 + tx < K) ? x[t * K + k0 + tx] : 0.0f;
        ws[ty][tx] = (k0 + ty < K && n < N) ? w[(k0 + ty) * N + n] : 0.0f;
        __syncthreads();
        for (int k = 0; k < kTile; ++k) acc += xs[ty][k] * ws[k][tx];
        __syncthreads();
    }
    if (t < T && n < N) c[t * N + n] = acc;
}

// out (3, T, D) from c (T, 3D): out[p, t, j] = c[t, p*D + j]
__global__ void split_qkv(float* out, const float* c, int T, int D) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= 3 * T * D) return;
    const int j = i % D, t = (i / D) % T, p = i / (D * T);
    out[i] = c[t * 3 * D + p * D + j];
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);
    float* c = nullptr;
    cudaMalloc(&c, sizeof(float) * T * 3 * D);
    gemm<<<dim3(ceil_div(3 * D, kTile), ceil_div(T, kTile)), dim3(kTile, kTile)>>>(c, x.data(), w_qkv.data(), T, D, 3 * D);
    split_qkv<<<ceil_div(3 * T * D, 256), 256>>>(out.data(), c, T, D);
    cudaFree(c);
}
