// Wrong: one rescale per tile, but only the accumulator is multiplied by exp2(m - m_new); the running sum l is not; expect online_rescale_incomplete.
#include <cuda_runtime.h>
#include <cuda_pipeline.h>
#include <math.h>

#define BR 64
#define BC 16
#define HD_MAX 64

// stages key tile `tile` of this (b, h) into buffer slot `buf`: one commit group
__device__ void stage_kv(float* ks, float* vs, const float* kh, const float* vh, int tile, int T, int hd) {
    const int j0 = tile * BC;
    for (int e = threadIdx.x; e < BC * hd; e += BR) {
        const bool inside = j0 + e / hd < T;
        const size_t off = inside ? (size_t)j0 * hd + e : 0;
        __pipeline_memcpy_async(ks + e, kh + off, sizeof(float), inside ? 0 : sizeof(float));
        __pipeline_memcpy_async(vs + e, vh + off, sizeof(float), inside ? 0 : sizeof(float));
    }
    __pipeline_commit();
}

// out, q, k, v: (B, H, T, hd)
__global__ void __launch_bounds__(BR) flash_fwd(float* __restrict__ out, const float* __restrict__ q, const float* __restrict__ k,
                                              const float* __restrict__ v, int T, int hd, float qscale) {
    __shared__ float ks[2][BC * HD_MAX];
    __shared__ float vs[2][BC * HD_MAX];
    const size_t bh = (size_t)blockIdx.z * gridDim.y + blockIdx.y;
    const float* kh = k + bh * T * hd;
    const float* vh = v + bh * T * hd;
    const int q0 = blockIdx.x * BR;
    const int i = q0 + threadIdx.x;
    const bool has_row = i < T;

    float qr[HD_MAX], o[HD_MAX];
    for (int d = 0; d < hd; ++d) {
        qr[d] = has_row ? q[(bh * T + i) * hd + d] * qscale : 0.f;
        o[d] = 0.f;
    }
    float m = -INFINITY, l = 0.f;

    const int n_tiles = (min(T, q0 + BR) + BC - 1) / BC;  // causal early exit
    stage_kv(ks[0], vs[0], kh, vh, 0, T, hd);
    for (int t = 0; t < n_tiles; ++t) {
        const int cur = t & 1;
        if (t + 1 < n_tiles) {
            stage_kv(ks[cur ^ 1], vs[cur ^ 1], kh, vh, t + 1, T, hd);
            __pipeline_wait_prior(1);
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();

        const int j0 = t * BC;
        if (has_row && j0 <= i) {
            float s[BC];
            float mt = m;
            for (int c = 0; c < BC; ++c) {
                if (j0 + c <= i) {
                    float dot = 0.f;
                    for (int d = 0; d < hd; ++d) dot += qr[d] * ks[cur][c * hd + d];
                    s[c] = dot;
                    mt = fmaxf(mt, dot);
                } else {
                    s[c] = -INFINITY;
                }
            }
            const float corr = exp2f(m - mt);  // 0 on the first tile (m = -inf)
            for (int d = 0; d < hd; ++d) o[d] *= corr;
            for (int c = 0; c < BC; ++c) {
                const float p = exp2f(s[c] - mt);
                l += p;
                for (int d = 0; d < hd; ++d) o[d] += p * vs[cur][c * hd + d];
            }
            m = mt;
        }
        __syncthreads();
    }
    if (has_row) {
        const float inv = 1.f / l;
        for (int d = 0; d < hd; ++d) out[(bh * T + i) * hd + d] = o[d] * inv;
    }
}

void flash_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const float qscale = 1.4426950408889634f / sqrtf((float)hd);
    dim3 grid((T + BR - 1) / BR, H, B);
    flash_fwd<<<grid, BR>>>(out.data(), q.data(), k.data(), v.data(), T, hd, qscale);
}
