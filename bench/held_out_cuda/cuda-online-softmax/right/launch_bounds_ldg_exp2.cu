// Correct: same as launch_bounds_ldg_exp2_stream.cu but on the default stream (stream 0 passed explicitly, cudaDeviceSynchronize).
#include <cuda_runtime.h>
#include <math.h>
constexpr int R = 64;
constexpr int KT = 16;
constexpr int MAXD = 64;
__global__ void __launch_bounds__(R) flash_exp2(float* __restrict__ out, const float* __restrict__ q,
                                                const float* __restrict__ k, const float* __restrict__ v,
                                                int T, int hd, float scale_log2) {
    __shared__ float Ks[KT * MAXD];
    __shared__ float Vs[KT * MAXD];
    const int i = blockIdx.x * R + threadIdx.x;
    const size_t base = (size_t)blockIdx.y * T * hd;
    float qr[MAXD], acc[MAXD];
#pragma unroll 4
    for (int d = 0; d < hd; ++d) { qr[d] = (i < T) ? __ldg(q + base + (size_t)i * hd + d) * scale_log2 : 0.f; acc[d] = 0.f; }
    float m = -INFINITY, l = 0.f;
    const int last_row = min(T - 1, (int)(blockIdx.x * R + R - 1));
    for (int j0 = 0; j0 <= last_row; j0 += KT) {
        const int n = min(KT, last_row + 1 - j0);
        for (int e = threadIdx.x; e < n * hd; e += R) {
            Ks[e] = __ldg(k + base + (size_t)j0 * hd + e);
            Vs[e] = __ldg(v + base + (size_t)j0 * hd + e);
        }
        __syncthreads();
        for (int r = 0; r < n; ++r) {
            if (i >= T || j0 + r > i) break;
            float s = 0.f;
            for (int d = 0; d < hd; ++d) s = fmaf(qr[d], Ks[r * hd + d], s);
            const float mn = fmaxf(m, s);
            const float c = exp2f(m - mn), p = exp2f(s - mn);
            l = fmaf(l, c, p);
            for (int d = 0; d < hd; ++d) acc[d] = fmaf(acc[d], c, p * Vs[r * hd + d]);
            m = mn;
        }
        __syncthreads();
    }
    if (i < T) {
        const float inv = 1.0f / l;
        for (int d = 0; d < hd; ++d) out[base + (size_t)i * hd + d] = acc[d] * inv;
    }
}
void tiled_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const float scale_log2 = 1.4426950408889634f / sqrtf((float)hd);
    flash_exp2<<<dim3((T + R - 1) / R, B * H), R, 0, 0>>>(out.data(), q.data(), k.data(), v.data(), T, hd, scale_log2);
    cudaDeviceSynchronize();
}
