// Wrong: block per row; every thread reads the block max from red[0], then lane 0 of each warp writes its partial sum into the same red[] with no __syncthreads between (warp 0 overwrites red[0] while other warps may still read the max); expect shared_race.
#include <cuda_runtime.h>
#include <math.h>

constexpr int NT = 256;

__global__ void softmax_block(float* out, const float* x, int T) {
    __shared__ float red[NT / 32];
    const int tid = threadIdx.x, lane = tid & 31, wid = tid >> 5;
    const size_t start = (size_t)blockIdx.x * T;
    const float* xr = x + start;
    float* yr = out + start;
    const int head = min(T, (int)((4 - start % 4) % 4));
    const int n4 = (T - head) / 4;
    const int tail0 = head + 4 * n4;
    const float4* xv = reinterpret_cast<const float4*>(xr + head);
    float4* yv = reinterpret_cast<float4*>(yr + head);

    float m = -INFINITY;
    if (tid < head) m = xr[tid];
    for (int i = tid; i < n4; i += NT) { float4 v = xv[i]; m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w))); }
    if (tail0 + tid < T) m = fmaxf(m, xr[tail0 + tid]);
    for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    if (lane == 0) red[wid] = m;
    __syncthreads();
    if (wid == 0) {
        float r = lane < NT / 32 ? red[lane] : -INFINITY;
        for (int o = 16; o; o >>= 1) r = fmaxf(r, __shfl_xor_sync(0xffffffffu, r, o));
        if (lane == 0) red[0] = r;
    }
    __syncthreads();
    m = red[0];

    float s = 0.f;
    if (tid < head) s += expf(xr[tid] - m);
    for (int i = tid; i < n4; i += NT) { float4 v = xv[i]; s += expf(v.x - m) + expf(v.y - m) + expf(v.z - m) + expf(v.w - m); }
    if (tail0 + tid < T) s += expf(xr[tail0 + tid] - m);
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) red[wid] = s;  // missing __syncthreads() before this: red[0] still holds the max others read
    __syncthreads();
    if (wid == 0) {
        float r = lane < NT / 32 ? red[lane] : 0.f;
        for (int o = 16; o; o >>= 1) r += __shfl_xor_sync(0xffffffffu, r, o);
        if (lane == 0) red[0] = r;
    }
    __syncthreads();
    const float inv = 1.f / red[0];

    if (tid < head) yr[tid] = expf(xr[tid] - m) * inv;
    for (int i = tid; i < n4; i += NT) { float4 v = xv[i]; yv[i] = make_float4(expf(v.x - m) * inv, expf(v.y - m) * inv, expf(v.z - m) * inv, expf(v.w - m) * inv); }
    if (tail0 + tid < T) yr[tail0 + tid] = expf(xr[tail0 + tid] - m) * inv;
}

void softmax_step(DeviceTensor& out, const DeviceTensor& x) {
    softmax_block<<<x.size(0) * x.size(1), NT>>>(out.data(), x.data(), x.size(2));
}
