// A correct alternative: a 3-D grid whose x and y name the key and the query
// and whose z names the (b, h) slice, so no thread decodes a flat index.
#include <attnlab/cuda.hpp>

// out, scores: (B, H, T, T)
__global__ void mask_kernel_2d(float* out, const float* scores, int T) {
    // Launch layout: blocks of 16 x 16 threads tile each (T, T) slice;
    // blockIdx.z is the slice b*H + h.
    const int j = blockIdx.x * blockDim.x + threadIdx.x;    // key
    const int row = blockIdx.y * blockDim.y + threadIdx.y;  // query
    if (j >= T || row >= T) return;  // the tiles at the right and bottom edges stick out
    const long long k = ((long long)blockIdx.z * T + row) * T + j;
    out[k] = j <= row ? scores[k] : -INFINITY;
}

void causal_mask(DeviceTensor& out, const DeviceTensor& scores) {
    const int T = scores.size(3);
    const int slices = scores.size(0) * scores.size(1);
    const dim3 block(16, 16);
    const dim3 grid(ceil_div(T, 16), ceil_div(T, 16), slices);
    mask_kernel_2d<<<grid, block>>>(out.data(), scores.data(), T);
}
