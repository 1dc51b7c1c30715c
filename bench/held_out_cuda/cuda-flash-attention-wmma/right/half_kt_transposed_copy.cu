// Correct: as a __half two-warp kernel, but K is transposed while it is converted into shared memory (kst[d][key], ldm 40), so Kᵀ's fragment is a row_major matrix_b loaded from &kst[16kk][16n]; Q fragments kept in registers. Tests that a right row_major Kᵀ is not named wmma_kt_layout.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <math.h>
using namespace nvcuda;

#define BQ 32
#define BKV 32
#define HDP 72   // padded row of the __half tiles and of O (multiple of 8)
#define SLD 40   // row of the staged scores and probabilities (multiple of 8)
#define KTLD 40  // row of Kᵀ: one key per column (multiple of 8)

// out, q, k, v: (B, H, T, hd)
__global__ void __launch_bounds__(64) fa_wmma_half(float* out, const float* q, const float* k, const float* v, int T, int hd, float scale) {
    __shared__ __align__(32) __half qs[BQ][HDP];
    __shared__ __align__(32) __half kst[64][KTLD];  // Kᵀ: kst[d][key]
    __shared__ __align__(32) __half vs[BKV][HDP];
    __shared__ __align__(32) float ss[2][16][SLD];
    __shared__ __align__(32) __half ps[2][16][SLD];
    __shared__ __align__(32) float os[BQ][HDP];

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const size_t bh = (size_t)blockIdx.z * gridDim.y + blockIdx.y;
    const float* qh = q + bh * T * hd;
    const float* kh = k + bh * T * hd;
    const float* vh = v + bh * T * hd;
    const int q0 = blockIdx.x * BQ;
    const int nk = hd / 16;

    for (int e = threadIdx.x; e < BQ * hd; e += 64) {
        const int r = e / hd, c = e % hd;
        qs[r][c] = q0 + r < T ? __float2half(qh[(size_t)(q0 + r) * hd + c]) : __float2half(0.f);
        os[r][c] = 0.f;
    }
    __syncthreads();

    const bool warp_live = q0 + warp * 16 < T;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> qf[4];
    if (warp_live)
        for (int kk = 0; kk < nk; ++kk) wmma::load_matrix_sync(qf[kk], &qs[warp * 16][kk * 16], HDP);

    float m = -INFINITY, l = 0.f;  // row warp*16 + lane, lanes 0..15
    const int my_row = q0 + warp * 16 + lane;

    const int ntiles = blockIdx.x + 1;  // key tiles 0 .. the diagonal one (BQ == BKV)
    for (int t = 0; t < ntiles; ++t) {
        const int j0 = t * BKV;
        __syncthreads();  // everyone is done with the previous tile
        for (int e = threadIdx.x; e < BKV * hd; e += 64) {
            const int r = e / hd, c = e % hd;
            const bool in = j0 + r < T;
            kst[c][r] = __float2half(in ? kh[(size_t)(j0 + r) * hd + c] : 0.f);  // transposed while converting
            vs[r][c] = __float2half(in ? vh[(size_t)(j0 + r) * hd + c] : 0.f);
        }
        __syncthreads();
        if (!warp_live) continue;

        for (int n = 0; n < 2; ++n) {
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> kf;
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> sf;
            wmma::fill_fragment(sf, 0.f);
            for (int kk = 0; kk < nk; ++kk) {
                wmma::load_matrix_sync(kf, &kst[kk * 16][n * 16], KTLD);
                wmma::mma_sync(sf, qf[kk], kf, sf);
            }
            wmma::store_matrix_sync(&ss[warp][0][n * 16], sf, SLD, wmma::mem_row_major);
        }
        __syncwarp();

        if (lane < 16) {
            float corr = 1.f;
            if (my_row < T) {
                float mt = m;
                for (int c = 0; c < BKV; ++c)
                    if (j0 + c <= my_row) mt = fmaxf(mt, ss[warp][lane][c] * scale);
                corr = expf(m - mt);
                float sum = 0.f;
                for (int c = 0; c < BKV; ++c) {
                    const float p = j0 + c <= my_row ? expf(ss[warp][lane][c] * scale - mt) : 0.f;
                    sum += p;
                    ps[warp][lane][c] = __float2half(p);
                }
                l = l * corr + sum;
                m = mt;
            } else {
                for (int c = 0; c < BKV; ++c) ps[warp][lane][c] = __float2half(0.f);
            }
            for (int d = 0; d < hd; ++d) os[warp * 16 + lane][d] *= corr;
        }
        __syncwarp();

        for (int n = 0; n < nk; ++n) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> of;
            wmma::load_matrix_sync(of, &os[warp * 16][n * 16], HDP, wmma::mem_row_major);
            for (int kk = 0; kk < 2; ++kk) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> pf;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> vf;
                wmma::load_matrix_sync(pf, &ps[warp][0][kk * 16], SLD);
                wmma::load_matrix_sync(vf, &vs[kk * 16][n * 16], HDP);
                wmma::mma_sync(of, pf, vf, of);
            }
            wmma::store_matrix_sync(&os[warp * 16][n * 16], of, HDP, wmma::mem_row_major);
        }
        __syncwarp();
    }
    if (warp_live && lane < 16 && my_row < T) {
        const float inv = 1.f / l;
        for (int d = 0; d < hd; ++d) out[(bh * T + my_row) * hd + d] = os[warp * 16 + lane][d] * inv;
    }
}

void flash_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    dim3 grid((T + BQ - 1) / BQ, H, B);
    fa_wmma_half<<<grid, 64>>>(out.data(), q.data(), k.data(), v.data(), T, hd, 1.0f / sqrtf((float)hd));
}
