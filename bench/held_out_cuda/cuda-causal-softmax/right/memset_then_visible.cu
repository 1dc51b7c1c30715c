// Correct (valid CUDA): cudaMemset(out, 0) for the future keys, then one 32-thread block per row writes j <= i, online max/sum per lane + shuffles. [attnlab: output_not_written, cudaMemset writes not counted; the statement does ask for kernel writes]
#include <cuda_runtime.h>
#include <math.h>
__global__ void sm_visible(float* out, const float* s, int T) {
    int row = blockIdx.x, i = row % T, lane = threadIdx.x;
    const float* x = s + (size_t)row * T;
    float m = -INFINITY;
    for (int j = lane; j <= i; j += 32) m = fmaxf(m, x[j]);
    for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float sum = 0.f;
    for (int j = lane; j <= i; j += 32) sum += __expf(x[j] - m);
    for (int o = 16; o; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    for (int j = lane; j <= i; j += 32) out[(size_t)row * T + j] = __expf(x[j] - m) / sum;
}
void causal_softmax(DeviceTensor& out, const DeviceTensor& scores) {
    int T = scores.size(3);
    cudaMemset(out.data(), 0, scores.numel() * sizeof(float));
    sm_visible<<<scores.numel() / T, 32>>>(out.data(), scores.data(), T);
}
