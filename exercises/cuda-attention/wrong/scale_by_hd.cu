// Wrong on purpose: the scores are divided by hd instead of sqrt(hd): the
// square root is forgotten.
#include <attnlab/cuda.hpp>

#define MAX_HD 64  // the widest head the per-thread arrays hold (ANDREA-120M: hd = 64)

// out: (B, H, T, hd)   q, k, v: (B, H, T, hd)   dynamic shared memory: 2·T·hd floats
// Launch: grid = B·H blocks; block bh handles the pair (b, h) = (bh / H, bh % H),
// whose q, k, v and out are (T, hd) matrices starting at float (b·H + h)·T·hd.
// The block first copies that pair's K and V into shared memory (thread t
// copies floats t, t + blockDim.x, ...: neighbouring threads, neighbouring
// floats), then thread t computes query rows i = t, t + blockDim.x, ...
__global__ void causal_attention_kernel(float* out, const float* q, const float* k,
                                        const float* v, int H, int T, int hd, float scale) {
    extern __shared__ float kv[];  // K of this (b, h) at kv[j·hd + d], V at kv[T·hd + j·hd + d]
    const int b = blockIdx.x / H, h = blockIdx.x % H;
    const int slice = (b * H + h) * T * hd;  // the same offset in q, k, v and out
    const int v_at = T * hd;                 // where V starts in kv

    for (int e = threadIdx.x; e < T * hd; e += blockDim.x) {
        kv[e] = k[slice + e];
        kv[v_at + e] = v[slice + e];
    }
    __syncthreads();  // every K and V element is in shared memory before any thread reads one

    for (int i = threadIdx.x; i < T; i += blockDim.x) {
        float q_row[MAX_HD], acc[MAX_HD];
        for (int d = 0; d < hd; ++d) {
            q_row[d] = q[slice + i * hd + d];
            acc[d] = 0.0f;
        }
        // Pass 1: the largest score among the visible keys 0..i (key i is
        // always visible, so m is finite).
        float m = -INFINITY;
        for (int j = 0; j <= i; ++j) {
            float s = 0.0f;
            for (int d = 0; d < hd; ++d) s += q_row[d] * kv[j * hd + d];
            m = fmaxf(m, s * scale);
        }
        // Pass 2: p_j = exp(s_j - m) lies in (0, 1], so nothing overflows
        // even for scores in the thousands; l sums them, acc sums p_j·v_j.
        float l = 0.0f;
        for (int j = 0; j <= i; ++j) {
            float s = 0.0f;
            for (int d = 0; d < hd; ++d) s += q_row[d] * kv[j * hd + d];
            const float p = expf(s * scale - m);
            l += p;
            for (int d = 0; d < hd; ++d) acc[d] += p * kv[v_at + j * hd + d];
        }
        for (int d = 0; d < hd; ++d) out[slice + i * hd + d] = acc[d] / l;  // l >= 1: key with s = m gives 1
    }
}

// q, k, v: (B, H, T, hd) in device memory; out: (B, H, T, hd), written by the kernel.
void causal_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const int threads = 32;  // one warp; a sequence longer than 32 takes several rounds of rows
    const size_t smem = 2 * T * hd * sizeof(float);
    causal_attention_kernel<<<B * H, threads, smem>>>(out.data(), q.data(), k.data(), v.data(), H, T, hd,
                                                      1.0f / float(hd));
}
