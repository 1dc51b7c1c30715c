// Mask kausal
//
// scores(h, i, j) adalah seberapa ingin token query i (baris) melihat token key j
// (kolom), di head h. Sebuah token hanya boleh melihat dirinya sendiri dan token sebelumnya,
// jadi setiap entri dengan j > i harus menjadi -tak hingga (kNegInf). Setelah softmax,
// exp(-inf) = 0 memberi token masa depan itu bobot tepat 0.
// Kembalikan tensor baru; scores sendiri harus tetap seperti semula.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// scores: (H, T, T) -> (H, T, T), entri masa depan diisi -inf
Tensor causal_mask(const Tensor& scores) {
    const int64_t H = scores.shape(0);
    const int64_t T = scores.shape(1);

    // TODO: skor yang diberi mask: setiap entri scores, kecuali kNegInf di mana pun
    //       kolom key j berada sesudah baris query i. Pertahankan diagonalnya
    //       (j == i): sebuah token selalu boleh melihat dirinya sendiri.

    return Tensor::zeros({H, T, T});  // TODO: ganti dengan hasilmu
}
