// A correct alternative: one thread per element of x instead of out. Each
// thread decodes (b, t, c) from its index into x and scatters the value to
// out[b, c / hd, t, c % hd]. Every element of out still gets exactly one write.
#include <attnlab/cuda.hpp>

// out: (B, H, T, hd)   x: (B, T, D), D = H * hd
__global__ void split_heads_scatter(float* out, const float* x, int B, int T, int H, int hd) {
    // Launch layout: a 1-D grid over x; thread i reads x[i] (perfectly
    // coalesced loads) and writes wherever that value belongs in out.
    const int D = H * hd;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= B * T * D) return;
    const int c = i % D;
    const int t = (i / D) % T;
    const int b = i / (D * T);
    const int h = c / hd, j = c % hd;
    const float v = x[i];
    out[((b * H + h) * T + t) * hd + j] = v;
}

void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {
    const int B = x.size(0), T = x.size(1), D = x.size(2);
    const int threads = 256;
    split_heads_scatter<<<ceil_div(x.numel(), threads), threads>>>(out.data(), x.data(), B, T, n_heads, D / n_heads);
}
