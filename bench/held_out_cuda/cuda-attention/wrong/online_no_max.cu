// Wrong: online softmax without max (m stays 0, c = 1): overflow on the stability case; expect softmax_without_max.
#include <cuda_runtime.h>
#include <math.h>
__device__ float dot_row(const float* a, const float* b, int hd) {
    float s = 0.f;
    if ((hd & 3) == 0) {
        const float4* a4 = reinterpret_cast<const float4*>(a);
        const float4* b4 = reinterpret_cast<const float4*>(b);
        for (int d = 0; d < hd / 4; ++d) { float4 x = a4[d], y = b4[d]; s += x.x * y.x + x.y * y.y + x.z * y.z + x.w * y.w; }
    } else {
        for (int d = 0; d < hd; ++d) s += a[d] * b[d];
    }
    return s;
}
__global__ void attn_online(float* out, const float* q, const float* k, const float* v, int T, int hd, float scale) {
    size_t base = (size_t)blockIdx.x * T * hd;
    for (int i = threadIdx.x; i < T; i += blockDim.x) {
        float acc[64];
        for (int d = 0; d < hd; ++d) acc[d] = 0.f;
        float m = -INFINITY, l = 0.f;
        for (int j = 0; j <= i; ++j) {
            float s = dot_row(q + base + i * hd, k + base + j * hd, hd) * scale;
            float mn = 0.f;
            float c = expf(m - mn), p = expf(s - mn);
            l = l * c + p;
            for (int d = 0; d < hd; ++d) acc[d] = acc[d] * c + p * v[base + j * hd + d];
            m = mn;
        }
        for (int d = 0; d < hd; ++d) out[base + i * hd + d] = acc[d] / l;
    }
}
void causal_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    attn_online<<<B * H, 32>>>(out.data(), q.data(), k.data(), v.data(), T, hd, rsqrtf((float)hd));
}
