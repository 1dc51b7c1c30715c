// Kernel attention: satu blok per (barisan, head)
//
//   q, k, v, out: (B, H, T, hd), row-major di memori device; hd <= 64, dan
//   2·T·hd float muat di 48 KiB shared memory.
//   out[b, h, i, :] = jumlah atas key j = 0..i dari w(i, j) · v[b, h, j, :], dengan
//   w(i, ·) adalah softmax atas j = 0..i dari q[b, h, i, :] · k[b, h, j, :] / sqrt(hd).
//   Key masa depan (j > i) tidak mendapat bobot. Beberapa kasus punya skor
//   dalam ribuan: bobotnya harus tetap berhingga.
//
// attnlab memanggil causal_attention() sekali untuk setiap kasus. q, k, dan v
// sudah ada di memori device; out sudah berbentuk semestinya dan berisi sampah
// sampai sebuah kernel menulisinya. Setiap blok menangani satu pasangan
// (barisan, head); ukuran blok, shared memory, dan pekerjaan setiap thread
// kamu yang memilih.
#include <attnlab/cuda.hpp>

// TODO: kernelnya. Beri komentar bentuk, misalnya
// out: (B, H, T, hd)   q, k, v: (B, H, T, hd)

// q, k, v: (B, H, T, hd) di memori device; out: (B, H, T, hd), untuk ditulis kernelmu.
void causal_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);

    // TODO: luncurkan kernelmu dengan B·H blok, sehingga setiap elemen out ditulis.

    (void)out; (void)k; (void)v; (void)B; (void)H; (void)T; (void)hd;  // TODO: hapus setelah dipakai
}
