// Wrong on purpose: the scores are scaled by 1/sqrt(D), D = H*hd the model's
// width, instead of 1/sqrt(hd): a head's dot product has hd terms.
#include <attnlab/cuda.hpp>

constexpr int kTile = 32;  // keys per block: one per lane of a warp
constexpr int kRows = 8;   // warps per block; warp y takes queries y, y + kRows, ...

// out: (B, H, T, T)   q, k: (B, H, T, hd)
// out[b, h, i, j] = scale * sum_d q[b, h, i, d] * k[b, h, j, d]
__global__ void scores_kernel(float* out, const float* q, const float* k,
                              int T, int hd, float scale) {
    // Launch layout: grid (ceil(T / kTile), B*H), block (kTile, kRows).
    // blockIdx.y is the (b, h) slice; blockIdx.x picks keys j0 ... j0 + kTile - 1.
    // Lane threadIdx.x owns key j0 + threadIdx.x; warp threadIdx.y walks the queries.
    extern __shared__ float k_tile[];  // kTile rows of hd floats, padded to hd + 1
    const int bh = blockIdx.y;
    const int j0 = blockIdx.x * kTile;
    const int n_keys = min(kTile, T - j0);
    const int tid = threadIdx.y * kTile + threadIdx.x;

    // 1. Stage the tile. In (B, H, T, hd) its n_keys * hd floats are ONE
    //    contiguous range, so consecutive threads read consecutive floats:
    //    each warp request covers 32 consecutive floats, 4 sectors.
    const float* k_src = k + (bh * T + j0) * hd;
    for (int e = tid; e < n_keys * hd; e += kTile * kRows) {
        const int jj = e / hd, d = e % hd;
        k_tile[jj * (hd + 1) + d] = k_src[e];  // +1 padding: lanes of a warp later read different banks
    }
    __syncthreads();  // the whole tile is in shared memory before anyone reads it

    // 2. Scores. All 32 lanes of a warp read the same q element (one sector,
    //    a broadcast) and their own key row from shared memory.
    const int jj = threadIdx.x;
    if (jj >= n_keys) return;  // a partial last tile; no barrier follows
    for (int i = threadIdx.y; i < T; i += kRows) {
        const float* q_row = q + (bh * T + i) * hd;
        float acc = 0.0f;
        for (int d = 0; d < hd; ++d) {
            const float qv = q_row[d];
            acc += qv * k_tile[jj * (hd + 1) + d];
        }
        out[(bh * T + i) * T + j0 + jj] = acc * scale;  // lanes write consecutive j: coalesced
    }
}

// attnlab calls this once per case: q and k are already in device memory, out
// has shape (B, H, T, T) and holds garbage until a kernel writes it.
void attention_scores(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const float scale = 1.0f / sqrtf(static_cast<float>(H * hd));
    const dim3 grid(ceil_div(T, kTile), B * H);
    const dim3 block(kTile, kRows);
    const size_t smem = kTile * (hd + 1) * sizeof(float);
    scores_kernel<<<grid, block, smem>>>(out.data(), q.data(), k.data(), T, hd, scale);
}
