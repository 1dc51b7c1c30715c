// Wrong: float4 count rounded up, (T - head + 3) / 4, and no scalar tail: the last float4 of a row reads and writes up to 3 floats of the next row (and past the end of x and out on the last row); expect global_race or out_of_bounds, with a sensible count past the end. [attnlab 2026-12-03: global_race, named right, but its advice "put a __syncthreads between the write and the read" fits neither a write-write pair nor two rows writing one element]
#include <cuda_runtime.h>
#include <math.h>

#define ROWS_PER_BLOCK 8

__device__ __forceinline__ float warpMax(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__device__ __forceinline__ float warpSum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
__device__ __forceinline__ float max4(float4 v) { return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)); }

// out, x: (B*H, T) rows
__global__ void softmax_f4_warp(float* __restrict__ out, const float* __restrict__ x, int T, int rows) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int row = blockIdx.x * ROWS_PER_BLOCK + warp;
    if (row >= rows) return;  // whole warp
    const size_t start = (size_t)row * T;
    int head = (int)((4 - (start & 3)) & 3);
    if (head > T) head = T;
    const int nvec = (T - head + 3) >> 2;  // rounded up: the last float4 covers the tail and runs past the row
    const int tail = T;  // no scalar tail: the last float4 took it
    const float* xr = x + start;
    float* orow = out + start;
    const float4* x4 = reinterpret_cast<const float4*>(xr + head);
    float4* o4 = reinterpret_cast<float4*>(orow + head);

    float m = -INFINITY;
    if (lane < head) m = xr[lane];
    for (int i = lane; i < nvec; i += 32) m = fmaxf(m, max4(x4[i]));
    if (tail + lane < T) m = fmaxf(m, xr[tail + lane]);
    m = warpMax(m);

    float s = 0.f;
    if (lane < head) s += expf(xr[lane] - m);
    for (int i = lane; i < nvec; i += 32) {
        float4 v = x4[i];
        s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m);
    }
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
    const int blocks = (rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK;
    softmax_f4_warp<<<blocks, 32 * ROWS_PER_BLOCK>>>(out.data(), x.data(), T, rows);
}
