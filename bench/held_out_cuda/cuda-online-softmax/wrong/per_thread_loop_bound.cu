// Wrong: tile loop bound is the thread's own row (j0 <= i), so threads leave the loop (and its __syncthreads) after different trip counts; expect barrier_divergence.
#include <cuda_runtime.h>
#include <math.h>
#define R 32
#define KT 16
__global__ void flash_fwd(float* out, const float* q, const float* k, const float* v, int T, int hd, float scale) {
    __shared__ float Ks[KT][64];
    __shared__ float Vs[KT][64];
    int bh = blockIdx.y;
    int i = blockIdx.x * R + threadIdx.x;
    size_t base = (size_t)bh * T * hd;
    float qr[64], acc[64];
    for (int d = 0; d < hd; ++d) { qr[d] = (i < T) ? q[base + (size_t)i * hd + d] : 0.f; acc[d] = 0.f; }
    float m = -INFINITY, l = 0.f;
    int last = min(T, (int)(blockIdx.x + 1) * R);   // keys this block can see
    for (int j0 = 0; j0 <= i && j0 < T; j0 += KT) {
        int n = min(KT, last - j0);
        for (int e = threadIdx.x; e < n * hd; e += blockDim.x) {
            int r = e / hd, d = e % hd;
            Ks[r][d] = k[base + (size_t)(j0 + r) * hd + d];
            Vs[r][d] = v[base + (size_t)(j0 + r) * hd + d];
        }
        __syncthreads();
        if (i < T) {
            for (int r = 0; r < n && j0 + r <= i; ++r) {
                float s = 0.f;
                for (int d = 0; d < hd; ++d) s += qr[d] * Ks[r][d];
                s *= scale;
                float mn = fmaxf(m, s), c = expf(m - mn), p = expf(s - mn);
                l = l * c + p;
                for (int d = 0; d < hd; ++d) acc[d] = acc[d] * c + p * Vs[r][d];
                m = mn;
            }
        }
        __syncthreads();
    }
    if (i < T) for (int d = 0; d < hd; ++d) out[base + (size_t)i * hd + d] = acc[d] / l;
}
void tiled_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    dim3 grid((T + R - 1) / R, B * H);
    flash_fwd<<<grid, R>>>(out.data(), q.data(), k.data(), v.data(), T, hd, 1.0f / sqrtf((float)hd));
}
