// Wrong on purpose: the mask starts one key late (j > i + 1 instead of j > i),
// so every query still sees the very next token.
#include <attnlab/cuda.hpp>

constexpr int kThreads = 64;

// out: (B, H, T, T)   scores: (B, H, T, T)
__global__ void causal_softmax_kernel(float* out, const float* scores, int T) {
    __shared__ float partial[kThreads];
    const int row = blockIdx.x;
    const int i = row % T;
    const int tid = threadIdx.x;
    const float* s = scores + row * T;
    float* o = out + row * T;

    float m = -INFINITY;
    for (int j = tid; j < T; j += kThreads) {
        const float v = j <= i + 1 ? s[j] : -INFINITY;  // should be j <= i
        m = fmaxf(m, v);
    }
    partial[tid] = m;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] = fmaxf(partial[tid], partial[tid + stride]);
        __syncthreads();
    }
    const float row_max = partial[0];
    __syncthreads();

    float sum = 0.0f;
    for (int j = tid; j < T; j += kThreads) {
        const float v = j <= i + 1 ? s[j] : -INFINITY;
        sum += expf(v - row_max);
    }
    partial[tid] = sum;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    const float inv_sum = 1.0f / partial[0];
    for (int j = tid; j < T; j += kThreads) {
        const float v = j <= i + 1 ? s[j] : -INFINITY;
        o[j] = expf(v - row_max) * inv_sum;
    }
}

void causal_softmax(DeviceTensor& out, const DeviceTensor& scores) {
    const int T = scores.size(3);
    const int rows = scores.numel() / T;
    causal_softmax_kernel<<<rows, kThreads>>>(out.data(), scores.data(), T);
}
