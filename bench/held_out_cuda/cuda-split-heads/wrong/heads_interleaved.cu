// Wrong: heads interleaved: column c of x read as j*H+h instead of h*hd+j; expect heads_interleaved.
#include <cuda_runtime.h>
template <int BLOCK>
__global__ void split_in_order(float* out, const float* x, int B, int T, int H, int hd) {
    long long n = (long long)B * T * H * hd;
    long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
    if (i >= n) return;
    int D = H * hd;
    int c = i % D; long long bt = i / D;
    int t = bt % T, b = bt / T;
    int h = c % H, j = c / H;
    out[(((long long)b * H + h) * T + t) * hd + j] = x[i];
}
void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {
    int B = x.size(0), T = x.size(1), D = x.size(2);
    constexpr int kB = 96;
    split_in_order<kB><<<ceil_div(x.numel(), kB), kB>>>(out.data(), x.data(), B, T, n_heads, D / n_heads);
}
