// Batched layout: (B, T, D) -> (B, H, T, hd)
//
// Pecah setiap barisan di dalam batch menjadi head, dengan sumbu batch tetap di depan:
//
//     out(b, h, t, j) = x(b, t, h*hd + j),   hd = D / n_heads
//
// Head h dari barisan b mengambil kolom h*hd ... (h+1)*hd - 1 dari barisan itu.
// Kembalikan tensor row-major (contiguous), supaya setiap pasangan (barisan, head)
// menjadi satu blok bersambung berisi T*hd angka.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// x: (B, T, D) -> (B, H, T, hd)
Tensor batched_split_heads(const Tensor& x, int n_heads) {
    const int64_t B = x.shape(0);
    const int64_t T = x.shape(1);
    const int64_t D = x.shape(2);
    const int64_t hd = D / n_heads;

    // TODO: bangun tensor (B, H, T, hd) seperti di atas.
    //       t.strides() dan t.is_contiguous() menampilkan tata letak tensor t apa pun.

    return Tensor::zeros({B, n_heads, T, hd});  // TODO: ganti dengan hasilmu
}
