// Wrong: one "tile" of all T keys in dynamic shared memory (2*T*hd floats): shared memory grows with T; expect the 16 KiB max_shared_bytes_per_block rule (T = 65, hd = 64 -> 33 KiB).
#include <cuda_runtime.h>
#include <math.h>

__global__ void tiled_attn(float* __restrict__ out, const float* __restrict__ q, const float* __restrict__ k,
                           const float* __restrict__ v, int T, int hd, float scale, int KT) {
    extern __shared__ float sh[];
    float* Kt = sh;
    float* Vt = sh + KT * hd;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const size_t base = (size_t)blockIdx.y * T * hd;
    float qr[64], o[64];
    for (int d = 0; d < hd; ++d) { o[d] = 0.f; qr[d] = i < T ? q[base + i * hd + d] * scale : 0.f; }
    float m = -INFINITY, l = 0.f;
    const int kend = min(T, (blockIdx.x + 1) * blockDim.x);
    for (int t0 = 0; t0 < kend; t0 += KT) {
        const int cnt = min(KT, kend - t0);
        for (int e = threadIdx.x; e < cnt * hd; e += blockDim.x) {
            Kt[e] = k[base + (size_t)t0 * hd + e];
            Vt[e] = v[base + (size_t)t0 * hd + e];
        }
        __syncthreads();
        const int upto = i < T ? min(cnt, i - t0 + 1) : 0;
        for (int r = 0; r < upto; ++r) {
            float s = 0.f;
            for (int d = 0; d < hd; ++d) s += qr[d] * Kt[r * hd + d];
            if (s > m) {
                float c = expf(m - s);
                l *= c;
                for (int d = 0; d < hd; ++d) o[d] *= c;
                m = s;
            }
            float p = expf(s - m);
            l += p;
            for (int d = 0; d < hd; ++d) o[d] += p * Vt[r * hd + d];
        }
        __syncthreads();
    }
    if (i < T) for (int d = 0; d < hd; ++d) out[base + i * hd + d] = o[d] / l;
}
void tiled_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const int KT = T; const int R = 16;
    size_t smem = 2 * (size_t)KT * hd * sizeof(float);
    tiled_attn<<<dim3(ceil_div(T, R), B * H), R, smem>>>(out.data(), q.data(), k.data(), v.data(), T, hd, 1.0f / sqrtf((float)hd), KT);
}
