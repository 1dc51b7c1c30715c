// Softmax yang tidak pernah meluap
//
// weight(h, i, j) = exp(x(h, i, j)) / jumlah atas k dari exp(x(h, i, k))
//
// Setiap baris di setiap head menjadi bobot >= 0 yang jumlahnya 1. Hasilnya harus tetap
// benar dan berhingga untuk logit +-10000, untuk baris dengan satu nilai sangat besar, untuk
// baris berisi nilai negatif besar, dan untuk T = 1. Entri -inf mendapat tepat 0.
// Kembalikan tensor baru; x sendiri harus tetap seperti semula.
#include <attnlab/tensor.hpp>

#include <cmath>  // std::exp

using namespace attnlab;

// x: (H, T, T) -> (H, T, T), softmax atas sumbu terakhir
Tensor softmax_rows(const Tensor& x) {
    // TODO: untuk setiap head h dan baris i, softmax baris itu, dihitung sedemikian rupa
    //       sehingga lolos dari kasus-kasus di atas.

    return Tensor::zeros(x.shape());  // TODO: ganti dengan hasilmu
}
