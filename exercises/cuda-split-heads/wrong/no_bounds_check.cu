// Wrong on purpose: no bounds check. The grid is rounded up to whole blocks of
// 128 threads, so whenever B*H*T*hd is not a multiple of 128 the last block's
// extra threads read past the end of x (and would write past the end of out).
#include <attnlab/cuda.hpp>

// out: (B, H, T, hd)   x: (B, T, D), D = H * hd
__global__ void split_heads_kernel(float* out, const float* x, int B, int T, int H, int hd) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = i % hd;
    const int t = (i / hd) % T;
    const int h = (i / (hd * T)) % H;
    const int b = i / (hd * T * H);
    out[i] = x[(b * T + t) * H * hd + h * hd + j];
}

void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {
    const int B = x.size(0), T = x.size(1), D = x.size(2);
    const int threads = 128;
    split_heads_kernel<<<ceil_div(out.numel(), threads), threads>>>(out.data(), x.data(), B, T, n_heads, D / n_heads);
}
