// A correct alternative: a 3-D grid that names the (sequence, head) pair in
// blockIdx.z and blockIdx.y, so no thread has to decode b and h from a flat index.
#include <attnlab/cuda.hpp>

// out: (B, H, T, hd)   x: (B, T, D), D = H * hd
__global__ void split_heads_kernel(float* out, const float* x, int T, int H, int hd) {
    // Launch layout: grid (ceil(T*hd / blockDim.x), H, B); block (b, h) covers
    // the T*hd elements of pair (b, h), which are one contiguous run of out.
    const int b = blockIdx.z, h = blockIdx.y;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;  // position inside the (T, hd) slice
    if (k >= T * hd) return;
    const int t = k / hd, j = k % hd;
    out[((b * H + h) * T) * hd + k] = x[(b * T + t) * (H * hd) + h * hd + j];
}

void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {
    const int B = x.size(0), T = x.size(1), D = x.size(2);
    const int hd = D / n_heads;
    const int threads = 64;
    const dim3 grid(ceil_div(T * hd, threads), n_heads, B);
    split_heads_kernel<<<grid, threads>>>(out.data(), x.data(), T, n_heads, hd);
}
