// Wrong: no barrier between the partial-sum store and the tree (first __syncthreads removed); expect shared_race.
#include <cuda_runtime.h>
template <unsigned BS>
__global__ void rowsum_tree(float* out, const float* x, int N) {
    __shared__ float s[BS];
    unsigned tid = threadIdx.x;
    float acc = 0.f;
    for (int j = tid; j < N; j += BS) acc += x[(size_t)blockIdx.x * N + j];
    s[tid] = acc;
    for (unsigned stride = BS / 2; stride > 0; stride >>= 1) {
        if (tid < stride) s[tid] += s[tid + stride];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}
void row_sum(DeviceTensor& out, const DeviceTensor& x) {
    rowsum_tree<64><<<out.numel(), 64>>>(out.data(), x.data(), (int)x.size(3));
}
