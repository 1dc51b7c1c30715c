// Causal attention kernels, one (batch, head) slice per block (v1) or per
// column of blocks (v2). Plain CUDA: nvcc compiles it as it is; for
// attnlab's CPU emulator it takes the path a learner's .cu takes (see
// cuda_compat.cuh).
//
// Notation: B batch, T tokens, H heads, hd head width; scale = 1/sqrt(hd).
// Optional stages (pass null pointers to skip them), named like the Eigen
// reference's stages:
//   scores  (B, H, T, T)  q·k/sqrt(hd) for every (i, j), also j > i
//   masked  (B, H, T, T)  scores with -inf above the diagonal
//   weights (B, H, T, T)  softmax of masked rows: exactly 0 above the diagonal
// q, k and v are read through a QkvLayout: (B, H, T, hd) tensors normally, or
// straight from the (B, T, 3, H, hd) output of the fused projection (the
// un-transposed layout), to compare what the transpose buys. out and the
// stages are always (B, H, T, hd) / (B, H, T, T).
#include "cuda_compat.cuh"

namespace attnlab::kernels::ATTNLAB_KERNEL_NS {

#define ATT_V1_THREADS 128  // 4 warps
#define ATT_V2_ROWS 64      // query rows per block = threads per block
#define ATT_V2_KEYS 32      // keys per shared-memory tile
#define ATT_V2_MAX_HD 128   // per-thread registers for q and the output row

// Element (b, h, t, d) of q, k or v is at b·batch + h·head + t·row + d.
struct QkvLayout {
    int batch, head, row;
};

__device__ __forceinline__ float warp_max(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
    return v;
}

__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
    return v;
}

// ---------------------------------------------------------------- version 1

// out: (B, H, T, hd); q, k, v: (B, H, T, hd) through `in`; scores, masked, weights: (B, H, T, T) or null
// Launch: grid = B·H blocks, block blockIdx.x handles (b, h) = (bx / H, bx % H),
// whose q, k, v slices are contiguous (T, hd) matrices thanks to the
// (B, H, T, hd) layout. 128 threads = 4 warps; warp w takes query rows
// i = w, w + 4, ...; in a row, lane l computes the scores of keys j = l, l+32...
// (j <= i), the warp reduces max and sum with shuffles, and then lane l
// computes output columns d = l, l+32... Dynamic shared memory: one row of T
// floats per warp for the softmax weights.
__global__ void attention_v1(float* out, const float* q, const float* k,
                             const float* v, float* scores, float* masked,
                             float* weights, int T, int H, int hd, QkvLayout in, float scale) {
    extern __shared__ float rows[];
    const int bh = blockIdx.x;
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nwarps = blockDim.x / 32;
    const int base = (bh / H) * in.batch + (bh % H) * in.head;  // this (b, h) slice of q, k, v
    const int out_base = bh * T * hd;                             // and of out
    const bool stages = scores != nullptr;
    for (int i = warp; i < T; i += nwarps) {
        const int row = warp * T;          // this warp's row of weights in shared memory
        const int last_key = stages ? T - 1 : i;  // stages also want the scores above the diagonal
        float row_max = -INFINITY;
        for (int j = lane; j <= last_key; j += 32) {
            float s = 0.0f;
            for (int d = 0; d < hd; ++d) s += q[base + i * in.row + d] * k[base + j * in.row + d];
            s *= scale;
            if (stages) {
                scores[(bh * T + i) * T + j] = s;
                masked[(bh * T + i) * T + j] = j <= i ? s : -INFINITY;
            }
            if (j <= i) {
                rows[row + j] = s;
                row_max = fmaxf(row_max, s);
            }
        }
        row_max = warp_max(row_max);  // key i is never masked, so row_max is finite
        float sum = 0.0f;
        for (int j = lane; j <= i; j += 32) {
            const float e = expf(rows[row + j] - row_max);
            rows[row + j] = e;
            sum += e;
        }
        const float inv_sum = 1.0f / warp_sum(sum);
        if (stages)
            for (int j = lane; j < T; j += 32)
                weights[(bh * T + i) * T + j] = j <= i ? rows[row + j] * inv_sum : 0.0f;
        __syncwarp();  // every lane's exp values are in shared memory before all lanes read them
        for (int d = lane; d < hd; d += 32) {
            float acc = 0.0f;
            for (int j = 0; j <= i; ++j) acc += rows[row + j] * v[base + j * in.row + d];
            out[out_base + i * hd + d] = acc * inv_sum;
        }
        __syncwarp();  // all lanes are done with this row before the next one overwrites it
    }
}

// ---------------------------------------------------------------- version 2

// out: (B, H, T, hd); q, k, v: (B, H, T, hd) through `in`; scores, masked, weights: (B, H, T, T) or null
// Flash-attention style: the T×T weights are never stored.
// Launch: grid (ceil(T / 64), B·H); block (x, bh) handles query rows
// 64·x .. 64·x + 63 of slice bh, one thread per query row (threads past T
// still help load tiles and reach every barrier). Keys are visited in tiles
// of 32: the block copies the tile's K and V rows (contiguous in the
// (B, H, T, hd) layout, so the copy is coalesced) into dynamic shared memory
// (2·32·hd floats), then each thread updates its running max m, running sum l
// and output accumulator with the tile's scores:
//   m' = max(m, max_j s_j);  l' = l·e^(m-m') + Σ_j e^(s_j-m');  acc' = acc·e^(m-m') + Σ_j e^(s_j-m')·v_j
// Tiles after the block's last row are skipped (causal). hd <= 128.
__global__ void attention_v2(float* out, const float* q, const float* k,
                             const float* v, float* scores, float* masked,
                             float* weights, int T, int H, int hd, QkvLayout in, float scale) {
    extern __shared__ float tiles[];
    const int k_tile = 0, v_tile = ATT_V2_KEYS * hd;  // offsets of the K and V tiles in `tiles`
    const int bh = blockIdx.y;
    const int base = (bh / H) * in.batch + (bh % H) * in.head;  // this (b, h) slice of q, k, v
    const int out_base = bh * T * hd;                             // and of out
    const int i = blockIdx.x * ATT_V2_ROWS + threadIdx.x;  // this thread's query row
    const bool has_row = i < T;
    float q_row[ATT_V2_MAX_HD], acc[ATT_V2_MAX_HD], s[ATT_V2_KEYS];
    for (int d = 0; d < hd; ++d) {
        q_row[d] = has_row ? float(q[base + i * in.row + d]) : 0.0f;
        acc[d] = 0.0f;
    }
    float m = -INFINITY, l = 0.0f;
    const int last_row = min(T, (int)(blockIdx.x + 1) * ATT_V2_ROWS) - 1;
    for (int k0 = 0; k0 <= last_row; k0 += ATT_V2_KEYS) {
        __syncthreads();  // the previous tiles are no longer read
        for (int e = threadIdx.x; e < ATT_V2_KEYS * hd; e += blockDim.x) {
            const int key = k0 + e / hd, at = base + key * in.row + e % hd;
            const bool in_range = key < T;  // the last tile may be partial
            tiles[k_tile + e] = in_range ? float(k[at]) : 0.0f;
            tiles[v_tile + e] = in_range ? float(v[at]) : 0.0f;
        }
        __syncthreads();  // the tiles are complete
        if (!has_row || k0 > i) continue;  // still reach the next barrier
        float tile_max = -INFINITY;
        for (int jj = 0; jj < ATT_V2_KEYS; ++jj) {
            if (k0 + jj > i) { s[jj] = -INFINITY; continue; }  // future keys, and keys past T
            float dot = 0.0f;
            for (int d = 0; d < hd; ++d) dot += q_row[d] * tiles[k_tile + jj * hd + d];
            s[jj] = dot * scale;
            tile_max = fmaxf(tile_max, s[jj]);
        }
        const float m_new = fmaxf(m, tile_max);      // finite: key k0 <= i is in this tile
        const float correction = expf(m - m_new);    // 0 on the first tile (m = -inf)
        l *= correction;
        for (int d = 0; d < hd; ++d) acc[d] *= correction;
        for (int jj = 0; jj < ATT_V2_KEYS; ++jj) {
            if (k0 + jj > i) break;
            const float p = expf(s[jj] - m_new);
            l += p;
            for (int d = 0; d < hd; ++d) acc[d] += p * tiles[v_tile + jj * hd + d];
        }
        m = m_new;
    }
    if (!has_row) return;
    for (int d = 0; d < hd; ++d) out[out_base + i * hd + d] = acc[d] / l;
    if (scores == nullptr) return;
    // Stages: recompute each score once more, now that m and l are final.
    for (int j = 0; j < T; ++j) {
        float dot = 0.0f;
        for (int d = 0; d < hd; ++d) dot += q_row[d] * k[base + j * in.row + d];
        const float sc = dot * scale;
        const int at = (bh * T + i) * T + j;
        scores[at] = sc;
        masked[at] = j <= i ? sc : -INFINITY;
        weights[at] = j <= i ? expf(sc - m) / l : 0.0f;
    }
}

// --------------------------------------------------------------- launchers

// version 1 or 2; the stage pointers are all null or all set. q, k, v are
// (B, H, T, hd) tensors, or, with `layout` = {batch, head, row} strides, read
// through that layout (see QkvLayout).
emu::LaunchReport attention(int version, float* out, const float* q, const float* k,
                            const float* v, float* scores, float* masked,
                            float* weights, int B, int H, int T, int hd, const int* layout = nullptr) {
    const float scale = 1.0f / sqrtf(float(hd));
    const QkvLayout in = layout ? QkvLayout{layout[0], layout[1], layout[2]} : QkvLayout{H * T * hd, T * hd, hd};
    if (version == 1) {
        const size_t smem = sizeof(float) * (ATT_V1_THREADS / 32) * T;
        return ATTNLAB_LAUNCH(attention_v1, dim3(B * H), dim3(ATT_V1_THREADS), smem, out, q, k, v, scores,
                              masked, weights, T, H, hd, in, scale);
    }
    const size_t smem = sizeof(float) * 2 * ATT_V2_KEYS * hd;
    const dim3 grid((T + ATT_V2_ROWS - 1) / ATT_V2_ROWS, B * H);
    return ATTNLAB_LAUNCH(attention_v2, grid, dim3(ATT_V2_ROWS), smem, out, q, k, v, scores, masked,
                          weights, T, H, hd, in, scale);
}

int attention_v2_max_head_dim() { return ATT_V2_MAX_HD; }
int attention_v2_rows_per_block() { return ATT_V2_ROWS; }

}  // namespace attnlab::kernels::ATTNLAB_KERNEL_NS
