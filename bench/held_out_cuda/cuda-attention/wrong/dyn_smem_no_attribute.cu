// Wrong: dynamic shared memory request of 2*T*hd floats padded to 16 KiB multiples without cudaFuncSetAttribute (52 KiB at T = 65, hd = 64 > 48 KiB); expect cudaErrorInvalidValue / invalid launch.
#include <cuda_runtime.h>
#include <math.h>
#define CUDA_CHECK(call) do { cudaError_t err = (call); if (err != cudaSuccess) return; } while (0)
__global__ void attn_kernel(float* out, const float* q, const float* k, const float* v, int T, int hd, float scale) {
    extern __shared__ float smem[];
    float* Ks = smem;
    float* Vs = smem + T * hd;
    size_t base = (size_t)blockIdx.x * T * hd;
    for (int e = threadIdx.x; e < T * hd; e += blockDim.x) { Ks[e] = k[base + e]; Vs[e] = v[base + e]; }
    __syncthreads();
    for (int i = threadIdx.x; i < T; i += blockDim.x) {
        float qr[64];
        for (int d = 0; d < hd; ++d) qr[d] = q[base + i * hd + d];
        float m = -INFINITY;
        for (int j = 0; j <= i; ++j) {
            float s = 0.f;
            for (int d = 0; d < hd; ++d) s += qr[d] * Ks[j * hd + d];
            m = fmaxf(m, s * scale);
        }
        float acc[64];
        for (int d = 0; d < hd; ++d) acc[d] = 0.f;
        float l = 0.f;
        for (int j = 0; j <= i; ++j) {
            float s = 0.f;
            for (int d = 0; d < hd; ++d) s += qr[d] * Ks[j * hd + d];
            float p = expf(s * scale - m);
            l += p;
            for (int d = 0; d < hd; ++d) acc[d] += p * Vs[j * hd + d];
        }
        for (int d = 0; d < hd; ++d) out[base + i * hd + d] = acc[d] / l;
    }
}
void causal_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    size_t smem = (2 * (size_t)T * hd * sizeof(float) + 16383) / 16384 * 16384 + 16384;
    attn_kernel<<<B * H, 64, smem>>>(out.data(), q.data(), k.data(), v.data(), T, hd, 1.0f / sqrtf((float)hd));
    CUDA_CHECK(cudaGetLastError());
}
