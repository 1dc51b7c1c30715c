// Correct: template<int WARPS> warp per row over a grid-stride loop of rows; __ldg float4 loads, __expf; pass 2 writes exp(x - m) to out (float4) and sums it, pass 3 reads out back and scales it in place.
#include <cuda_runtime.h>
#include <math.h>

template <int WARPS>
__global__ void softmax_rows_v4(float* out, const float* __restrict__ x, int T, int rows) {
    const int lane = threadIdx.x % 32;
    for (int row = blockIdx.x * WARPS + threadIdx.x / 32; row < rows; row += gridDim.x * WARPS) {
        const long long base = (long long)row * T;
        const int lead = min(T, (int)((4 - base % 4) % 4));
        const int quads = (T - lead) / 4;
        const float* xr = x + base;
        float* yr = out + base;
        const float4* xv = reinterpret_cast<const float4*>(xr + lead);
        float4* yv = reinterpret_cast<float4*>(yr + lead);
        const int rest = lead + quads * 4;

        float m = -FLT_MAX;
        for (int j = lane; j < lead; j += 32) m = fmaxf(m, __ldg(xr + j));
        for (int q = lane; q < quads; q += 32) {
            const float4 v = __ldg(xv + q);
            m = fmaxf(fmaxf(m, fmaxf(v.x, v.y)), fmaxf(v.z, v.w));
        }
        for (int j = rest + lane; j < T; j += 32) m = fmaxf(m, __ldg(xr + j));
        for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));

        float sum = 0.f;
        for (int j = lane; j < lead; j += 32) { const float e = __expf(__ldg(xr + j) - m); yr[j] = e; sum += e; }
        for (int q = lane; q < quads; q += 32) {
            const float4 v = __ldg(xv + q);
            const float4 e = make_float4(__expf(v.x - m), __expf(v.y - m), __expf(v.z - m), __expf(v.w - m));
            yv[q] = e;
            sum += (e.x + e.y) + (e.z + e.w);
        }
        for (int j = rest + lane; j < T; j += 32) { const float e = __expf(__ldg(xr + j) - m); yr[j] = e; sum += e; }
        for (int o = 16; o; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
        const float r = 1.f / sum;

        // each lane rescales exactly the elements it wrote itself
        for (int j = lane; j < lead; j += 32) yr[j] *= r;
        for (int q = lane; q < quads; q += 32) {
            float4 e = yv[q];
            e.x *= r; e.y *= r; e.z *= r; e.w *= r;
            yv[q] = e;
        }
        for (int j = rest + lane; j < T; j += 32) yr[j] *= r;
    }
}

void softmax_step(DeviceTensor& out, const DeviceTensor& x) {
    const int T = x.size(2);
    const int rows = x.numel() / T;
    constexpr int W = 4;
    const int blocks = min((rows + W - 1) / W, 64);
    softmax_rows_v4<W><<<blocks, 32 * W>>>(out.data(), x.data(), T, rows);
}
