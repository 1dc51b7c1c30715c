// Correct: float2 instead of float4 (8-byte loads and stores, 256 bytes per full warp request, over the 160 asked): a row needs only a 0- or 1-float head to reach an 8-byte boundary and leaves a 0- or 1-float tail; warp per row, three passes. [attnlab 2026-12-03: narrow_loads, 146.86 bytes per request at T = 257: the emulator splits the loop's float2 requests of rows whose lane 0 made a head access first (x (1, 2, 257): 42 load requests where a GPU issues 30); counted as a GPU issues them the loads average 205.6]
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_f2(float* out, const float* x, int T, int rows) {
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows) return;
    const size_t start = (size_t)row * T;
    const int head = (int)(start & 1) && T > 0 ? 1 : 0;   // one float up to the next 8-byte boundary
    const int n2 = (T - head) / 2;
    const int tail = head + 2 * n2;                        // at most one float left
    const float* xr = x + start;
    float* yr = out + start;
    const float2* x2 = reinterpret_cast<const float2*>(xr + head);
    float2* y2 = reinterpret_cast<float2*>(yr + head);

    float m = -INFINITY;
    if (lane < head) m = xr[0];
    for (int i = lane; i < n2; i += 32) { const float2 f = x2[i]; m = fmaxf(m, fmaxf(f.x, f.y)); }
    if (lane == 0 && tail < T) m = fmaxf(m, xr[tail]);
    for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));

    float s = 0.f;
    if (lane < head) s += expf(xr[0] - m);
    for (int i = lane; i < n2; i += 32) { const float2 f = x2[i]; s += expf(f.x - m) + expf(f.y - m); }
    if (lane == 0 && tail < T) s += expf(xr[tail] - m);
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    const float inv = 1.f / s;

    if (lane < head) yr[0] = expf(xr[0] - m) * inv;
    for (int i = lane; i < n2; i += 32) { const float2 f = x2[i]; y2[i] = make_float2(expf(f.x - m) * inv, expf(f.y - m) * inv); }
    if (lane == 0 && tail < T) yr[tail] = expf(xr[tail] - m) * inv;
}

void softmax_step(DeviceTensor& out, const DeviceTensor& x) {
    const int T = x.size(2), rows = x.numel() / T;
    softmax_f2<<<(rows + 3) / 4, 128>>>(out.data(), x.data(), T, rows);
}
