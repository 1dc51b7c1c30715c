// Correct: one 128-thread block per row; misalignment taken from the pointer ((uintptr_t)p >> 2) & 3, scalar prologue, reinterpret_cast<const float4*> body, scalar tail; one online (max, sum) pass merged across the block by shuffles and shared memory, then a float4 write pass.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

constexpr int kThreads = 128;

struct MS { float m, s; };

__device__ __forceinline__ MS ms_merge(MS a, MS b) {
    if (a.m == -INFINITY) return b;  // empty side: nothing to rescale
    if (b.m == -INFINITY) return a;
    const float M = fmaxf(a.m, b.m);
    return {M, a.s * expf(a.m - M) + b.s * expf(b.m - M)};
}
__device__ __forceinline__ void ms_add(MS& a, float v) {
    if (v > a.m) { a.s = a.s * expf(a.m - v) + 1.f; a.m = v; }
    else a.s += expf(v - a.m);
}

__global__ void __launch_bounds__(kThreads) softmax_block_row(float* out, const float* x, int T) {
    __shared__ MS part[kThreads / 32];
    __shared__ MS total;
    const float* xr = x + (size_t)blockIdx.x * T;
    float* orow = out + (size_t)blockIdx.x * T;
    const int tid = threadIdx.x;

    const int mis = (int)((reinterpret_cast<uintptr_t>(xr) >> 2) & 3);  // floats past the last 16-byte boundary
    const int pro = min(T, mis ? 4 - mis : 0);
    const int n4 = (T - pro) / 4;
    const int epi = pro + 4 * n4;
    const float4* x4 = reinterpret_cast<const float4*>(xr + pro);

    MS acc = {-INFINITY, 0.f};
    if (tid < pro) ms_add(acc, xr[tid]);
    for (int i = tid; i < n4; i += kThreads) {
        const float4 v = x4[i];
        ms_add(acc, v.x); ms_add(acc, v.y); ms_add(acc, v.z); ms_add(acc, v.w);
    }
    if (epi + tid < T) ms_add(acc, xr[epi + tid]);

    for (int o = 16; o > 0; o >>= 1) {
        MS other = {__shfl_down_sync(0xffffffffu, acc.m, o), __shfl_down_sync(0xffffffffu, acc.s, o)};
        acc = ms_merge(acc, other);
    }
    if ((tid & 31) == 0) part[tid >> 5] = acc;
    __syncthreads();
    if (tid == 0) {
        MS r = part[0];
        for (int w = 1; w < kThreads / 32; ++w) r = ms_merge(r, part[w]);
        total = r;
    }
    __syncthreads();
    const float m = total.m, inv = 1.f / total.s;

    float4* o4 = reinterpret_cast<float4*>(orow + pro);
    if (tid < pro) orow[tid] = expf(xr[tid] - m) * inv;
    for (int i = tid; i < n4; i += kThreads) {
        const float4 v = x4[i];
        float4 r;
        r.x = expf(v.x - m) * inv; r.y = expf(v.y - m) * inv;
        r.z = expf(v.z - m) * inv; r.w = expf(v.w - m) * inv;
        o4[i] = r;
    }
    if (epi + tid < T) orow[epi + tid] = expf(xr[epi + tid] - m) * inv;
}

void softmax_step(DeviceTensor& out, const DeviceTensor& x) {
    const int B = x.size(0), H = x.size(1), T = x.size(2);
    softmax_block_row<<<B * H, kThreads>>>(out.data(), x.data(), T);
}
