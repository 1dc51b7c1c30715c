// Wrong (for the rule): float4 only when T % 4 == 0 (every row aligned, as llm.c's kernel asserts), a scalar loop otherwise; values right, but T = 130, 257 and 1 027 stay at <= 128 bytes per request; expect narrow_loads.
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_rows(float* out, const float* x, int T, int rows) {
    const int lane = threadIdx.x % 32;
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * T;
    float* yr = out + (size_t)row * T;
    float m = -INFINITY, s = 0.f;
    if (T % 4 == 0) {
        const float4* x4 = reinterpret_cast<const float4*>(xr);
        float4* y4 = reinterpret_cast<float4*>(yr);
        for (int i = lane; i < T / 4; i += 32) { float4 v = x4[i]; m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w))); }
        for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        for (int i = lane; i < T / 4; i += 32) { float4 v = x4[i]; s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m); }
        for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        for (int i = lane; i < T / 4; i += 32) { float4 v = x4[i]; y4[i] = make_float4(expf(v.x - m) / s, expf(v.y - m) / s, expf(v.z - m) / s, expf(v.w - m) / s); }
    } else {
        for (int j = lane; j < T; j += 32) m = fmaxf(m, xr[j]);
        for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
        for (int j = lane; j < T; j += 32) s += expf(xr[j] - m);
        for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
        for (int j = lane; j < T; j += 32) yr[j] = expf(xr[j] - m) / s;
    }
}

void softmax_step(DeviceTensor& out, const DeviceTensor& x) {
    const int T = x.size(2), rows = x.numel() / T;
    softmax_rows<<<(rows + 7) / 8, 256>>>(out.data(), x.data(), T, rows);
}
