// FlashAttention-2 forward on tensor cores: S = Q·Kᵀ and O += P·V with WMMA
//
//   q, k, v, out: (B, H, T, hd), row-major float in device memory; hd is 16, 32
//   or 64, T any length.
//   out[b, h, i, :] = sum over keys j = 0..i of w(i, j) · v[b, h, j, :], where
//   w(i, ·) is the softmax over j = 0..i of q[b, h, i, :] · k[b, h, j, :] / sqrt(hd).
//   The result of cuda-flash-attention, under these checked constraints:
//   - one block per (query tile of 32 rows, head, sequence): ceil(T / 32)·H·B blocks;
//   - K and V pass through shared memory in tiles, at most 32 KiB per block for any T;
//   - a block loads each element of q, K and V from global memory at most once;
//   - the launch reads at most 3.5 times the least global traffic (the causal early exit);
//   - the FLOPs run by wmma::mma_sync are at least 0.9 times the attention's.
//   And what the exercise asks: both products on the tensor cores, with
//   <mma.h>'s wmma fragments in __half (<cuda_fp16.h>) or __nv_bfloat16
//   (<cuda_bf16.h>) and a float accumulator; the online softmax's row maximum
//   and sum read from the scores staged in shared memory.
//
// attnlab calls flash_attention() once per case. q, k and v are already in
// device memory; out has its shape and holds garbage until a kernel writes it.
#include <attnlab/cuda.hpp>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// TODO: the kernel. Give it a shape comment, e.g.
// out: (B, H, T, hd)   q, k, v: (B, H, T, hd)

// q, k, v: (B, H, T, hd) in device memory; out: (B, H, T, hd), to be written by your kernel.
void flash_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);

    // TODO: launch your kernel with one block per query tile of 32 rows, head and sequence.

    (void)out; (void)k; (void)v; (void)B; (void)H; (void)T; (void)hd;  // TODO: remove once used
}
