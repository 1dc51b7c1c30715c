// Correct (a probe): block per row with cub::BlockReduce (cub ships with the CUDA toolkit; llm.c and many blogs reduce this way), float4 body between a scalar head and tail, max then sum, the results broadcast through __shared__. [attnlab 2026-12-03: compile_error, cub/cub.cuh not found by the emulator build; nvcc 13.0 compiles it]
#include <cuda_runtime.h>
#include <cub/cub.cuh>
#include <math.h>

template <int NT>
__global__ void softmax_cub(float* out, const float* x, int T) {
    typedef cub::BlockReduce<float, NT> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    __shared__ float row_max, row_inv;
    const size_t start = (size_t)blockIdx.x * T;
    const float* xr = x + start;
    float* yr = out + start;
    const int head = min(T, (int)((4 - start % 4) % 4));
    const int nv = (T - head) / 4;
    const int t0 = head + 4 * nv;
    const float4* xv = reinterpret_cast<const float4*>(xr + head);
    float4* yv = reinterpret_cast<float4*>(yr + head);
    const int tid = threadIdx.x;

    float m = -INFINITY;
    if (tid < head) m = xr[tid];
    for (int i = tid; i < nv; i += NT) { const float4 f = xv[i]; m = fmaxf(fmaxf(m, fmaxf(f.x, f.y)), fmaxf(f.z, f.w)); }
    if (t0 + tid < T) m = fmaxf(m, xr[t0 + tid]);
    const float bm = Reduce(tmp).Reduce(m, cuda::maximum<>{});
    if (tid == 0) row_max = bm;
    __syncthreads();  // row_max visible, and tmp free for the second reduction
    m = row_max;

    float s = 0.f;
    if (tid < head) s += expf(xr[tid] - m);
    for (int i = tid; i < nv; i += NT) { const float4 f = xv[i]; s += expf(f.x - m) + expf(f.y - m) + expf(f.z - m) + expf(f.w - m); }
    if (t0 + tid < T) s += expf(xr[t0 + tid] - m);
    const float bs = Reduce(tmp).Sum(s);
    if (tid == 0) row_inv = 1.f / bs;
    __syncthreads();
    const float inv = row_inv;

    if (tid < head) yr[tid] = expf(xr[tid] - m) * inv;
    for (int i = tid; i < nv; i += NT) {
        const float4 f = xv[i];
        yv[i] = make_float4(expf(f.x - m) * inv, expf(f.y - m) * inv, expf(f.z - m) * inv, expf(f.w - m) * inv);
    }
    if (t0 + tid < T) yr[t0 + tid] = expf(xr[t0 + tid] - m) * inv;
}

void softmax_step(DeviceTensor& out, const DeviceTensor& x) {
    const int T = x.size(2);
    softmax_cub<128><<<x.numel() / T, 128>>>(out.data(), x.data(), T);
}
