// Wrong: head = (4 - start % 4) % 4 is not clamped to T, so with T = 1 a row's "head" runs into the next rows (and nvec = (T - head) >> 2 goes negative, so the tail starts before the row); expect global_race or out_of_bounds on the T = 1 case. [attnlab 2026-12-03: global_race, named right, but its advice "put a __syncthreads between the write and the read" fits neither a write-write pair nor two rows writing one element]
#include <cuda_runtime.h>
#include <math.h>

#define ROWS_PER_BLOCK 4

__device__ __forceinline__ float warpMax(float v) {
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float warpSum(float v) {
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__global__ void softmax_f4(float* out, const float* x, int T, int rows) {
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * ROWS_PER_BLOCK + (threadIdx.x >> 5);
    if (row >= rows) return;
    const size_t start = (size_t)row * T;
    const int head = (int)((4 - (start & 3)) & 3);  // missing: if (head > T) head = T;
    const int nvec = (T - head) >> 2;
    const int tail = head + 4 * nvec;
    const float* xr = x + start;
    float* orow = out + start;
    const float4* x4 = reinterpret_cast<const float4*>(xr + head);
    float4* o4 = reinterpret_cast<float4*>(orow + head);

    float m = -INFINITY;
    if (lane < head) m = xr[lane];
    for (int i = lane; i < nvec; i += 32) { float4 v = x4[i]; m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w))); }
    if (tail + lane < T) m = fmaxf(m, xr[tail + lane]);
    m = warpMax(m);
    float s = 0.f;
    if (lane < head) s += expf(xr[lane] - m);
    for (int i = lane; i < nvec; i += 32) { float4 v = x4[i]; s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m); }
    if (tail + lane < T) s += expf(xr[tail + lane] - m);
    const float inv = 1.f / warpSum(s);
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
    softmax_f4<<<(rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, 32 * ROWS_PER_BLOCK>>>(out.data(), x.data(), T, rows);
}
