// Wrong: the block size follows T, but each thread keeps its output row in a
// local array of 32 floats, "a head is 32 wide". At ANDREA-120M's hd = 64 the
// thread writes acc[32] ... acc[63], past the array: memcheck names it.
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
    float acc[32];
    for (int d = 0; d < hd; ++d) acc[d] = 0.0f;
    for (int j = 0; j <= i; ++j) {
        float s = 0.0f;
        for (int c = 0; c < hd; ++c) s += qi[c] * k[slice + j * hd + c];
        const float p = expf(s * scale - m) / l;
        for (int d = 0; d < hd; ++d) acc[d] += p * v[slice + j * hd + d];
    }
    for (int d = 0; d < hd; ++d) out[slice + i * hd + d] = acc[d];
}

void causal_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    causal_attention_kernel<<<B * H, T>>>(out.data(), q.data(), k.data(), v.data(), T, hd, 1.0f / sqrtf(float(hd)));
}
