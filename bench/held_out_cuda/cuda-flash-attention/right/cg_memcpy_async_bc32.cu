// Correct: key tiles of 32 in dynamic shared memory (4 * 32 * hd floats, 32 KiB at hd = 64), copied by cooperative_groups::memcpy_async (one call per K and per V tile, whole rows only, so a partial last tile copies fewer bytes), cg::wait_prior<2> / cg::wait (each includes block.sync()), one query row per thread, expf.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <math.h>

namespace cg = cooperative_groups;

constexpr int kRows = 64;   // query rows per block
constexpr int kKeys = 32;   // keys per tile

// out, q, k, v: (B, H, T, hd)
__global__ void fa2_cg(float* out, const float* q, const float* k, const float* v, int T, int hd, float scale) {
    extern __shared__ float smem[];  // K0 | K1 | V0 | V1, kKeys * hd floats each
    cg::thread_block block = cg::this_thread_block();
    float* kbuf[2] = {smem, smem + kKeys * hd};
    float* vbuf[2] = {smem + 2 * kKeys * hd, smem + 3 * kKeys * hd};

    const int b = blockIdx.z, h = blockIdx.y, H = gridDim.y;
    const size_t head = ((size_t)b * H + h) * T * hd;
    const int row = blockIdx.x * kRows + threadIdx.x;
    const bool live = row < T;

    float qv[64], acc[64];
    for (int d = 0; d < hd; ++d) { qv[d] = live ? q[head + (size_t)row * hd + d] : 0.f; acc[d] = 0.f; }
    float m = -INFINITY, l = 0.f;

    const int last_key = min(T, (blockIdx.x + 1) * kRows) - 1;
    const int tiles = last_key / kKeys + 1;

    auto fetch = [&](int t) {
        const int j0 = t * kKeys;
        const int n = min(kKeys, T - j0);
        cg::memcpy_async(block, kbuf[t & 1], k + head + (size_t)j0 * hd, sizeof(float) * n * hd);
        cg::memcpy_async(block, vbuf[t & 1], v + head + (size_t)j0 * hd, sizeof(float) * n * hd);
    };

    fetch(0);
    for (int t = 0; t < tiles; ++t) {
        if (t + 1 < tiles) {
            fetch(t + 1);
            cg::wait_prior<2>(block);  // tile t's two copies landed, tile t+1's two may still fly; includes block.sync()
        } else {
            cg::wait(block);
        }
        const float* ks = kbuf[t & 1];
        const float* vs = vbuf[t & 1];
        const int j0 = t * kKeys;
        const int jn = live ? min(kKeys, row - j0 + 1) : 0;  // keys of this tile row sees
        if (jn > 0) {
            float sc[kKeys];
            float mx = m;
            for (int c = 0; c < jn; ++c) {
                float s = 0.f;
                for (int d = 0; d < hd; ++d) s += qv[d] * ks[c * hd + d];
                sc[c] = s * scale;
                mx = fmaxf(mx, sc[c]);
            }
            const float alpha = expf(m - mx);
            l *= alpha;
            for (int d = 0; d < hd; ++d) acc[d] *= alpha;
            for (int c = 0; c < jn; ++c) {
                const float p = expf(sc[c] - mx);
                l += p;
                for (int d = 0; d < hd; ++d) acc[d] += p * vs[c * hd + d];
            }
            m = mx;
        }
        block.sync();  // before the next fetch overwrites this buffer
    }
    if (live)
        for (int d = 0; d < hd; ++d) out[head + (size_t)row * hd + d] = acc[d] / l;
}

void flash_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const size_t smem = 4 * kKeys * hd * sizeof(float);
    fa2_cg<<<dim3(ceil_div(T, kRows), H, B), kRows, smem>>>(out.data(), q.data(), k.data(), v.data(), T, hd, 1.0f / sqrtf((float)hd));
}
