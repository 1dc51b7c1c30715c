// Proyeksi QKV gabungan di tensor core: out (3, T, D) dari x (T, D) dan w_qkv (D, 3D)
//
//     C = x · w_qkv                      (T, 3D), input __half, akumulasi float
//     out[p, t, j] = C[t, p*D + j]       p = 0, 1, 2 untuk Q, K, V
//
// attnlab memanggil fused_qkv sekali untuk setiap kasus; x dan w_qkv adalah
// tensor float di memori device, out berisi sampah sampai sebuah kernel
// menulisinya. D kelipatan 16, T tidak selalu. Tensor core bekerja pada tile
// utuh 16 x 16 x 16: input harus menjadi __half, dan baris-baris x harus
// diberi padding nol sampai kelipatan 16. Satu warp menghitung satu tile
// 16 x 16 dari C dengan wmma::fill_fragment, load_matrix_sync, mma_sync, dan
// store_matrix_sync.
#include <attnlab/cuda.hpp>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

constexpr int kTile = 16;

// TODO: kernel-kernelmu: input __half untuk fragment, hasil kali di tensor
//       core, dan nilai-nilai C di tempatnya masing-masing di out.

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);

    // TODO: alokasikan yang diperlukan rancanganmu (cudaMalloc), luncurkan
    //       kernel-kernelmu, lalu cudaFree yang kamu alokasikan.
    //       Untuk sekarang belum ada yang diluncurkan.
    (void)out; (void)T; (void)D;
}
