// Menghitung parameter attention
//
// Kembalikan banyaknya bobot di sublapisan attention sebuah model dengan
// n_layers lapisan selebar d_model: setiap entri W_Q, W_K, W_V, dan W_O,
// masing-masing matriks (d_model, d_model), di setiap lapisan. Bias tidak dihitung.
//
// Hitungannya harus tepat untuk setiap kasus, termasuk model yang jauh lebih besar dari
// ANDREA-120M.
#include <attnlab/tensor.hpp>

using namespace attnlab;

long long attention_params(int d_model, int n_layers) {
    // TODO: hitung bobot attention.
    (void)d_model;
    (void)n_layers;
    return 0;  // TODO: ganti dengan hitunganmu
}
