// Skor attention sebelum transpose head
//
//     out[b, h, i, j] = jumlah atas d dari q[b, i, h, d] * k[b, j, h, d] / sqrt(hd)
//
// q dan k berbentuk (B, T, H, hd), row-major, seperti yang ditinggalkan proyeksi
// gabungan: elemen (b, t, h, d) berada di ((b*T + t)*H + h)*hd + d. Keduanya
// sudah ada di memori device. out berbentuk (B, H, T, T), setiap skor, tanpa
// mask; isinya sampah sampai sebuah kernel menulisinya. attnlab memanggil
// attention_scores_untransposed sekali untuk setiap kasus; grid, blok, dan
// shared memory apa pun kamu yang memilih.
//
// Aturannya: sektor yang dibuang pembacaanmu, dijumlahkan atas satu kasus, paling
// banyak 2x lalu lintas minimum skor ini (`attnlab check` mencetak angkamu jika lebih).
#include <attnlab/cuda.hpp>

// TODO: kernelnya. Beri komentar bentuk, misalnya
// out: (B, H, T, T)   q, k: (B, T, H, hd)

void attention_scores_untransposed(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k) {
    const int B = q.size(0), T = q.size(1), H = q.size(2), hd = q.size(3);

    // TODO: luncurkan kernel-kernelmu sehingga setiap elemen out ditulis.

    (void)out; (void)k; (void)B; (void)T; (void)H; (void)hd;  // TODO: hapus setelah dipakai
}
