// Wrong on purpose: no barrier at the end of the tile loops. A fast thread
// loads the next tile while a slow one still reads this one: a shared race.
#include <attnlab/cuda.hpp>

#define MAX_HD 64  // the widest head the per-thread arrays hold (ANDREA-120M: hd = 64)
#define TILE 16    // keys per tile: 2 tiles of 16 x 64 floats are 8 KiB, whatever T is

// out: (B, H, T, hd)   q, k, v: (B, H, T, hd)   shared: one tile of K and one of V
// Launch: grid = B·H blocks; block bh handles the pair (b, h) = (bh / H, bh % H),
// whose q, k, v and out are (T, hd) matrices starting at float (b·H + h)·T·hd.
// Thread t takes query rows t, t + blockDim.x, ... in rounds; in every round
// the whole block walks the key tiles its rows can see, twice: once for each
// row's maximum, once for the weights and the weighted sum.
__global__ void tiled_attention_kernel(float* out, const float* q, const float* k, const float* v,
                                       int H, int T, int hd, float scale) {
    __shared__ float ks[TILE][MAX_HD];
    __shared__ float vs[TILE][MAX_HD];
    const int b = blockIdx.x / H, h = blockIdx.x % H;
    const int slice = (b * H + h) * T * hd;

    for (int i0 = 0; i0 < T; i0 += blockDim.x) {
        const int i = i0 + threadIdx.x;  // this thread's row in this round
        const bool has_row = i < T;      // a thread past T still takes part in every barrier
        const int keys = min(T, i0 + (int)blockDim.x);  // the round's last row sees keys 0 .. keys - 1
        float q_row[MAX_HD], acc[MAX_HD];
        for (int d = 0; d < hd; ++d) {
            q_row[d] = has_row ? q[slice + i * hd + d] : 0.0f;
            acc[d] = 0.0f;
        }

        // Pass 1: the largest visible score of each row.
        float m = -INFINITY;
        for (int j0 = 0; j0 < keys; j0 += TILE) {
            for (int e = threadIdx.x; e < TILE * hd; e += blockDim.x) {
                const int r = e / hd, d = e % hd;
                if (j0 + r < T) ks[r][d] = k[slice + (j0 + r) * hd + d];
            }
            __syncthreads();  // the tile is complete before anyone reads it
            for (int r = 0; r < TILE && has_row && j0 + r <= i; ++r) {
                float s = 0.0f;
                for (int d = 0; d < hd; ++d) s += q_row[d] * ks[r][d];
                m = fmaxf(m, s * scale);
            }
        }

        // Pass 2: p = exp(s - m) in (0, 1]; l sums them, acc sums p·v.
        float l = 0.0f;
        for (int j0 = 0; j0 < keys; j0 += TILE) {
            for (int e = threadIdx.x; e < TILE * hd; e += blockDim.x) {
                const int r = e / hd, d = e % hd;
                if (j0 + r < T) {
                    ks[r][d] = k[slice + (j0 + r) * hd + d];
                    vs[r][d] = v[slice + (j0 + r) * hd + d];
                }
            }
            __syncthreads();
            for (int r = 0; r < TILE && has_row && j0 + r <= i; ++r) {
                float s = 0.0f;
                for (int d = 0; d < hd; ++d) s += q_row[d] * ks[r][d];
                const float p = expf(s * scale - m);
                l += p;
                for (int d = 0; d < hd; ++d) acc[d] += p * vs[r][d];
            }
        }
        if (has_row)
            for (int d = 0; d < hd; ++d) out[slice + i * hd + d] = acc[d] / l;  // l >= 1: the key with s = m gives 1
    }
}

// q, k, v: (B, H, T, hd) in device memory; out: (B, H, T, hd), written by the kernel.
void tiled_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    tiled_attention_kernel<<<B * H, 64>>>(out.data(), q.data(), k.data(), v.data(), H, T, hd, 1.0f / sqrtf(float(hd)));
}
