// Wrong on purpose: replaces the future scores by 0 instead of -inf. A 0 is an
// ordinary score: exp(0 - m) > 0, so every future key gets a positive weight.
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
        const float v = j <= i ? s[j] : 0.0f;  // should be -INFINITY
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
        const float v = j <= i ? s[j] : 0.0f;
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
        const float v = j <= i ? s[j] : 0.0f;
        o[j] = expf(v - row_max) * inv_sum;
    }
}

void causal_softmax(DeviceTensor& out, const DeviceTensor& scores) {
    const int T = scores.size(3);
    const int rows = scores.numel() / T;
    causal_softmax_kernel<<<rows, kThreads>>>(out.data(), scores.data(), T);
}
