// Causal multi-head self-attention
//
// x: (T, D); w_q, w_k, w_v, w_o: (D, D); n_heads = H membagi habis D; hd = D / H.
// Kembalikan out, berbentuk (T, D):
//
//   Q, K, V = X W_Q, X W_K, X W_V                  (T, D)
//   pecah masing-masing menjadi head               (H, T, hd), head h = kolom h*hd .. (h+1)*hd - 1
//   scores  = Q_h K_h^T / sqrt(hd)                 (H, T, T)
//   masked  = scores, dengan -inf di mana key j > query i
//   weights = softmax atas setiap baris masked     (H, T, T)
//   heads   = weights V_h                          (H, T, hd)
//   concat  = head digabung lagi berdampingan      (T, D)
//   out     = concat W_O                           (T, D)
//
// Jangan ubah input. Satu kasus punya skor ribuan; bobotmu
// harus tetap berhingga di sana.
//
// Latihan-latihan sebelumnya masing-masing menulis salah satu langkah ini: kamu boleh menyalin
// fungsimu sendiri sebagai fungsi bantu (di dalam namespace tanpa nama, dengan nama yang
// tidak bentrok dengan titik masuk latihan-latihan itu).
//
// Debugging: probe("nama", tensor) merekam sebuah tahap agar attnlab bisa menampilkannya di samping
// tahap referensi yang bernama sama. Tahap-tahap referensinya adalah
// Q, K, V, scores, masked, weights, heads, concat, out; tahap pertama yang
// berbeda dari milikmu adalah tempat yang perlu diperiksa.
#include <attnlab/tensor.hpp>

#include <cmath>  // std::exp, std::sqrt

using namespace attnlab;

// x: (T, D), w_q / w_k / w_v / w_o: (D, D)  ->  (T, D)
Tensor causal_mhsa(const Tensor& x, const Tensor& w_q, const Tensor& w_k,
                   const Tensor& w_v, const Tensor& w_o, int n_heads) {
    const int64_t T = x.shape(0);
    const int64_t D = x.shape(1);

    // TODO 1: Q, K, V, masing-masing (T, D).      probe("Q", q); ...
    // TODO 2: pecah menjadi head, (H, T, hd).
    // TODO 3: scores, (H, T, T).                     probe("scores", scores);
    // TODO 4: mask kausal.                           probe("masked", masked);
    // TODO 5: softmax per baris, (H, T, T).          probe("weights", weights);
    // TODO 6: heads = weights V_h, (H, T, hd).       probe("heads", heads);
    // TODO 7: gabungkan menjadi (T, D) (probe "concat"), kalikan dengan w_o,
    //         probe("out", out) lalu kembalikan.

    (void)w_q;
    (void)w_k;
    (void)w_v;
    (void)w_o;
    (void)n_heads;
    return Tensor::zeros({T, D});  // TODO: ganti dengan hasilmu
}
