// Proyeksi QKV gabungan sebagai GEMM bertile register: out (3, T, D) dari x (T, D) dan w_qkv (D, 3D)
//
//     C = x · w_qkv                      (T, 3D)
//     out[p, t, j] = C[t, p*D + j]       p = 0, 1, 2 untuk Q, K, V
//
// attnlab memanggil fused_qkv sekali untuk setiap kasus; x dan w_qkv sudah ada
// di memori device, out berisi sampah sampai sebuah kernel menulisinya. Seperti
// di cuda-qkv-gemm, satu blok berjalan sepanjang k dengan tile x dan w_qkv di
// memori __shared__; di sini setiap thread menghitung satu micro-tile C
// berukuran TM x TN di register, sehingga setiap angka yang dimuatnya dari
// shared memory dipakai untuk TM atau TN perkalian-penjumlahan.
// T dan D belum tentu kelipatan ukuran tile mana pun.
#include <attnlab/cuda.hpp>

constexpr int kBM = 64, kBN = 64, kBK = 16;  // tile C milik satu blok, dan langkahnya sepanjang k
constexpr int kTM = 4, kTN = 4;              // micro-tile satu thread: 16 x 16 thread per blok

// out: (3, T, D)   x: (T, D)   w: (D, 3D)
__global__ void qkv_register_tiled(float* out, const float* x, const float* w, int T, int D) {
    // TODO: kTM x kTN output C milik thread ini, dijumlahkan di register
    //       langkah demi langkah sepanjang k dari tile x dan w di shared
    //       memory, lalu masing-masing disimpan di tempatnya di out.
}

void fused_qkv(DeviceTensor& out, const DeviceTensor& x, const DeviceTensor& w_qkv) {
    const int T = x.size(0), D = x.size(1);

    // TODO: luncurkan qkv_register_tiled<<<grid, block>>>(out.data(), x.data(), w_qkv.data(), T, D)
    //       dengan satu blok untuk setiap tile C berukuran kBM x kBN. Untuk sekarang belum ada yang diluncurkan.
    (void)out; (void)T; (void)D;
}
