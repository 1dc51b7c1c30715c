// Wrong: scale forgotten (out = q.k); expect mistake no_scale.
#include <cuda_runtime.h>
__global__ void warp_scores(float* out, const float* q, const float* k, int T, int hd, long long n, float scale) {
    long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (w >= n) return;   // whole warp exits together
    int j = w % T, i = (w / T) % T; long long bh = w / ((long long)T * T);
    const float* qr = q + (bh * T + i) * hd;
    const float* kr = k + (bh * T + j) * hd;
    float s = 0.f;
    for (int d = lane; d < hd; d += 32) s += qr[d] * kr[d];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) out[w] = s;
}
void attention_scores(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k) {
    int T = q.size(2), hd = q.size(3);
    long long n = out.numel();
    warp_scores<<<ceil_div(n * 32, 256), 256>>>(out.data(), q.data(), k.data(), T, hd, n, 1.0f / sqrtf((float)hd));
}
