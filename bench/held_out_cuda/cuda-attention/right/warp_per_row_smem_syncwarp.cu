// Correct: as warp_per_row_scratch.cu but each warp keeps its probability row in shared memory (__shared__ float P[4][257]), __syncwarp between lanes writing and reading it.
#include <cuda_runtime.h>
#include <math.h>
__inline__ __device__ float wmax(float x) { for (int o = 16; o > 0; o /= 2) x = fmaxf(x, __shfl_down_sync(0xffffffffu, x, o)); return __shfl_sync(0xffffffffu, x, 0); }
__inline__ __device__ float wsum(float x) { for (int o = 16; o > 0; o /= 2) x += __shfl_down_sync(0xffffffffu, x, o); return __shfl_sync(0xffffffffu, x, 0); }
__global__ void attn_warp(float* out, const float* q, const float* k, const float* v, float* att, int T, int hd, float scale) {
    int bh = blockIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32, nw = blockDim.x / 32;
    const float* Q = q + (size_t)bh * T * hd; const float* K = k + (size_t)bh * T * hd; const float* V = v + (size_t)bh * T * hd;
    __shared__ float P[4][257]; float* A = &P[warp][0]; (void)att;
    for (int i = warp; i < T; i += nw) {
        float m = -INFINITY;
        for (int j = lane; j <= i; j += 32) {
            float s = 0.f;
            for (int d = 0; d < hd; ++d) s += Q[i * hd + d] * K[j * hd + d];
            s *= scale; A[j] = s; m = fmaxf(m, s);
        }
        m = wmax(m);
        float l = 0.f;
        for (int j = lane; j <= i; j += 32) { float p = expf(A[j] - m); A[j] = p; l += p; }
        l = wsum(l);
        __syncwarp();
        for (int d = lane; d < hd; d += 32) {
            float o = 0.f;
            for (int j = 0; j <= i; ++j) o += A[j] * V[j * hd + d];
            out[((size_t)bh * T + i) * hd + d] = o / l;
        }
        __syncwarp();
    }
}
void causal_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    float* att = nullptr;
    cudaMalloc(&att, (size_t)B * H * T * T * sizeof(float));
    attn_warp<<<B * H, 128>>>(out.data(), q.data(), k.data(), v.data(), att, T, hd, 1.0f / sqrtf((float)hd));
    cudaDeviceSynchronize();
    cudaFree(att);
}
