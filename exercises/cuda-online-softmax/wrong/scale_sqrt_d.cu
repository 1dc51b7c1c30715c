// Wrong on purpose: the scores are scaled by 1/sqrt(D), D = H*hd the model's
// width, instead of 1/sqrt(hd): a head's dot product has hd terms.
#include <attnlab/cuda.hpp>

#define TILE 16    // keys per shared-memory tile
#define MAX_HD 64  // the widest head the tiles and per-thread arrays hold (ANDREA-120M: hd = 64)

// out: (B, H, T, hd)   q, k, v: (B, H, T, hd)   shared memory: 2·TILE·MAX_HD floats (8 KiB), for any T
// Launch: grid = (ceil(T / blockDim.x), B·H). Block (x, bh) handles query rows
// i0 = x·blockDim.x ... i0 + blockDim.x - 1 (thread t: row i0 + t) of the pair
// (b, h) = (bh / H, bh % H), whose q, k, v and out are (T, hd) matrices
// starting at float (b·H + h)·T·hd. The block walks the keys its rows can see
// once, in tiles of TILE: all threads copy the tile's K and V rows into shared
// memory, then each thread folds the tile's visible keys into its row's running
// max m, running sum l and accumulator acc. Each K and V element is loaded by
// a block at most once.
__global__ void tiled_attention_kernel(float* out, const float* q, const float* k,
                                       const float* v, int H, int T, int hd, float scale) {
    // Key k0 + jj of the current tile at k_tile[jj·hd + d] (rows packed hd
    // floats apart, as in k), its value row at v_tile[jj·hd + d].
    __shared__ float k_tile[TILE * MAX_HD];
    __shared__ float v_tile[TILE * MAX_HD];
    const int b = blockIdx.y / H, h = blockIdx.y % H;
    const int slice = (b * H + h) * T * hd;  // the same offset in q, k, v and out
    const int rows = blockDim.x;
    const int i0 = blockIdx.x * rows;  // the block's first query row

    // Every thread runs the same tiles, with or without a row of its own (the
    // last block's rows may pass T): the barriers inside must be reached by
    // the whole block.
    {
        const int i = i0 + threadIdx.x;  // this thread's query row
        const bool has_row = i < T;
        float q_row[MAX_HD], acc[MAX_HD];
        for (int d = 0; d < hd; ++d) {
            q_row[d] = 0.0f;
            if (has_row) q_row[d] = q[slice + i * hd + d];
            acc[d] = 0.0f;
        }
        float m = -INFINITY, l = 0.0f;  // running max and running sum of exp(s - m)

        const int last_row = min(T, i0 + rows) - 1;  // keys after it are in every row's future
        for (int k0 = 0; k0 <= last_row; k0 += TILE) {
            __syncthreads();  // no thread still reads the previous tile
            // Element e of the tile is key k0 + e / hd, column e % hd: neighbouring
            // threads copy neighbouring floats, in global and in shared memory.
            for (int e = threadIdx.x; e < TILE * hd; e += rows) {
                if (k0 + e / hd < T) {  // the last tile may be partial: keys T, T + 1, ... do not exist
                    k_tile[e] = k[slice + k0 * hd + e];
                    v_tile[e] = v[slice + k0 * hd + e];
                }
            }
            __syncthreads();  // the tile is complete before anyone reads it
            if (!has_row || k0 > i) continue;  // nothing visible here; the next barrier is still reached

            const int n = min(TILE, i - k0 + 1);  // visible keys k0 .. k0 + n - 1 (all <= i < T)
            float s[TILE];
            float tile_max = -INFINITY;
            for (int jj = 0; jj < n; ++jj) {
                float dot = 0.0f;
                for (int d = 0; d < hd; ++d) dot += q_row[d] * k_tile[jj * hd + d];
                s[jj] = dot * scale;
                tile_max = fmaxf(tile_max, s[jj]);
            }
            // Old terms were exp(s - m); with the new max they must be
            // exp(s - m_new) = exp(s - m) · exp(m - m_new). On the first tile
            // m = -inf and the factor is exp(-inf) = 0: nothing to rescale.
            const float m_new = fmaxf(m, tile_max);
            const float correction = expf(m - m_new);
            l *= correction;
            for (int d = 0; d < hd; ++d) acc[d] *= correction;
            for (int jj = 0; jj < n; ++jj) {
                const float p = expf(s[jj] - m_new);  // <= 1: no overflow
                l += p;
                for (int d = 0; d < hd; ++d) acc[d] += p * v_tile[jj * hd + d];
            }
            m = m_new;
        }
        if (has_row)
            for (int d = 0; d < hd; ++d) out[slice + i * hd + d] = acc[d] / l;  // l >= 1: the max's own term is 1
    }
}

// q, k, v: (B, H, T, hd) in device memory; out: (B, H, T, hd), written by the kernel.
void tiled_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const int rows = 32;  // one warp of query rows per block
    const dim3 grid((T + rows - 1) / rows, B * H);
    tiled_attention_kernel<<<grid, rows>>>(out.data(), q.data(), k.data(), v.data(), H, T, hd, 1.0f / sqrtf(float(H * hd)));
}
