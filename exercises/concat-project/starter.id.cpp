// Menggabungkan head dan memproyeksikan dengan W_O
//
// heads berbentuk (H, T, hd): satu output (T, hd) per head. w_o berbentuk
// (D, D) dengan D = H * hd. Letakkan head-head itu berdampingan lagi, kolom head 0
// lebih dulu, menjadi satu matriks (T, D)
//
//     concat(t, h*hd + c) = heads(h, t, c)
//
// dan kembalikan concat * W_O, berbentuk (T, D). Jangan ubah heads atau w_o.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// heads: (H, T, hd), w_o: (D, D) dengan D = H * hd  ->  (T, D)
Tensor merge_project(const Tensor& heads, const Tensor& w_o) {
    const int64_t T = heads.shape(1);
    const int64_t D = w_o.shape(0);  // sama dengan H * hd

    // TODO 1: bangun matriks gabungan (T, D) yang di atas disebut concat.
    //         probe("concat", merged) menampilkannya di samping milik referensi, jadi
    //         langkah ini bisa kamu periksa sendiri.

    // TODO 2: kembalikan concat * W_O.

    return Tensor::zeros({T, D});  // TODO: ganti dengan hasilmu
}
