// Correct: one block of 64 threads per row, a tree in shared memory for the
// max and the sum (as in cuda-causal-softmax), float4s for the aligned middle.
#include <attnlab/cuda.hpp>

constexpr int kThreads = 64;

__device__ float block_reduce(float v, float* partial, bool is_max) {
    const int tid = threadIdx.x;
    partial[tid] = v;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] = is_max ? fmaxf(partial[tid], partial[tid + stride]) : partial[tid] + partial[tid + stride];
        __syncthreads();
    }
    const float result = partial[0];
    __syncthreads();  // everyone has read partial[0] before the next reduction writes it
    return result;
}

__global__ void softmax_block_per_row(float* out, const float* x, int T) {
    __shared__ float partial[kThreads];
    const long long start = (long long)blockIdx.x * T;
    const int tid = threadIdx.x;
    const int head = min(int((4 - start % 4) % 4), T);
    const int quads = (T - head) / 4;
    const int tail_start = head + 4 * quads;
    const float* in = x + start;
    float* o = out + start;
    const float4* in4 = reinterpret_cast<const float4*>(in + head);
    float4* o4 = reinterpret_cast<float4*>(o + head);

    float m = -INFINITY;
    if (tid < head) m = in[tid];
    for (int q = tid; q < quads; q += kThreads) {
        const float4 v = in4[q];
        m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
    if (tail_start + tid < T) m = fmaxf(m, in[tail_start + tid]);
    m = block_reduce(m, partial, true);

    float s = 0.0f;
    if (tid < head) s = expf(in[tid] - m);
    for (int q = tid; q < quads; q += kThreads) {
        const float4 v = in4[q];
        s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
    }
    if (tail_start + tid < T) s += expf(in[tail_start + tid] - m);
    const float inv_sum = 1.0f / block_reduce(s, partial, false);

    if (tid < head) o[tid] = expf(in[tid] - m) * inv_sum;
    for (int q = tid; q < quads; q += kThreads) {
        const float4 v = in4[q];
        o4[q] = make_float4(expf(v.x - m) * inv_sum, expf(v.y - m) * inv_sum, expf(v.z - m) * inv_sum, expf(v.w - m) * inv_sum);
    }
    if (tail_start + tid < T) o[tail_start + tid] = expf(in[tail_start + tid] - m) * inv_sum;
}

void softmax_step(DeviceTensor& out, const DeviceTensor& x) {
    const int T = x.size(2);
    softmax_block_per_row<<<x.numel() / T, kThreads>>>(out.data(), x.data(), T);
}
