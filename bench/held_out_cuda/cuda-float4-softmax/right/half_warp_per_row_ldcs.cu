// Correct: 16 lanes per row (two rows per warp, __shfl_xor_sync with width 16), llm.c-style cache hints: __ldcs for the float4 loads and __stcs for the float4 stores (streaming, read once / written once), scalar head and tail; online max/sum in one pass, then the write pass.
#include <cuda_runtime.h>
#include <math.h>

__global__ void softmax_half_warp(float* __restrict__ out, const float* __restrict__ x, int T, int rows) {
    const int sub = threadIdx.x & 15;                        // lane within the half-warp
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 4;
    // both halves of a warp run the shuffles below, so a half whose row is out of range still takes part
    const bool live = row < rows;
    const size_t start = (size_t)(live ? row : 0) * T;
    const int head = live ? min(T, (int)((4 - start % 4) % 4)) : 0;
    const int nv = live ? (T - head) / 4 : 0;
    const int tail = head + 4 * nv;
    const int tn = live ? T - tail : 0;
    const float* xr = x + start;
    float* yr = out + start;
    const float4* xv = reinterpret_cast<const float4*>(xr + head);
    float4* yv = reinterpret_cast<float4*>(yr + head);

    float m = -INFINITY, s = 0.f;
    auto add = [&](float val) {
        if (val > m) { s = s * expf(m - val) + 1.f; m = val; }
        else s += expf(val - m);
    };
    if (sub < head) add(__ldcs(xr + sub));
    for (int i = sub; i < nv; i += 16) {
        const float4 f = __ldcs(xv + i);
        add(f.x); add(f.y); add(f.z); add(f.w);
    }
    if (sub < tn) add(__ldcs(xr + tail + sub));
    for (int o = 8; o > 0; o >>= 1) {
        const float mo = __shfl_xor_sync(0xffffffffu, m, o, 16);
        const float so = __shfl_xor_sync(0xffffffffu, s, o, 16);
        const float mn = fmaxf(m, mo);
        s = (m == -INFINITY ? 0.f : s * expf(m - mn)) + (mo == -INFINITY ? 0.f : so * expf(mo - mn));
        m = mn;
    }
    if (!live) return;
    const float inv = 1.f / s;
    if (sub < head) __stcs(yr + sub, expf(__ldcs(xr + sub) - m) * inv);
    for (int i = sub; i < nv; i += 16) {
        const float4 f = __ldcs(xv + i);
        __stcs(yv + i, make_float4(expf(f.x - m) * inv, expf(f.y - m) * inv, expf(f.z - m) * inv, expf(f.w - m) * inv));
    }
    if (sub < tn) __stcs(yr + tail + sub, expf(__ldcs(xr + tail + sub) - m) * inv);
}

void softmax_step(DeviceTensor& out, const DeviceTensor& x) {
    const int T = x.size(2), rows = x.numel() / T;
    const int threads = 128;  // 8 rows per block
    softmax_half_warp<<<(rows * 16 + threads - 1) / threads, threads>>>(out.data(), x.data(), T, rows);
}
