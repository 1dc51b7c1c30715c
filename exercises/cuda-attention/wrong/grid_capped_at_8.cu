// Wrong: one thread per query row, but only the first 8 blocks are launched
// ("a GPU runs 8 at a time"). Blocks are (sequence, head) pairs: with B·H = 24
// pairs, 16 pairs' outputs are never written. Every case with B·H <= 8 passes.
#include <attnlab/cuda.hpp>

// out, q, k, v: (B, H, T, hd); block bh = (b, h), thread i = query row i
__global__ void causal_attention_kernel(float* out, const float* q, const float* k, const float* v, int T, int hd,
                                        float scale) {
    const int i = threadIdx.x;
    if (i >= T) return;
    const int slice = blockIdx.x * T * hd;
    const float* qi = q + slice + i * hd;
    float m = -INFINITY;
    for (int j = 0; j <= i; ++j) {
        float s = 0.0f;
        for (int d = 0; d < hd; ++d) s += qi[d] * k[slice + j * hd + d];
        m = fmaxf(m, s * scale);
    }
    float l = 0.0f;
    for (int j = 0; j <= i; ++j) {
        float s = 0.0f;
        for (int d = 0; d < hd; ++d) s += qi[d] * k[slice + j * hd + d];
        l += expf(s * scale - m);
    }
    for (int d = 0; d < hd; ++d) out[slice + i * hd + d] = 0.0f;
    for (int j = 0; j <= i; ++j) {
        float s = 0.0f;
        for (int c = 0; c < hd; ++c) s += qi[c] * k[slice + j * hd + c];
        const float p = expf(s * scale - m) / l;
        for (int d = 0; d < hd; ++d) out[slice + i * hd + d] += p * v[slice + j * hd + d];
    }
}

void causal_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    causal_attention_kernel<<<B * H < 8 ? B * H : 8, T>>>(out.data(), q.data(), k.data(), v.data(), T, hd, 1.0f / sqrtf(float(hd)));
}
