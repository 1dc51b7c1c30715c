// Correct: template<int HDMAX> (8, 16, 32 or 64, picked on the host from hd), q tile staged once in shared memory (64 x HDMAX), key tiles of 16 double-buffered with __pipeline_memcpy_async (16 KiB + 16 KiB at hd = 64), one row per thread, a commit of an empty group on the last iteration so that wait_prior(1) is always right.
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#include <math.h>

template <int HDMAX>
__global__ void __launch_bounds__(64) flash_t(float* out, const float* q, const float* k, const float* v, int T, int hd, float scale) {
    constexpr int R = 64, C = 16;
    __shared__ float qs[R][HDMAX];
    __shared__ float kt[2][C][HDMAX];
    __shared__ float vt[2][C][HDMAX];
    const int tid = threadIdx.x;
    const size_t off = ((size_t)blockIdx.z * gridDim.y + blockIdx.y) * T * hd;
    const int q0 = blockIdx.x * R;
    const int rows_here = min(R, T - q0);

    for (int e = tid; e < rows_here * hd; e += R) qs[e / hd][e % hd] = q[off + (size_t)q0 * hd + e];

    auto issue = [&](int t, int slot) {
        const int j0 = t * C, n = min(C, T - j0) * hd;
        for (int e = tid; e < n; e += R) {
            __pipeline_memcpy_async(&kt[slot][e / hd][e % hd], k + off + (size_t)j0 * hd + e, 4);
            __pipeline_memcpy_async(&vt[slot][e / hd][e % hd], v + off + (size_t)j0 * hd + e, 4);
        }
        __pipeline_commit();
    };

    const int i = q0 + tid;
    float acc[HDMAX];
#pragma unroll
    for (int d = 0; d < HDMAX; ++d) acc[d] = 0.f;
    float mrow = -INFINITY, lrow = 0.f;
    const int tiles = (min(T, q0 + R) + C - 1) / C;

    issue(0, 0);
    for (int t = 0; t < tiles; ++t) {
        if (t + 1 < tiles) issue(t + 1, (t + 1) & 1);
        else __pipeline_commit();  // empty group: keeps "all but the newest" meaning tile t
        __pipeline_wait_prior(1);
        __syncthreads();           // also orders the qs stores before the first reads
        const int slot = t & 1, j0 = t * C;
        if (i < T && j0 <= i) {
            const int cnt = min(C, i - j0 + 1);
            float s[C];
            float mnew = mrow;
            for (int c = 0; c < cnt; ++c) {
                float dot = 0.f;
                for (int d = 0; d < hd; ++d) dot += qs[tid][d] * kt[slot][c][d];
                s[c] = dot * scale;
                mnew = fmaxf(mnew, s[c]);
            }
            const float a = __expf(mrow - mnew);
            lrow *= a;
#pragma unroll
            for (int d = 0; d < HDMAX; ++d) acc[d] *= a;
            for (int c = 0; c < cnt; ++c) {
                const float p = __expf(s[c] - mnew);
                lrow += p;
                for (int d = 0; d < hd; ++d) acc[d] += p * vt[slot][c][d];
            }
            mrow = mnew;
        }
        __syncthreads();
    }
    if (i < T)
        for (int d = 0; d < hd; ++d) out[off + (size_t)i * hd + d] = acc[d] / lrow;
}

void flash_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const dim3 grid((T + 63) / 64, H, B);
    const float scale = 1.0f / sqrtf((float)hd);
    if (hd <= 8) flash_t<8><<<grid, 64>>>(out.data(), q.data(), k.data(), v.data(), T, hd, scale);
    else if (hd <= 16) flash_t<16><<<grid, 64>>>(out.data(), q.data(), k.data(), v.data(), T, hd, scale);
    else if (hd <= 32) flash_t<32><<<grid, 64>>>(out.data(), q.data(), k.data(), v.data(), T, hd, scale);
    else flash_t<64><<<grid, 64>>>(out.data(), q.data(), k.data(), v.data(), T, hd, scale);
}
