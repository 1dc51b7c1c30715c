// Wrong on purpose: the scores are divided by hd instead of sqrt(hd): the
// square root is forgotten.
#include <attnlab/cuda.hpp>

constexpr int kTile = 32;  // keys per block: one per lane of a warp
constexpr int kRows = 8;   // warps per block; warp y takes queries y, y + kRows, ...

// out: (B, H, T, T)   q, k: (B, T, H, hd)
// out[b, h, i, j] = scale * sum_d q[b, i, h, d] * k[b, j, h, d]
__global__ void scores_kernel(float* out, const float* q, const float* k,
                              int H, int T, int hd, float scale) {
    // Launch layout: grid (ceil(T / kTile), B*H), block (kTile, kRows).
    // blockIdx.y is the (b, h) pair, l = b*H + h; blockIdx.x picks keys j0 ... j0 + kTile - 1.
    // Lane threadIdx.x owns key j0 + threadIdx.x; warp threadIdx.y walks the queries.
    extern __shared__ float k_tile[];  // kTile rows of hd floats, padded to hd + 1
    const int bh = blockIdx.y;
    const int b = bh / H, h = bh % H;
    const int D = H * hd;  // floats from one token's row to the next
    const int j0 = blockIdx.x * kTile;
    const int n_keys = min(kTile, T - j0);
    const int tid = threadIdx.y * kTile + threadIdx.x;

    // Head h of token t starts at (b*T + t)*D + h*hd: the head's rows are hd
    // floats each, D floats apart, with the other heads' floats between them.
    const float* k_head = k + b * T * D + h * hd;  // k[b, 0, h, 0]
    const float* q_head = q + b * T * D + h * hd;  // q[b, 0, h, 0]

    // 1. Stage the tile. Consecutive threads still read consecutive floats
    //    within a row; a warp's 32 floats now span 32 / hd rows, D floats apart.
    for (int e = tid; e < n_keys * hd; e += kTile * kRows) {
        const int jj = e / hd, d = e % hd;
        k_tile[jj * (hd + 1) + d] = k_head[(j0 + jj) * D + d];  // +1 padding: no bank conflicts later
    }
    __syncthreads();  // the whole tile is in shared memory before anyone reads it

    // 2. Scores. All 32 lanes of a warp read the same q element (one sector,
    //    a broadcast) and their own key row from shared memory.
    const int jj = threadIdx.x;
    if (jj >= n_keys) return;  // a partial last tile; no barrier follows
    for (int i = threadIdx.y; i < T; i += kRows) {
        const float* q_row = q_head + i * D;
        float acc = 0.0f;
        for (int d = 0; d < hd; ++d) {
            const float qv = q_row[d];
            acc += qv * k_tile[jj * (hd + 1) + d];
        }
        out[(bh * T + i) * T + j0 + jj] = acc * scale;  // out is (B, H, T, T): lanes write consecutive j
    }
}

// attnlab calls this once per case: q and k are already in device memory, out
// has shape (B, H, T, T) and holds garbage until a kernel writes it.
void attention_scores_untransposed(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k) {
    const int B = q.size(0), T = q.size(1), H = q.size(2), hd = q.size(3);
    const float scale = 1.0f / static_cast<float>(hd);
    const dim3 grid(ceil_div(T, kTile), B * H);
    const dim3 block(kTile, kRows);
    const size_t smem = kTile * (hd + 1) * sizeof(float);
    scores_kernel<<<grid, block, smem>>>(out.data(), q.data(), k.data(), H, T, hd, scale);
}
