// Attention per tile key: satu blok per (barisan, head), dua lintasan
//
//   q, k, v, out: (B, H, T, hd), row-major di memori device; hd <= 64, T panjang berapa pun.
//   out[b, h, i, :] = jumlah atas key j = 0..i dari w(i, j) · v[b, h, j, :], dengan
//   w(i, ·) adalah softmax atas j = 0..i dari q[b, h, i, :] · k[b, h, j, :] / sqrt(hd).
//   Hasilnya sama dengan cuda-attention, dengan satu batasan baru: sebuah blok
//   menyimpan K dan V di shared memory satu tile key sekali waktu (16 key
//   adalah ukuran yang baik), jadi shared memory-nya tidak tumbuh bersama T
//   (diperiksa: paling banyak 16 KiB per blok). Dua lintasan atas tile-tile
//   boleh di sini: satu untuk maksimum setiap baris, satu untuk bobot dan
//   jumlah berbobotnya.
//   T belum tentu kelipatan ukuran tile: tile terakhir bisa tidak penuh.
//
// attnlab memanggil tiled_attention() sekali untuk setiap kasus. q, k, dan v
// sudah ada di memori device; out sudah berbentuk semestinya dan berisi sampah
// sampai sebuah kernel menulisinya. Luncurkan B·H blok, satu untuk setiap
// pasangan (barisan, head) (diperiksa); ukuran blok, ukuran tile, dan
// pekerjaan setiap thread kamu yang memilih.
#include <attnlab/cuda.hpp>

// TODO: kernelnya. Beri komentar bentuk, misalnya
// out: (B, H, T, hd)   q, k, v: (B, H, T, hd)   shared: satu tile K, satu tile V

// q, k, v: (B, H, T, hd) di memori device; out: (B, H, T, hd), untuk ditulis kernelmu.
void tiled_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);

    // TODO: luncurkan kernelmu dengan B·H blok, sehingga setiap elemen out ditulis.

    (void)out; (void)k; (void)v; (void)B; (void)H; (void)T; (void)hd;  // TODO: hapus setelah dipakai
}
