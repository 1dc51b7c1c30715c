// Forward FlashAttention-2: attention kausal, K dan V dengan buffer ganda
//
//   q, k, v, out: (B, H, T, hd), row-major di memori device; hd <= 64, T panjang berapa pun.
//   out[b, h, i, :] = jumlah atas key j = 0..i dari w(i, j) · v[b, h, j, :], dengan
//   w(i, ·) adalah softmax atas j = 0..i dari q[b, h, i, :] · k[b, h, j, :] / sqrt(hd).
//   Hasilnya sama dengan cuda-online-softmax, dengan batasan yang diperiksa berikut:
//   - satu blok untuk setiap (tile query berisi 64 baris, head, barisan): ceil(T / 64)·H·B blok;
//   - K dan V melewati shared memory per tile, paling banyak 32 KiB per blok untuk T berapa pun;
//   - sebuah blok memuat setiap elemen q, K, dan V dari memori global paling banyak sekali;
//   - peluncuran membaca paling banyak 2.4 kali lalu lintas global minimum: sebuah
//     blok hanya menelusuri tile key yang bisa dilihat baris-barisnya (keluar lebih awal secara kausal).
//   Dan yang tidak terlihat oleh pemeriksaan, tetapi diminta latihan ini: tile key
//   berikutnya disalin (<cuda_pipeline.h>: __pipeline_memcpy_async, __pipeline_commit,
//   __pipeline_wait_prior) selagi blok menghitung dengan tile yang sekarang.
//   Tile query terakhir dan tile key terakhir bisa tidak penuh.
//
// attnlab memanggil flash_attention() sekali untuk setiap kasus. q, k, dan v
// sudah ada di memori device; out sudah berbentuk semestinya dan berisi sampah
// sampai sebuah kernel menulisinya.
#include <attnlab/cuda.hpp>
#include <cuda_pipeline.h>

// TODO: kernelnya. Beri komentar bentuk, misalnya
// out: (B, H, T, hd)   q, k, v: (B, H, T, hd)

// q, k, v: (B, H, T, hd) di memori device; out: (B, H, T, hd), untuk ditulis kernelmu.
void flash_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);

    // TODO: luncurkan kernelmu dengan satu blok untuk setiap tile query berisi 64 baris, head, dan barisan.

    (void)out; (void)k; (void)v; (void)B; (void)H; (void)T; (void)hd;  // TODO: hapus setelah dipakai
}
