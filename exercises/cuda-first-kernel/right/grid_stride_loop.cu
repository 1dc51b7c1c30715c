// A correct alternative: a fixed grid of 24 blocks whose threads stride over
// the whole tensor (a grid-stride loop), so one launch covers any size.
#include <attnlab/cuda.hpp>

// out, scores: (B, H, T, T), n = B*H*T*T elements
__global__ void mask_kernel(float* out, const float* scores, int T, long long n) {
    const long long stride = (long long)gridDim.x * blockDim.x;  // threads in the whole grid
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const int j = (int)(i % T), row = (int)((i / T) % T);
        out[i] = j > row ? -INFINITY : scores[i];
    }
}

void causal_mask(DeviceTensor& out, const DeviceTensor& scores) {
    mask_kernel<<<24, 128>>>(out.data(), scores.data(), scores.size(3), scores.numel());
}
