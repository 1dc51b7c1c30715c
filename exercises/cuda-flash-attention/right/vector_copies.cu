// Right, another way: the solution with 16-byte asynchronous copies where the
// head width allows them (hd a multiple of 4: four times fewer copies), and
// 4-byte copies for any other hd (the case hd = 5).
#include <attnlab/cuda.hpp>
#include <cuda_pipeline.h>

#define BR 64      // query rows per block: one thread per row
#define BC 32      // keys per tile
#define MAX_HD 64  // the widest head the per-thread arrays hold (ANDREA-120M: hd = 64)

// Starts copying key tile `tile` of K and V into buffer `buf`. Where hd is a
// multiple of 4, every row of a head starts on a 16-byte boundary (cudaMalloc
// aligns the buffer, and a head's slice and a row are multiples of 4 floats),
// so each cp.async moves 4 floats; any other hd takes 4-byte copies. Rows past
// T are zero-filled (nothing is read).
__device__ void load_kv_tile_async(float (*ks)[MAX_HD], float (*vs)[MAX_HD], const float* k, const float* v, int tile, int T,
                                   int hd) {
    const int width = hd % 4 == 0 ? 4 : 1;  // floats per copy
    const int per_row = hd / width;
    for (int e = threadIdx.x; e < BC * per_row; e += blockDim.x) {
        const int r = e / per_row, d = (e % per_row) * width, row = tile * BC + r;
        const size_t bytes = width * sizeof(float);
        const size_t skip = row < T ? 0 : bytes;  // zfill: past T the copy writes zeros
        const int src = row < T ? row * hd + d : 0;
        __pipeline_memcpy_async(&ks[r][d], &k[src], bytes, skip);
        __pipeline_memcpy_async(&vs[r][d], &v[src], bytes, skip);
    }
    __pipeline_commit();
}

// out, q, k, v: (B, H, T, hd). Grid: (ceil(T / BR), H, B); block: BR threads.
// Block (qt, h, b) computes rows qt·BR .. qt·BR + BR - 1 of head (b, h); thread
// t owns row i = qt·BR + t: its q row, its running max m, sum l and output
// acc stay in registers while K and V stream through shared memory, two tiles
// in flight: while the block computes with one buffer, the next tile copies
// into the other.
__global__ void flash_attention_kernel(float* out, const float* q, const float* k, const float* v, int H, int T, int hd,
                                       float scale) {
    __shared__ __align__(16) float ks[2][BC][MAX_HD];
    __shared__ __align__(16) float vs[2][BC][MAX_HD];
    const size_t slice = (size_t(blockIdx.z) * H + blockIdx.y) * size_t(T) * hd;
    q += slice, k += slice, v += slice, out += slice;
    const int q0 = blockIdx.x * BR, i = q0 + threadIdx.x;
    const bool has_row = i < T;
    // Causal early exit: the block's last row sees keys up to min(T, q0 + BR) - 1.
    const int tiles = (min(T, q0 + BR) + BC - 1) / BC;

    float q_row[MAX_HD], acc[MAX_HD];
    for (int d = 0; d < hd; ++d) {
        q_row[d] = has_row ? q[i * hd + d] * scale : 0.0f;
        acc[d] = 0.0f;
    }
    float m = -INFINITY, l = 0.0f;

    load_kv_tile_async(ks[0], vs[0], k, v, 0, T, hd);
    for (int j = 0; j < tiles; ++j) {
        const int buf = j & 1;
        if (j + 1 < tiles) {
            load_kv_tile_async(ks[buf ^ 1], vs[buf ^ 1], k, v, j + 1, T, hd);
            __pipeline_wait_prior(1);  // tile j has landed; j + 1 may still be copying
        } else {
            __pipeline_wait_prior(0);
        }
        __syncthreads();  // every thread's part of tile j is in shared memory

        // The tile's scores, its largest visible one, then one rescale per tile.
        float s[BC];
        float tile_max = -INFINITY;
        for (int r = 0; r < BC; ++r) {
            const int key = j * BC + r;
            s[r] = -INFINITY;
            if (!has_row || key > i) continue;  // the future (and rows past T, which are beyond every i)
            float dot = 0.0f;
            for (int d = 0; d < hd; ++d) dot += q_row[d] * ks[buf][r][d];
            s[r] = dot;
            tile_max = fmaxf(tile_max, dot);
        }
        if (tile_max > -INFINITY) {
            const float m_new = fmaxf(m, tile_max);
            const float correction = expf(m - m_new);  // 0 on the first visible tile (m = -inf)
            l *= correction;
            for (int d = 0; d < hd; ++d) acc[d] *= correction;
            for (int r = 0; r < BC; ++r) {
                if (s[r] == -INFINITY) continue;
                const float p = expf(s[r] - m_new);
                l += p;
                for (int d = 0; d < hd; ++d) acc[d] += p * vs[buf][r][d];
            }
            m = m_new;
        }
        __syncthreads();  // everyone is done with buffer `buf` before tile j + 2 copies into it
    }
    if (has_row)
        for (int d = 0; d < hd; ++d) out[i * hd + d] = acc[d] / l;  // l >= 1: the key with the largest score gives 1
}

// q, k, v: (B, H, T, hd) in device memory; out: (B, H, T, hd), written by the kernel.
void flash_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const dim3 grid(ceil_div(T, BR), H, B);
    flash_attention_kernel<<<grid, BR>>>(out.data(), q.data(), k.data(), v.data(), H, T, hd, 1.0f / sqrtf(float(hd)));
}
