// Right, another way: one warp per query row instead of one thread. Lanes
// split the keys of the row, then the columns of the output; the row's max and
// sum are warp reductions with shuffles, and the row's weights wait in shared
// memory between the two phases (as in attnlab's own attention_v1). Lanes read
// different K rows at once, so K rows are padded to hd + 1 floats: with rows hd
// floats apart, the 32 lanes would hit only 32 / gcd(hd, 32) banks, a
// gcd(hd, 32)-way bank conflict for every even hd.
#include <attnlab/cuda.hpp>

#define WARPS 4  // warps per block

__device__ float warp_max(float x) {
    for (int offset = 16; offset > 0; offset /= 2) x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, offset));
    return x;
}

__device__ float warp_sum(float x) {
    for (int offset = 16; offset > 0; offset /= 2) x += __shfl_xor_sync(0xffffffffu, x, offset);
    return x;
}

// out: (B, H, T, hd)   q, k, v: (B, H, T, hd)
// dynamic shared memory: (2·hd + 1 + WARPS)·T floats: K (rows of hd + 1), V, then one row of T weights per warp
// Launch: grid = B·H blocks, block bh = (b, h) = (bh / H, bh % H); WARPS warps,
// warp w takes query rows i = w, w + WARPS, ...
__global__ void causal_attention_kernel(float* out, const float* q, const float* k,
                                        const float* v, int H, int T, int hd, float scale) {
    extern __shared__ float smem[];
    const int b = blockIdx.x / H, h = blockIdx.x % H;
    const int slice = (b * H + h) * T * hd;
    const int pitch = hd + 1;                                // floats per K row in smem
    const int v_at = T * pitch, w_at = T * pitch + T * hd;  // offsets of V and of the weight rows in smem
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

    for (int e = threadIdx.x; e < T * hd; e += blockDim.x) {
        smem[(e / hd) * pitch + e % hd] = k[slice + e];
        smem[v_at + e] = v[slice + e];
    }
    __syncthreads();  // K and V complete before any warp reads them

    const int row = w_at + warp * T;  // this warp's row of weights
    for (int i = warp; i < T; i += WARPS) {
        // Phase 1: lane l scores keys j = l, l + 32, ... up to i.
        float m = -INFINITY;
        for (int j = lane; j <= i; j += 32) {
            float s = 0.0f;
            for (int d = 0; d < hd; ++d) s += q[slice + i * hd + d] * smem[j * pitch + d];
            smem[row + j] = s * scale;
            m = fmaxf(m, s * scale);
        }
        m = warp_max(m);  // every lane gets the row's max; key i is visible, so it is finite
        float l = 0.0f;
        for (int j = lane; j <= i; j += 32) {
            const float p = expf(smem[row + j] - m);
            smem[row + j] = p;
            l += p;
        }
        l = warp_sum(l);
        __syncwarp();  // every lane's weights are in shared memory before any lane reads them all
        // Phase 2: lane l computes output columns d = l, l + 32, ...
        for (int d = lane; d < hd; d += 32) {
            float acc = 0.0f;
            for (int j = 0; j <= i; ++j) acc += smem[row + j] * smem[v_at + j * hd + d];
            out[slice + i * hd + d] = acc / l;
        }
        __syncwarp();  // all lanes are done with this row of weights before the next row overwrites it
    }
}

void causal_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const size_t smem = (2 * hd + 1 + WARPS) * T * sizeof(float);
    causal_attention_kernel<<<B * H, WARPS * 32, smem>>>(out.data(), q.data(), k.data(), v.data(), H, T, hd,
                                                         1.0f / sqrtf(float(hd)));
}
