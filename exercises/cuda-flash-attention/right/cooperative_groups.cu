// Right, another way: cooperative groups' memcpy_async copies a key tile of K
// and of V as two contiguous runs of bytes (rows j·BC .. of a (T, hd) matrix
// follow each other in memory), cut into 16-byte pieces where the addresses
// allow, and cg::wait_prior<1> waits for all but the newest tile and syncs the
// block. Past T nothing is copied: no row ever reads a key beyond itself.
#include <attnlab/cuda.hpp>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>

namespace cg = cooperative_groups;

#define BR 64      // query rows per block: one thread per row
#define BC 32      // keys per tile
#define MAX_HD 64  // the widest head the tiles hold (ANDREA-120M: hd = 64)

// Key r of a tile sits at tile[r·hd + d]: the tile is a copy of a slice of K or V.
__device__ void copy_tile(const cg::thread_block& block, float* ks, float* vs, const float* k, const float* v, int tile,
                          int T, int hd) {
    const int rows = min(BC, T - tile * BC);
    const size_t bytes = size_t(rows) * hd * sizeof(float);
    cg::memcpy_async(block, ks, k + size_t(tile) * BC * hd, bytes);
    cg::memcpy_async(block, vs, v + size_t(tile) * BC * hd, bytes);
}

// out, q, k, v: (B, H, T, hd). Grid: (ceil(T / BR), H, B); block: BR threads, thread t owns row q0 + t.
__global__ void flash_attention_kernel(float* out, const float* q, const float* k, const float* v, int H, int T, int hd,
                                       float scale) {
    __shared__ __align__(16) float ks[2][BC * MAX_HD];
    __shared__ __align__(16) float vs[2][BC * MAX_HD];
    cg::thread_block block = cg::this_thread_block();
    const size_t slice = (size_t(blockIdx.z) * H + blockIdx.y) * size_t(T) * hd;
    q += slice, k += slice, v += slice, out += slice;
    const int q0 = blockIdx.x * BR, i = q0 + threadIdx.x;
    const bool has_row = i < T;
    const int last_row = min(T, q0 + BR) - 1;

    float q_row[MAX_HD], acc[MAX_HD];
    for (int d = 0; d < hd; ++d) q_row[d] = has_row ? q[i * hd + d] * scale : 0.0f, acc[d] = 0.0f;
    float m = -INFINITY, l = 0.0f;

    copy_tile(block, ks[0], vs[0], k, v, 0, T, hd);
    for (int j = 0; j * BC <= last_row; ++j) {
        const int buf = j & 1;
        if ((j + 1) * BC <= last_row) {
            copy_tile(block, ks[buf ^ 1], vs[buf ^ 1], k, v, j + 1, T, hd);
            cg::wait_prior<2>(block);  // two commits per tile: tile j's have landed
        } else {
            cg::wait(block);
        }
        const int visible = has_row ? min(BC, i - j * BC + 1) : 0;  // keys of this tile row i sees
        if (visible > 0) {
            float s[BC], tile_max = -INFINITY;
            for (int r = 0; r < visible; ++r) {
                float dot = 0.0f;
                for (int d = 0; d < hd; ++d) dot += q_row[d] * ks[buf][r * hd + d];
                s[r] = dot, tile_max = fmaxf(tile_max, dot);
            }
            const float m_new = fmaxf(m, tile_max), correction = expf(m - m_new);
            l *= correction;
            for (int d = 0; d < hd; ++d) acc[d] *= correction;
            for (int r = 0; r < visible; ++r) {
                const float p = expf(s[r] - m_new);
                l += p;
                for (int d = 0; d < hd; ++d) acc[d] += p * vs[buf][r * hd + d];
            }
            m = m_new;
        }
        block.sync();  // buffer `buf` is free for tile j + 2
    }
    if (has_row)
        for (int d = 0; d < hd; ++d) out[i * hd + d] = acc[d] / l;
}

// q, k, v: (B, H, T, hd) in device memory; out: (B, H, T, hd), written by the kernel.
void flash_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const dim3 grid(ceil_div(T, BR), H, B);
    flash_attention_kernel<<<grid, BR>>>(out.data(), q.data(), k.data(), v.data(), H, T, hd, 1.0f / sqrtf(float(hd)));
}
