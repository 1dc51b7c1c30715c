// Causal multi-head self-attention berbatch
//
//   x: (B, T, D), keempat bobot: (D, D), n_heads = H membagi habis D, hd = D / H.
//   Mengembalikan (B, T, D): barisan b pada hasilnya adalah causal multi-head
//   self-attention dari barisan b saja (proyeksi, H head dengan skor
//   yang diskalakan 1/sqrt(hd), mask kausal, softmax per baris, value berbobot, penggabungan,
//   W_O). Tidak ada token yang boleh memperhatikan token dari barisan lain.
//
// Satu kasus punya skor ribuan; bobotnya harus tetap berhingga di sana.
//
// Debugging: probe("nama", tensor) merekam sebuah tahap agar attnlab bisa menampilkannya di samping
// tahap referensi yang bernama sama: Q, K, V, scores, masked, weights,
// heads, concat, out (masing-masing dengan sumbu B di depan).
#include <attnlab/tensor.hpp>

#include <cmath>  // std::exp, std::sqrt

using namespace attnlab;

namespace {

// TODO: fungsi bantu, dengan nama yang tidak dipakai latihan lain untuk titik masuknya.

}  // namespace

// x: (B, T, D), w_q / w_k / w_v / w_o: (D, D)  ->  (B, T, D)
Tensor batched_causal_mhsa(const Tensor& x, const Tensor& w_q, const Tensor& w_k,
                           const Tensor& w_v, const Tensor& w_o, int n_heads) {
    const int64_t B = x.shape(0);
    const int64_t T = x.shape(1);
    const int64_t D = x.shape(2);

    // TODO: hitung lapisan itu untuk setiap barisan di dalam batch.

    (void)w_q; (void)w_k; (void)w_v; (void)w_o; (void)n_heads;  // TODO: hapus setelah dipakai
    return Tensor::zeros({B, T, D});  // TODO: ganti dengan hasilmu
}
