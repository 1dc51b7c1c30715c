// Jumlah berbobot dari value
//
//   out(h, i, c) = jumlah atas j dari weights(h, i, j) * v(h, j, c)
//
// Baris i dari weights sebuah head menyatakan seberapa banyak token i mengambil dari setiap token j.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// weights: (H, T, T), v: (H, T, hd)  ->  (H, T, hd)
Tensor attend(const Tensor& weights, const Tensor& v) {
    // TODO: output setiap token di setiap head, sesuai rumus di atas.

    (void)weights;
    return Tensor::zeros(v.shape());  // TODO: ganti dengan hasilmu
}
