// Proyeksi QKV gabungan di GPU: out (3, T, D) dari x (T, D) dan w_qkv (D, 3D)
//
//     C = x · w_qkv                      (T, 3D)
//     out[p, t, j] = C[t, p*D + j]       p = 0, 1, 2 untuk Q, K, V
//
// attnlab memanggil fused_qkv sekali untuk setiap kasus; x dan w_qkv sudah
// ada di memori device, out berisi sampah sampai sebuah kernel menulisinya.
// Tulis C sebagai GEMM bertile: setiap blok memuat tile 16 x 16 dari x dan
// w_qkv ke memori __shared__, dengan __syncthreads() di tempat sebuah tile
// harus sudah lengkap atau tidak dibaca lagi. T dan D belum tentu kelipatan 16.
#include <attnlab/cuda.hpp>

constexpr int kTile = 16;

// out: (3, T, D)   x: (T, D)   w: (D, 3D)
__global__ void qkv_gemm_kernel(float* out, const float* x, const float* w, int T, int D) {
    // TODO: elemen (t, n) milik thread ini dari C, dihitung tile demi tile
    //       sepanjang k, lalu disimpan di tempatnya di out.
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);

    // TODO: luncurkan qkv_gemm_kernel<<<grid, block>>>(out.data(), x.data(), w_qkv.data(), T, D)
    //       dengan satu blok 16 x 16 per tile 16 x 16 dari C. Untuk sekarang belum ada yang diluncurkan.
    (void)out; (void)T; (void)D;
}
