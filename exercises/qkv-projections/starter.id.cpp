// Proyeksi Q, K, dan V
//
// Setiap token (baris x) mendapat tiga peran, masing-masing dari matriks bobotnya sendiri:
//   Q = X · W_Q   (apa yang dicari token itu)
//   K = X · W_K   (apa yang ditawarkannya)
//   V = X · W_V   (apa yang diserahkannya)
// Bobotnya disimpan sebagai (fitur input, fitur output).
#include <attnlab/tensor.hpp>

using namespace attnlab;

// x: (T, D), w_q / w_k / w_v: (D, D)  ->  (3, T, D): indeks 0 adalah Q, 1 adalah K, 2 adalah V
Tensor qkv_projections(const Tensor& x, const Tensor& w_q, const Tensor& w_k, const Tensor& w_v) {
    const int64_t T = x.shape(0);
    const int64_t D = x.shape(1);

    // TODO: hitung Q, K, dan V, masing-masing berbentuk (T, D).
    // TODO: kembalikan ketiganya sebagai satu tensor (3, T, D), berurutan Q, K, V.

    (void)w_q;
    (void)w_k;
    (void)w_v;
    return Tensor::zeros({3, T, D});  // TODO: ganti dengan hasilmu
}
