// Wrong on purpose: the max and the sum run over all T keys, the future ones
// too; only at the end are the future outputs j > i written as 0. The
// visible weights are then normalised over the whole row: they sum to less
// than 1.
#include <attnlab/cuda.hpp>

constexpr int kThreads = 64;  // threads per block; a power of two, so the tree halves evenly

// out: (B, H, T, T)   scores: (B, H, T, T)
// Meant: out[b, h, i, j] = exp(s_ij - m_i) / sum_{k <= i} exp(s_ik - m_i) for j <= i, else 0,
// where m_i = max_{k <= i} s_ik. Below, every loop runs to T instead of stopping at i.
__global__ void causal_softmax_kernel(float* out, const float* scores, int T) {
    // Launch layout: one block of kThreads threads per row of scores. The
    // B*H*T rows are contiguous runs of T floats, so block r owns floats
    // r*T ... r*T + T - 1, and its query index is i = r % T. Thread tid takes
    // keys tid, tid + kThreads, tid + 2*kThreads, ... (T may exceed kThreads).
    __shared__ float partial[kThreads];
    const int row = blockIdx.x;
    const int i = row % T;
    const int tid = threadIdx.x;
    const float* s = scores + row * T;
    float* o = out + row * T;

    // 1. The row's maximum, taken over all T keys (the future ones too).
    float m = -INFINITY;
    for (int j = tid; j < T; j += kThreads) m = fmaxf(m, s[j]);
    partial[tid] = m;
    __syncthreads();  // every partial max is written before anyone combines them
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] = fmaxf(partial[tid], partial[tid + stride]);
        __syncthreads();  // this level is complete before the next one reads it
    }
    const float row_max = partial[0];
    __syncthreads();  // everyone has read partial[0] before step 2 overwrites it

    // 2. The sum of exp(s - max): every term is <= 1 and the max's own term is 1.
    float sum = 0.0f;
    for (int j = tid; j < T; j += kThreads) sum += expf(s[j] - row_max);
    partial[tid] = sum;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (tid < stride) partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    const float inv_sum = 1.0f / partial[0];

    // 3. The future keys get 0, but the sum above already counted them.
    for (int j = tid; j < T; j += kThreads) o[j] = j > i ? 0.0f : expf(s[j] - row_max) * inv_sum;
}

// attnlab calls this once per case: scores is already in device memory, out
// has shape (B, H, T, T) and holds garbage until a kernel writes it.
void causal_softmax(DeviceTensor& out, const DeviceTensor& scores) {
    const int T = scores.size(3);
    const int rows = scores.numel() / T;  // B * H * T
    causal_softmax_kernel<<<rows, kThreads>>>(out.data(), scores.data(), T);
}
