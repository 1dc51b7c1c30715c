// Wrong: the row maximum is never reduced across the warp (each lane subtracts its own max) while the sum is: the lanes' terms are on different scales; expect wrong_answer (no catalogued name fits; the T = 1 and all-equal rows still pass).
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_f4(float* out, const float* x, int T, int rows) {
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * 4 + (threadIdx.x >> 5);
    if (row >= rows) return;
    const size_t start = (size_t)row * T;
    const int head = min(T, (int)((4 - (start & 3)) & 3));
    const int nvec = (T - head) >> 2;
    const int tail = head + 4 * nvec;
    const float* xr = x + start;
    float* orow = out + start;
    const float4* x4 = reinterpret_cast<const float4*>(xr + head);
    float4* o4 = reinterpret_cast<float4*>(orow + head);

    float m = -INFINITY;  // this lane's own maximum only
    if (lane < head) m = xr[lane];
    for (int i = lane; i < nvec; i += 32) { float4 v = x4[i]; m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w))); }
    if (tail + lane < T) m = fmaxf(m, xr[tail + lane]);

    float s = 0.f;
    if (lane < head) s += expf(xr[lane] - m);
    for (int i = lane; i < nvec; i += 32) { float4 v = x4[i]; s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m); }
    if (tail + lane < T) s += expf(xr[tail + lane] - m);
    for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    const float inv = 1.f / s;

    if (lane < head) orow[lane] = expf(xr[lane] - m) * inv;
    for (int i = lane; i < nvec; i += 32) {
        float4 v = x4[i];
        o4[i] = make_float4(expf(v.x - m) * inv, expf(v.y - m) * inv, expf(v.z - m) * inv, expf(v.w - m) * inv);
    }
    if (tail + lane < T) orow[tail + lane] = expf(xr[tail + lane] - m) * inv;
}

void softmax_step(DeviceTensor& out, const DeviceTensor& x) {
    const int T = (int)x.size(2);
    const int rows = (int)(x.numel() / T);
    softmax_f4<<<(rows + 3) / 4, 128>>>(out.data(), x.data(), T, rows);
}
