// Wrong on purpose: the softmax formula taken literally, without subtracting
// the row's maximum. Right for small scores; for scores in the thousands
// expf overflows to inf (or underflows to 0) and the row becomes NaN.
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

    float sum = 0.0f;
    for (int j = tid; j <= i; j += kThreads) sum += expf(s[j]);
    partial[tid] = sum;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    const float inv_sum = 1.0f / partial[0];
    for (int j = tid; j < T; j += kThreads) o[j] = j <= i ? expf(s[j]) * inv_sum : 0.0f;
}

void causal_softmax(DeviceTensor& out, const DeviceTensor& scores) {
    const int T = scores.size(3);
    const int rows = scores.numel() / T;
    causal_softmax_kernel<<<rows, kThreads>>>(out.data(), scores.data(), T);
}
