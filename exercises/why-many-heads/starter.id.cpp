// Satu head lebar atau beberapa head sempit?
//
//   x: (T, D), w_q / w_k: (D, D), n_heads = H membagi habis D, hd = D / H.
//   Q = x w_q dan K = x w_k dipakai kedua rancangan.
//   Kembalikan (1 + H, T, T):
//     irisan 0       bobot attention kausal SATU head selebar D
//                    (skor atas semua D kolom, diskalakan 1/sqrt(D))
//     irisan 1..H    bobot attention kausal H head selebar hd
//                    (head h: kolom h*hd .. (h+1)*hd - 1, diskalakan 1/sqrt(hd))
//   Setiap baris di setiap irisan adalah softmax atas key 0..i (key masa depan mendapat 0).
//   Satu kasus punya skor ribuan; bobotnya harus tetap berhingga di sana.
//
// probe("weights", t) menampilkan tensor (1 + H, T, T)-mu di samping milik referensi;
// probe("scores", ...) dan probe("masked", ...) bekerja dengan cara yang sama.
#include <attnlab/tensor.hpp>

#include <cmath>  // std::exp, std::sqrt

using namespace attnlab;

namespace {

// TODO: fungsi bantu, dengan nama yang tidak dipakai latihan lain untuk titik masuknya.

}  // namespace

// x: (T, D), w_q / w_k: (D, D)  ->  (1 + H, T, T)
Tensor one_vs_many_heads(const Tensor& x, const Tensor& w_q, const Tensor& w_k, int n_heads) {
    const int64_t T = x.shape(0);

    // TODO: bobot head yang lebar, lalu bobot H head yang sempit.

    (void)w_q; (void)w_k;  // TODO: hapus setelah dipakai
    return Tensor::zeros({1 + n_heads, T, T});  // TODO: ganti dengan hasilmu
}
