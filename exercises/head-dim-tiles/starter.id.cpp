// Dimensi head dan tile tensor core
//
// Tensor core mengambil dimensi head 16 kolom sekaligus. Kembalikan
// lebar yang ditempati head selebar head_dim kolom dalam tile selebar 16 itu:
// kelipatan 16 terkecil yang >= head_dim (64 -> 64, 72 -> 80, 1 -> 16).
// head_dim paling kecil 1.
#include <attnlab/tensor.hpp>

using namespace attnlab;

long long padded_head_dim(int head_dim) {
    // TODO: lebar head_dim setelah padding.
    (void)head_dim;
    return 0;  // TODO: ganti dengan hasilmu
}
