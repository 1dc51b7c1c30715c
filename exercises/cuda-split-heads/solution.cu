// Split heads on the GPU: (B, T, D) -> (B, H, T, hd), one thread per output element.
#include <attnlab/cuda.hpp>

// out: (B, H, T, hd)   x: (B, T, D), D = H * hd
// out[b, h, t, j] = x[b, t, h*hd + j]
__global__ void split_heads_kernel(float* out, const float* x, int B, int T, int H, int hd) {
    // Launch layout: a 1-D grid of 1-D blocks, one thread per element of out;
    // global thread i writes out[i]. Consecutive threads write consecutive
    // floats of out and read runs of hd consecutive floats of x.
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= B * H * T * hd) return;  // the last block usually sticks out past the end

    // i is the row-major index of (b, h, t, j) in out: peel the axes off,
    // the last (fastest-varying) one first.
    const int j = i % hd;
    const int t = (i / hd) % T;
    const int h = (i / (hd * T)) % H;
    const int b = i / (hd * T * H);

    // Head h of token (b, t) is columns h*hd ... h*hd + hd - 1 of row b*T + t of x.
    const int D = H * hd;
    out[i] = x[(b * T + t) * D + h * hd + j];
}

// attnlab calls this once per case: x is already in device memory, out has
// shape (B, H, T, hd) and holds garbage until a kernel writes it.
void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {
    const int B = x.size(0), T = x.size(1), D = x.size(2);
    const int hd = D / n_heads;
    const int threads = 128;                            // a multiple of the warp size, 32
    const int blocks = ceil_div(out.numel(), threads);  // rounded up: every element gets a thread
    split_heads_kernel<<<blocks, threads>>>(out.data(), x.data(), B, T, n_heads, hd);
}
