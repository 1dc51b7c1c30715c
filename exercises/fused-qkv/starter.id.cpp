// Satu matmul untuk Q, K, dan V
//
// w_qkv adalah [W_Q | W_K | W_V] berdampingan: kolom 0..D-1 adalah W_Q,
// D..2D-1 adalah W_K, 2D..3D-1 adalah W_V. Hitung X · W_QKV dengan satu matmul,
// lalu pecah hasil (T, 3D)-nya menjadi Q, K, dan V.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// x: (T, D), w_qkv: (D, 3D)  ->  (3, T, D): indeks 0 adalah Q, 1 adalah K, 2 adalah V
Tensor fused_qkv(const Tensor& x, const Tensor& w_qkv) {
    const int64_t T = x.shape(0);
    const int64_t D = x.shape(1);

    // TODO: satu matmul itu, (T, 3D).
    // TODO: pecah menjadi Q, K, V dan kembalikan sebagai satu tensor (3, T, D).

    (void)w_qkv;
    return Tensor::zeros({3, T, D});  // TODO: ganti dengan hasilmu
}
