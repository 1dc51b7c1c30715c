// Wrong on purpose: reads x as if it were already (B, H, T, hd). The source
// index is then ((b*H + h)*T + t)*hd + j, which is i itself: a plain copy, the
// kernel version of reshaping (B, T, D) straight to (B, H, T, hd).
#include <attnlab/cuda.hpp>

// out: (B, H, T, hd)   x: (B, T, D), D = H * hd
__global__ void split_heads_kernel(float* out, const float* x, int B, int T, int H, int hd) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= B * H * T * hd) return;
    const int j = i % hd;
    const int t = (i / hd) % T;
    const int h = (i / (hd * T)) % H;
    const int b = i / (hd * T * H);
    out[i] = x[((b * H + h) * T + t) * hd + j];
}

void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {
    const int B = x.size(0), T = x.size(1), D = x.size(2);
    const int threads = 128;
    split_heads_kernel<<<ceil_div(out.numel(), threads), threads>>>(out.data(), x.data(), B, T, n_heads, D / n_heads);
}
