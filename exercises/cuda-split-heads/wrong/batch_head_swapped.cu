// Wrong on purpose: decodes i with the head axis outside the batch axis, as if
// out were (H, B, T, hd). Every value lands in the right place of some
// (sequence, head) slice, but the slices come out head by head.
#include <attnlab/cuda.hpp>

// out: (B, H, T, hd)   x: (B, T, D), D = H * hd
__global__ void split_heads_kernel(float* out, const float* x, int B, int T, int H, int hd) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= B * H * T * hd) return;
    const int j = i % hd;
    const int t = (i / hd) % T;
    const int b = (i / (hd * T)) % B;
    const int h = i / (hd * T * B);
    out[i] = x[(b * T + t) * H * hd + h * hd + j];
}

void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {
    const int B = x.size(0), T = x.size(1), D = x.size(2);
    const int threads = 128;
    split_heads_kernel<<<ceil_div(out.numel(), threads), threads>>>(out.data(), x.data(), B, T, n_heads, D / n_heads);
}
