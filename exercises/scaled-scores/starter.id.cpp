// Skor berskala per head
//
//   scores(h, i, j) = (query i · key j di head h) / sqrt(hd)
//
// q dan k berisi query dan key setiap head; hd adalah lebar satu head.
#include <attnlab/tensor.hpp>

#include <cmath>  // std::sqrt

using namespace attnlab;

// q: (H, T, hd), k: (H, T, hd)  ->  (H, T, T): baris = token query, kolom = token key
Tensor attention_scores(const Tensor& q, const Tensor& k) {
    const int64_t H = q.shape(0);
    const int64_t T = q.shape(1);

    // TODO: matriks (T, T) setiap head berisi dot product antara query dan key.
    // TODO: skalakan seperti yang diminta soal, lalu kembalikan tensor (H, T, T).

    (void)k;
    return Tensor::zeros({H, T, T});  // TODO: ganti dengan hasilmu
}
