// bf16 WMMA kernels for the emulator's tests (test_emu_wmma_bf16.cpp): plain
// CUDA, built for the emulator as a learner's .cu is, and compiled unchanged
// by nvcc (test nvcc_compiles_emu_wmma_bf16_kernels, label cuda-nvcc), so the
// code the emulator runs is code a GPU takes. One warp per block; every tile
// is 16 x 16, row-major, ldm 16 unless a kernel takes ldm.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

namespace emu_test {

// out = A·I where every element of A is fill_value, filled into a bf16
// fragment: out holds fill_value as bf16 rounds it. `identity` is the 16 x 16
// identity in bf16.
__global__ void wmma_bf16_fill(float* out, const __nv_bfloat16* identity, float fill_value) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(a, fill_value);
    wmma::load_matrix_sync(b, identity, 16);
    wmma::fill_fragment(c, 0.0f);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(out, c, 16, wmma::mem_row_major);
}

// The same with __half fragments: what the bf16 kernel must not give.
__global__ void wmma_half_fill(float* out, const __half* identity, float fill_value) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(a, fill_value);
    wmma::load_matrix_sync(b, identity, 16);
    wmma::fill_fragment(c, 0.0f);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(out, c, 16, wmma::mem_row_major);
}

// out = A·B + C: A from a (row-major, lda), B from b given column by column
// (col_major: element (k, n) at b[n*16 + k]), C loaded from c.
__global__ void wmma_bf16_product(float* out, const __nv_bfloat16* a, unsigned lda, const __nv_bfloat16* b, const float* c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, a, lda);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(out, fc, 16, wmma::mem_row_major);
}

// A's fragment elements written one by one with __float2bfloat16 (each lane
// the same value into each of its elements, as element-wise code does), then
// A·I: out holds the value as the conversion rounds it.
__global__ void wmma_bf16_convert(float* out, const __nv_bfloat16* identity, float value) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    for (int i = 0; i < a.num_elements; ++i) a.x[i] = __float2bfloat16(value);
    wmma::load_matrix_sync(b, identity, 16);
    wmma::fill_fragment(c, 0.0f);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(out, c, 16, wmma::mem_row_major);
}

}  // namespace emu_test

namespace emu_test {

// out (16 x 16 per block) = A·I, the accumulator staged through a __shared__
// tile that only wmma calls touch (store_matrix_sync, load_matrix_sync). Each
// instantiation has its own tile, as a sampled launch's checked kernel and its
// unchecked copy have.
template <int Copy>
__global__ void wmma_bf16_shared_tile(float* out, const __nv_bfloat16* identity, float value) {
    __shared__ __align__(32) float staged[16 * 16];
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(a, value);
    wmma::load_matrix_sync(b, identity, 16);
    wmma::fill_fragment(c, 0.0f);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(staged, c, 16, wmma::mem_row_major);
    __syncwarp();
    wmma::load_matrix_sync(c, staged, 16, wmma::mem_row_major);
    wmma::store_matrix_sync(out + blockIdx.x * 256, c, 16, wmma::mem_row_major);
}
template __global__ void wmma_bf16_shared_tile<0>(float*, const __nv_bfloat16*, float);
template __global__ void wmma_bf16_shared_tile<1>(float*, const __nv_bfloat16*, float);

}  // namespace emu_test
