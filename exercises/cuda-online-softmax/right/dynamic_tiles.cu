// Right, another way: tiles of 8 keys sized to the real hd in dynamic shared
// memory (2·8·hd floats instead of 2·16·64), two warps of query rows per
// block, and the scores computed twice per tile instead of kept in an array.
// A different TILE and block size change nothing in the result.
#include <attnlab/cuda.hpp>

#define TILE 8
#define MAX_HD 64

// out: (B, H, T, hd)   q, k, v: (B, H, T, hd)   dynamic shared memory: 2·TILE·hd floats
// Launch: grid = (ceil(T / blockDim.x), B·H); block (x, bh) takes query rows
// i0 = x·blockDim.x ... of the pair (b, h) = (bh / H, bh % H), thread t row i0 + t.
__global__ void tiled_attention_kernel(float* out, const float* q, const float* k,
                                       const float* v, int H, int T, int hd, float scale) {
    extern __shared__ float tiles[];  // K tile at tiles[jj·hd + d], V tile at tiles[TILE·hd + jj·hd + d]
    const int v_at = TILE * hd;
    const int b = blockIdx.y / H, h = blockIdx.y % H;
    const int slice = (b * H + h) * T * hd;
    const int i0 = blockIdx.x * blockDim.x;

    {
        const int i = i0 + threadIdx.x;
        const bool has_row = i < T;
        float q_row[MAX_HD], acc[MAX_HD];  // q read once: the scores are computed twice
        for (int d = 0; d < hd; ++d) {
            q_row[d] = has_row ? q[slice + i * hd + d] : 0.0f;
            acc[d] = 0.0f;
        }
        float m = -INFINITY, l = 0.0f;
        const int keys = min(T, i0 + (int)blockDim.x);  // keys 0 .. keys - 1 are visible to some row of the block
        for (int k0 = 0; k0 < keys; k0 += TILE) {
            __syncthreads();
            for (int e = threadIdx.x; e < TILE * hd && k0 * hd + e < T * hd; e += blockDim.x) {
                tiles[e] = k[slice + k0 * hd + e];  // key k0 + e / hd, column e % hd
                tiles[v_at + e] = v[slice + k0 * hd + e];
            }
            __syncthreads();
            const int last = has_row ? min(k0 + TILE, i + 1) : k0;  // keys k0 .. last - 1 are visible to row i
            if (last <= k0) continue;
            float tile_max = -INFINITY;
            for (int j = k0; j < last; ++j) {
                float dot = 0.0f;
                for (int d = 0; d < hd; ++d) dot += q_row[d] * tiles[(j - k0) * hd + d];
                tile_max = fmaxf(tile_max, dot * scale);
            }
            const float m_new = fmaxf(m, tile_max);
            const float correction = expf(m - m_new);
            l *= correction;
            for (int d = 0; d < hd; ++d) acc[d] *= correction;
            for (int j = k0; j < last; ++j) {  // the scores again, instead of an array of TILE per thread
                float dot = 0.0f;
                for (int d = 0; d < hd; ++d) dot += q_row[d] * tiles[(j - k0) * hd + d];
                const float p = expf(dot * scale - m_new);
                l += p;
                for (int d = 0; d < hd; ++d) acc[d] += p * tiles[v_at + (j - k0) * hd + d];
            }
            m = m_new;
        }
        if (has_row)
            for (int d = 0; d < hd; ++d) out[slice + i * hd + d] = acc[d] / l;
    }
}

void tiled_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const size_t smem = 2 * TILE * hd * sizeof(float);
    const dim3 grid((T + 63) / 64, B * H);
    tiled_attention_kernel<<<grid, 64, smem>>>(out.data(), q.data(), k.data(), v.data(), H, T, hd, 1.0f / sqrtf(float(hd)));
}
