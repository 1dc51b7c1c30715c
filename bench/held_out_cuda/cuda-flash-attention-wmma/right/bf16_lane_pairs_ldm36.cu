// Correct: __nv_bfloat16 fragments; K/V tiles loaded with float4 and converted by __float2bfloat16; S staged in float with ldm 36 and O with ldm 68 (multiples of 4 floats = 16 bytes, what the CUDA guide asks for float; every tile pointer 32-byte aligned); all 32 lanes in the softmax, two per row (keys and dims split in halves, max and sum combined with __shfl_xor_sync(.., 1)); m and l kept in shared memory; exp2f with log2(e)/sqrt(hd) folded.
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <mma.h>
#include <math.h>
using namespace nvcuda;

constexpr int TQ = 32, TK = 32;
constexpr int LDH = 72;  // bf16 tiles (multiple of 8 elements)
constexpr int LDS = 36;  // float score staging (multiple of 4 floats)
constexpr int LDO = 68;  // float output accumulator (multiple of 4 floats)
constexpr int LDP = 40;  // bf16 probabilities

typedef wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> FragA;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> FragBt;
typedef wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> FragB;
typedef wmma::fragment<wmma::accumulator, 16, 16, 16, float> FragC;

__device__ __forceinline__ void load_tile_bf16(__nv_bfloat16 (*dst)[LDH], const float* src, int r0, int T, int hd) {
    const int q4 = hd / 4;  // hd is 16, 32 or 64
    for (int e = threadIdx.x; e < TK * q4; e += blockDim.x) {
        const int r = e / q4, c = (e % q4) * 4;
        float4 f = make_float4(0.f, 0.f, 0.f, 0.f);
        if (r0 + r < T) f = *reinterpret_cast<const float4*>(src + (size_t)(r0 + r) * hd + c);
        dst[r][c] = __float2bfloat16(f.x);
        dst[r][c + 1] = __float2bfloat16(f.y);
        dst[r][c + 2] = __float2bfloat16(f.z);
        dst[r][c + 3] = __float2bfloat16(f.w);
    }
}

// out, q, k, v: (B, H, T, hd)
__global__ void flash_bf16(float* out, const float* q, const float* k, const float* v, int T, int hd, float sl2) {
    __shared__ __align__(32) __nv_bfloat16 Qs[TQ][LDH];
    __shared__ __align__(32) __nv_bfloat16 Ks[TK][LDH];
    __shared__ __align__(32) __nv_bfloat16 Vs[TK][LDH];
    __shared__ __align__(32) float Ss[2][16][LDS];
    __shared__ __align__(32) __nv_bfloat16 Ps[2][16][LDP];
    __shared__ __align__(32) float Os[TQ][LDO];
    __shared__ float Ms[TQ], Ls[TQ];

    const int w = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const size_t base = ((size_t)blockIdx.z * gridDim.y + blockIdx.y) * (size_t)T * hd;
    const int q0 = blockIdx.x * TQ;

    load_tile_bf16(Qs, q + base, q0, T, hd);
    for (int e = threadIdx.x; e < TQ * LDO; e += blockDim.x) Os[e / LDO][e % LDO] = 0.f;
    if (threadIdx.x < TQ) { Ms[threadIdx.x] = -INFINITY; Ls[threadIdx.x] = 0.f; }

    const int r = lane >> 1, half = lane & 1;   // lane pair (2r, 2r+1) owns row 16w + r
    const int lrow = w * 16 + r, row = q0 + lrow;
    const bool warp_has_rows = q0 + w * 16 < T;

    for (int j0 = 0; j0 < min(T, q0 + TQ); j0 += TK) {
        __syncthreads();
        load_tile_bf16(Ks, k + base, j0, T, hd);
        load_tile_bf16(Vs, v + base, j0, T, hd);
        __syncthreads();
        if (warp_has_rows) {
            for (int n = 0; n < TK / 16; ++n) {
                FragC s;
                wmma::fill_fragment(s, 0.f);
                for (int kk = 0; kk < hd / 16; ++kk) {
                    FragA a;
                    FragBt b;
                    wmma::load_matrix_sync(a, &Qs[w * 16][kk * 16], LDH);
                    wmma::load_matrix_sync(b, &Ks[n * 16][kk * 16], LDH);
                    wmma::mma_sync(s, a, b, s);
                }
                wmma::store_matrix_sync(&Ss[w][0][n * 16], s, LDS, wmma::mem_row_major);
            }
            __syncwarp();

            const float m_old = Ms[lrow];
            float mx = m_old;
            for (int c = half * 16; c < half * 16 + 16; ++c)
                if (j0 + c <= row && row < T) mx = fmaxf(mx, Ss[w][r][c] * sl2);
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
            const float corr = row < T ? exp2f(m_old - mx) : 1.f;
            float sum = 0.f;
            for (int c = half * 16; c < half * 16 + 16; ++c) {
                const float p = (j0 + c <= row && row < T) ? exp2f(Ss[w][r][c] * sl2 - mx) : 0.f;
                Ps[w][r][c] = __float2bfloat16(p);
                sum += p;
            }
            sum += __shfl_xor_sync(0xffffffffu, sum, 1);
            for (int d = half * (hd / 2); d < (half + 1) * (hd / 2); ++d) Os[lrow][d] *= corr;
            __syncwarp();  // both lanes of the pair have read Ms[lrow] before it changes
            if (half == 0 && row < T) { Ms[lrow] = mx; Ls[lrow] = Ls[lrow] * corr + sum; }
            __syncwarp();

            for (int n = 0; n < hd / 16; ++n) {
                FragC o;
                wmma::load_matrix_sync(o, &Os[w * 16][n * 16], LDO, wmma::mem_row_major);
                for (int kk = 0; kk < TK / 16; ++kk) {
                    FragA p;
                    FragB b;
                    wmma::load_matrix_sync(p, &Ps[w][0][kk * 16], LDP);
                    wmma::load_matrix_sync(b, &Vs[kk * 16][n * 16], LDH);
                    wmma::mma_sync(o, p, b, o);
                }
                wmma::store_matrix_sync(&Os[w * 16][n * 16], o, LDO, wmma::mem_row_major);
            }
        }
    }
    __syncthreads();
    for (int e = threadIdx.x; e < TQ * hd; e += blockDim.x) {
        const int rr = e / hd, d = e % hd;
        if (q0 + rr < T) out[base + (size_t)(q0 + rr) * hd + d] = Os[rr][d] / Ls[rr];
    }
}

void flash_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    flash_bf16<<<dim3(ceil_div(T, TQ), H, B), 64>>>(out.data(), q.data(), k.data(), v.data(), T, hd, 1.4426950408889634f / sqrtf((float)hd));
}
