// Wrong on purpose: each block copies every key its rows can see into shared
// memory at once, 2 · (q0 + BR) · hd floats, and then needs no pipeline at all.
// Right values, but the block's shared memory grows with T: 128.5 KiB at
// T = 257 with hd = 64, four times the 32 KiB this kernel may use, and at
// T = 1024 (512 KiB) more than the 227 KiB an H200's block may have at all.
#include <attnlab/cuda.hpp>
#include <cuda_pipeline.h>

#define BR 64      // query rows per block: one thread per row
#define MAX_HD 64  // the widest head the per-thread arrays hold (ANDREA-120M: hd = 64)

// out, q, k, v: (B, H, T, hd). Grid: (ceil(T / BR), H, B); block: BR threads.
// Dynamic shared memory: K rows 0 .. n - 1 at kv[r·hd + d], V rows at kv[n·hd + r·hd + d],
// where n = min(T, q0 + BR) is the number of keys the block's rows can see.
__global__ void flash_attention_kernel(float* out, const float* q, const float* k, const float* v, int H, int T, int hd,
                                       float scale) {
    extern __shared__ float kv[];
    const size_t slice = (size_t(blockIdx.z) * H + blockIdx.y) * size_t(T) * hd;
    q += slice, k += slice, v += slice, out += slice;
    const int q0 = blockIdx.x * BR, i = q0 + threadIdx.x;
    const bool has_row = i < T;
    const int n = min(T, q0 + BR);
    float* ks = kv;
    float* vs = kv + n * hd;
    for (int e = threadIdx.x; e < n * hd; e += blockDim.x) {
        __pipeline_memcpy_async(&ks[e], &k[e], sizeof(float));
        __pipeline_memcpy_async(&vs[e], &v[e], sizeof(float));
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    if (!has_row) return;

    float q_row[MAX_HD], acc[MAX_HD];
    for (int d = 0; d < hd; ++d) q_row[d] = q[i * hd + d] * scale, acc[d] = 0.0f;
    float m = -INFINITY;
    for (int j = 0; j <= i; ++j) {
        float dot = 0.0f;
        for (int d = 0; d < hd; ++d) dot += q_row[d] * ks[j * hd + d];
        m = fmaxf(m, dot);
    }
    float l = 0.0f;
    for (int j = 0; j <= i; ++j) {
        float dot = 0.0f;
        for (int d = 0; d < hd; ++d) dot += q_row[d] * ks[j * hd + d];
        const float p = expf(dot - m);
        l += p;
        for (int d = 0; d < hd; ++d) acc[d] += p * vs[j * hd + d];
    }
    for (int d = 0; d < hd; ++d) out[i * hd + d] = acc[d] / l;
}

// q, k, v: (B, H, T, hd) in device memory; out: (B, H, T, hd), written by the kernel.
void flash_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const dim3 grid(ceil_div(T, BR), H, B);
    // the last block's keys, K and V, for every block (a block uses only its own n)
    const size_t smem = 2 * size_t(T) * hd * sizeof(float);
    // past 48 KiB a launch must ask for it; up to 227 KiB on sm_90
    cudaFuncSetAttribute(flash_attention_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
    flash_attention_kernel<<<grid, BR, smem>>>(out.data(), q.data(), k.data(), v.data(), H, T, hd, 1.0f / sqrtf(float(hd)));
}
