// Wrong: V's matrix_b fragment declared wmma::col_major, as Kᵀ's is. V is
// stored one key per row and P·V reads it as it is (row_major): col_major
// takes every 16 x 16 tile of V transposed. The scores and weights are right;
// the output is not.
#include <attnlab/cuda.hpp>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

#define BR 32      // query rows per block: two warps of 16 rows
#define BC 32      // keys per tile
#define MAX_HD 64  // the widest head (ANDREA-120M: hd = 64); hd is a multiple of 16

// out, q, k, v: (B, H, T, hd). Grid: (ceil(T / BR), H, B); block: 64 threads.
// Warp w computes query rows q0 + 16w .. q0 + 16w + 15. Its Q stays in
// fragments; per key tile it multiplies S = Q·Kᵀ on the tensor cores, stores S
// to shared memory, and lanes 0-15 run the online softmax of one row each:
// they rescale that row of O (kept in shared memory, in float) and write its
// probabilities P in __half. Then the warp adds P·V to O on the tensor cores.
__global__ void flash_attention_wmma(float* out, const float* q, const float* k, const float* v, int H, int T, int hd,
                                     float scale) {
    __shared__ __align__(32) __half ks[BC][MAX_HD];  // key tile, row-major: ks[key][d]
    __shared__ __align__(32) __half vs[BC][MAX_HD];
    __shared__ __align__(32) __half qs[BR][MAX_HD];
    __shared__ __align__(32) float ss[BR][BC];       // the warps' scores, staged
    __shared__ __align__(32) __half ps[BR][BC];      // their probabilities
    __shared__ __align__(32) float os[BR][MAX_HD];   // the output rows, unnormalised
    const size_t slice = (size_t(blockIdx.z) * H + blockIdx.y) * size_t(T) * hd;
    q += slice, k += slice, v += slice, out += slice;
    const int q0 = blockIdx.x * BR, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int r = warp * 16 + lane, i = q0 + r;  // lanes 0-15: the row this lane owns
    const int tiles = (min(T, q0 + BR) + BC - 1) / BC;  // causal early exit

    for (int e = threadIdx.x; e < BR * hd; e += blockDim.x) {
        const int row = e / hd, d = e % hd;
        qs[row][d] = __float2half(q0 + row < T ? q[(q0 + row) * hd + d] : 0.0f);
        os[row][d] = 0.0f;
    }
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> qf[MAX_HD / 16];
    for (int kk = 0; kk < hd / 16; ++kk) wmma::load_matrix_sync(qf[kk], &qs[warp * 16][kk * 16], MAX_HD);
    float m = -INFINITY, l = 0.0f;

    for (int j = 0; j < tiles; ++j) {
        const int k0 = j * BC;
        for (int e = threadIdx.x; e < BC * hd; e += blockDim.x) {
            const int key = e / hd, d = e % hd;
            const bool real = k0 + key < T;  // past T: zeros, masked below
            ks[key][d] = __float2half(real ? k[(k0 + key) * hd + d] : 0.0f);
            vs[key][d] = __float2half(real ? v[(k0 + key) * hd + d] : 0.0f);
        }
        __syncthreads();  // the tile is in shared memory

        // S (16 x BC) = Q·Kᵀ: Kᵀ's (d, key) element is ks[key][d], so Kᵀ is column-major.
        for (int n = 0; n < BC / 16; ++n) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> kf;
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> sf;
            wmma::fill_fragment(sf, 0.0f);
            for (int kk = 0; kk < hd / 16; ++kk) {
                wmma::load_matrix_sync(kf, &ks[n * 16][kk * 16], MAX_HD);
                wmma::mma_sync(sf, qf[kk], kf, sf);
            }
            wmma::store_matrix_sync(&ss[warp * 16][n * 16], sf, BC, wmma::mem_row_major);
        }
        __syncwarp();  // S is staged: lanes read rows the whole warp stored

        if (lane < 16) {  // the online softmax of row i, over this tile's visible keys
            float tile_max = -INFINITY;
            for (int c = 0; c < BC; ++c)
                if (i < T && k0 + c <= i) tile_max = fmaxf(tile_max, ss[r][c] * scale);
            const float m_new = fmaxf(m, tile_max);
            const float correction = tile_max == -INFINITY ? 1.0f : expf(m - m_new);
            l *= correction;
            for (int d = 0; d < hd; ++d) os[r][d] *= correction;
            for (int c = 0; c < BC; ++c) {
                const float p = (i < T && k0 + c <= i) ? expf(ss[r][c] * scale - m_new) : 0.0f;
                ps[r][c] = __float2half(p);
                l += p;
            }
            m = m_new;
        }
        __syncwarp();  // P and the rescaled O are in shared memory

        // O (16 x hd) += P (16 x BC) · V (BC x hd), one 16-column slice of O at a time.
        for (int dt = 0; dt < hd / 16; ++dt) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> of;
            wmma::load_matrix_sync(of, &os[warp * 16][dt * 16], MAX_HD, wmma::mem_row_major);
            for (int c = 0; c < BC / 16; ++c) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> pf;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> vf;
                wmma::load_matrix_sync(pf, &ps[warp * 16][c * 16], BC);
                wmma::load_matrix_sync(vf, &vs[c * 16][dt * 16], MAX_HD);
                wmma::mma_sync(of, pf, vf, of);
            }
            wmma::store_matrix_sync(&os[warp * 16][dt * 16], of, MAX_HD, wmma::mem_row_major);
        }
        __syncthreads();  // every warp is done with ks and vs before the next tile overwrites them
    }
    if (lane < 16 && i < T)
        for (int d = 0; d < hd; ++d) out[i * hd + d] = os[r][d] / l;
}

// q, k, v: (B, H, T, hd) in device memory; out: (B, H, T, hd), written by the kernel.
void flash_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const dim3 grid(ceil_div(T, BR), H, B);
    flash_attention_wmma<<<grid, 64>>>(out.data(), q.data(), k.data(), v.data(), H, T, hd, 1.0f / sqrtf(float(hd)));
}
