// Softmax online: attention atas tile-tile key
//
//   q, k, v, out: (B, H, T, hd), row-major di memori device; hd <= 64, T panjang berapa pun.
//   out[b, h, i, :] = jumlah atas key j = 0..i dari w(i, j) · v[b, h, j, :], dengan
//   w(i, ·) adalah softmax atas j = 0..i dari q[b, h, i, :] · k[b, h, j, :] / sqrt(hd).
//   Hasilnya sama dengan latihan cuda-attention, dengan dua batasan baru:
//   - sebuah blok menyimpan K dan V di shared memory satu tile key sekali
//     waktu (16 key adalah ukuran yang baik), jadi shared memory-nya tidak
//     tumbuh bersama T (diperiksa: paling banyak 16 KiB shared memory per blok);
//   - sebuah blok memuat setiap elemen q, K, dan V dari memori global sekali (diperiksa);
//   - softmax setiap baris dihitung dalam satu lintasan atas tile-tile: sebuah
//     baris mengunjungi setiap key-nya sekali (tanpa lintasan kedua untuk maksimum).
//   T belum tentu kelipatan ukuran tile: tile terakhir bisa tidak penuh.
//   Beberapa kasus punya skor dalam ribuan: bobotnya harus tetap berhingga.
//
// attnlab memanggil tiled_attention() sekali untuk setiap kasus. q, k, dan v
// sudah ada di memori device; out sudah berbentuk semestinya dan berisi sampah
// sampai sebuah kernel menulisinya. Setiap blok menangani satu tile baris query
// milik satu pasangan (barisan, head); ukuran blok, ukuran tile (dalam batas 16 KiB),
// dan pekerjaan setiap thread kamu yang memilih.
#include <attnlab/cuda.hpp>

// TODO: kernelnya. Beri komentar bentuk, misalnya
// out: (B, H, T, hd)   q, k, v: (B, H, T, hd)

// q, k, v: (B, H, T, hd) di memori device; out: (B, H, T, hd), untuk ditulis kernelmu.
void tiled_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);

    // TODO: luncurkan kernelmu pada grid berisi (ceil(T / baris), B·H) blok, sehingga setiap elemen out ditulis.

    (void)out; (void)k; (void)v; (void)B; (void)H; (void)T; (void)hd;  // TODO: hapus setelah dipakai
}
