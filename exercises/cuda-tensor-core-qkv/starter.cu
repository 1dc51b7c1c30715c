// The fused QKV projection on tensor cores: out (3, T, D) from x (T, D) and w_qkv (D, 3D)
//
//     C = x · w_qkv                      (T, 3D), __half inputs, float accumulation
//     out[p, t, j] = C[t, p*D + j]       p = 0, 1, 2 for Q, K, V
//
// attnlab calls fused_qkv once per case; x and w_qkv are float tensors in
// device memory, out holds garbage until a kernel writes it. D is a multiple
// of 16, T is not always one. Tensor cores work on whole 16 x 16 x 16 tiles:
// the inputs must become __half, and the rows of x must be padded with zeros
// to a multiple of 16. One warp computes one 16 x 16 tile of C with
// wmma::fill_fragment, load_matrix_sync, mma_sync and store_matrix_sync.
#include <attnlab/cuda.hpp>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

constexpr int kTile = 16;

// TODO: your kernels: __half inputs for the fragments, the products on
//       tensor cores, and C's values in their places in out.

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);

    // TODO: allocate what your design needs (cudaMalloc), launch your
    //       kernels, cudaFree what you allocated.
    //       As it stands, nothing is launched.
    (void)out; (void)T; (void)D;
}
