// Memecah menjadi head
//
// x berbentuk (T, D): satu baris per token. n_heads = H selalu membagi habis D, dan
// hd = D / H. Kembalikan tensor baru berbentuk (H, T, hd) yang head h-nya berisi
// kolom h*hd ... (h+1)*hd - 1 dari x:
//
//     out(h, t, c) = x(t, h*hd + c)
//
// Jangan ubah x.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// x: (T, D) -> (H, T, hd)
Tensor split_heads(const Tensor& x, int n_heads) {
    const int64_t T = x.shape(0);
    const int64_t D = x.shape(1);
    const int64_t hd = D / n_heads;

    // TODO: bangun hasil (H, T, hd) seperti di atas. Kalau belum tahu
    //       harus mulai dari mana, `attnlab hint split-heads` menampilkan satu petunjuk setiap kali.
    //
    // Penasaran dengan tata letak? probe("nama", t) menampilkan tensor apa pun di samping
    // referensi, dan t.strides() / t.is_contiguous() menggambarkan memorinya.

    return Tensor::zeros({n_heads, T, hd});  // TODO: ganti dengan hasilmu
}
