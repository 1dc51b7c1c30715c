// Correct: 256 threads, 8 warps, warp w owns query rows q0 + w + 8r (r = 0..7, interleaved for causal balance); lane = key of a 32-key tile for the scores (q broadcast by __shfl_sync), lane = dim (d, d + 32) for the output; 16-byte __pipeline_memcpy_async when hd % 4 == 0, 4-byte otherwise, rows past T not copied and never read; exp2f with log2(e)/sqrt(hd) folded into q. [attnlab 2026-12-03: timeout on the T = 1024 case, 15 s CPU limit; passes every case in 35.6 s CPU with the limit raised to 60 s: 21.3 M warp shuffles in the unchecked blocks]
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#include <math.h>

constexpr int WARPS = 8, BR = 64, BC = 32, RPW = BR / WARPS, HDM = 64;
constexpr unsigned FULL = 0xffffffffu;

__device__ __forceinline__ float wmax(float x) { for (int o = 16; o; o >>= 1) x = fmaxf(x, __shfl_xor_sync(FULL, x, o)); return x; }
__device__ __forceinline__ float wsum(float x) { for (int o = 16; o; o >>= 1) x += __shfl_xor_sync(FULL, x, o); return x; }

__device__ void copy_tile(float (*ks)[HDM], float (*vs)[HDM], const float* k, const float* v, int j0, int T, int hd) {
    const int rows = min(BC, T - j0);
    if ((hd & 3) == 0) {
        const int per = hd / 4;
        for (int e = threadIdx.x; e < rows * per; e += blockDim.x) {
            const int r = e / per, c = (e % per) * 4;
            __pipeline_memcpy_async(&ks[r][c], k + (size_t)(j0 + r) * hd + c, 16);
            __pipeline_memcpy_async(&vs[r][c], v + (size_t)(j0 + r) * hd + c, 16);
        }
    } else {
        for (int e = threadIdx.x; e < rows * hd; e += blockDim.x) {
            const int r = e / hd, c = e % hd;
            __pipeline_memcpy_async(&ks[r][c], k + (size_t)(j0 + r) * hd + c, 4);
            __pipeline_memcpy_async(&vs[r][c], v + (size_t)(j0 + r) * hd + c, 4);
        }
    }
    __pipeline_commit();
}

// out, q, k, v: (B, H, T, hd)
__global__ void __launch_bounds__(WARPS * 32) flash_warp_rows(float* out, const float* q, const float* k, const float* v, int T, int hd, float sl2) {
    __shared__ __align__(16) float Ks[2][BC][HDM];
    __shared__ __align__(16) float Vs[2][BC][HDM];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const size_t base = ((size_t)blockIdx.z * gridDim.y + blockIdx.y) * T * hd;
    const float *qh = q + base, *kh = k + base, *vh = v + base;
    const int q0 = blockIdx.x * BR;
    const bool lo = lane < hd, hi = lane + 32 < hd;

    float qa[RPW], qb[RPW], oa[RPW], ob[RPW], m[RPW], l[RPW];
#pragma unroll
    for (int r = 0; r < RPW; ++r) {
        const int row = q0 + warp + WARPS * r;
        const bool ok = row < T;
        qa[r] = ok && lo ? qh[(size_t)row * hd + lane] * sl2 : 0.f;
        qb[r] = ok && hi ? qh[(size_t)row * hd + lane + 32] * sl2 : 0.f;
        oa[r] = ob[r] = 0.f;
        m[r] = -INFINITY;
        l[r] = 0.f;
    }

    const int ntiles = (min(T, q0 + BR) + BC - 1) / BC;
    copy_tile(Ks[0], Vs[0], kh, vh, 0, T, hd);
    for (int t = 0; t < ntiles; ++t) {
        const int cur = t & 1, j0 = t * BC;
        if (t + 1 < ntiles) {
            copy_tile(Ks[cur ^ 1], Vs[cur ^ 1], kh, vh, j0 + BC, T, hd);
            __pipeline_wait_prior(1);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();
#pragma unroll
        for (int r = 0; r < RPW; ++r) {
            const int row = q0 + warp + WARPS * r;
            if (row >= T || j0 > row) continue;  // uniform over the warp
            const bool vis = j0 + lane <= row;
            float s = 0.f;
            for (int d = 0; d < hd; ++d) {
                const float qd = __shfl_sync(FULL, d < 32 ? qa[r] : qb[r], d & 31);
                if (vis) s += qd * Ks[cur][lane][d];
            }
            if (!vis) s = -INFINITY;
            const float mt = fmaxf(m[r], wmax(s));
            const float corr = exp2f(m[r] - mt);
            const float p = vis ? exp2f(s - mt) : 0.f;
            l[r] = l[r] * corr + wsum(p);
            oa[r] *= corr;
            ob[r] *= corr;
            const int cn = min(BC, row - j0 + 1);
            for (int c = 0; c < cn; ++c) {
                const float pc = __shfl_sync(FULL, p, c);
                if (lo) oa[r] += pc * Vs[cur][c][lane];
                if (hi) ob[r] += pc * Vs[cur][c][lane + 32];
            }
            m[r] = mt;
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < RPW; ++r) {
        const int row = q0 + warp + WARPS * r;
        if (row >= T) continue;
        if (lo) out[base + (size_t)row * hd + lane] = oa[r] / l[r];
        if (hi) out[base + (size_t)row * hd + lane + 32] = ob[r] / l[r];
    }
}

void flash_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const float sl2 = 1.44269504f * rsqrtf((float)hd);
    flash_warp_rows<<<dim3((T + BR - 1) / BR, H, B), WARPS * 32>>>(out.data(), q.data(), k.data(), v.data(), T, hd, sl2);
}
