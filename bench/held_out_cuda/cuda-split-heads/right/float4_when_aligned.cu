// Correct: float4 path (one thread per 4 output floats) when hd % 4 == 0, scalar kernel otherwise; reinterpret_cast on both pointers.
#include <cuda_runtime.h>
__global__ void split_vec4(float4* out, const float4* x, int B, int T, int H, int hd4) {
    int n = B * H * T * hd4;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int j = i % hd4, t = (i / hd4) % T, h = (i / (hd4 * T)) % H, b = i / (hd4 * T * H);
    out[i] = x[((size_t)b * T + t) * H * hd4 + h * hd4 + j];
}
__global__ void split_scalar(float* out, const float* x, int B, int T, int H, int hd) {
    int n = B * H * T * hd;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int j = i % hd, t = (i / hd) % T, h = (i / (hd * T)) % H, b = i / (hd * T * H);
    out[i] = x[((size_t)b * T + t) * H * hd + h * hd + j];
}
void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {
    int B = x.size(0), T = x.size(1), D = x.size(2), hd = D / n_heads;
    if (hd % 4 == 0) {
        int n4 = (int)(out.numel() / 4);
        split_vec4<<<ceil_div(n4, 128), 128>>>(reinterpret_cast<float4*>(out.data()), reinterpret_cast<const float4*>(x.data()), B, T, n_heads, hd / 4);
    } else {
        split_scalar<<<ceil_div(out.numel(), 128), 128>>>(out.data(), x.data(), B, T, n_heads, hd);
    }
}
