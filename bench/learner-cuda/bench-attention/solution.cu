// Attention "v1" as a first CUDA port writes it: one thread per (batch, head,
// query row), plain pointers, scores in a scratch buffer. At B = 1, H = 12,
// T = 128, hd = 64 this is 1536 threads and 6.3 M multiply-adds.
#include <cuda_runtime.h>
#include <attnlab/cuda.hpp>

// scores: (BH, T, T); q, k, v, out: (BH, T, hd)
__global__ void attention_v1(const float* q, const float* k, const float* v, float* out, float* scores, int BH, int T, int hd) {
    const int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= BH * T) return;
    const int bh = row / T, t = row % T;
    const float* qr = q + (size_t)row * hd;
    float* s = scores + (size_t)row * T;
    const float scale = 1.0f / sqrtf((float)hd);
    float m = -INFINITY;
    for (int j = 0; j <= t; ++j) {
        const float* kr = k + ((size_t)bh * T + j) * hd;
        float dot = 0.0f;
        for (int c = 0; c < hd; ++c) dot += qr[c] * kr[c];
        s[j] = dot * scale;
        m = fmaxf(m, s[j]);
    }
    float sum = 0.0f;
    for (int j = 0; j <= t; ++j) {
        s[j] = expf(s[j] - m);
        sum += s[j];
    }
    float* o = out + (size_t)row * hd;
    for (int c = 0; c < hd; ++c) {
        float acc = 0.0f;
        for (int j = 0; j <= t; ++j) acc += s[j] * v[((size_t)bh * T + j) * hd + c];
        o[c] = acc / sum;
    }
}

void causal_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int BH = q.size(0) * q.size(1), T = q.size(2), hd = q.size(3);
    float* scores = nullptr;
    cudaMalloc(&scores, (size_t)BH * T * T * sizeof(float));
    attention_v1<<<(BH * T + 127) / 128, 128>>>(q.data(), k.data(), v.data(), out.data(), scores, BH, T, hd);
    cudaFree(scores);
}
