// Memecah head di GPU: (B, T, D) -> (B, H, T, hd)
//
//     out[b, h, t, j] = x[b, t, h*hd + j],   hd = D / n_heads
//
// attnlab memanggil split_heads sekali untuk setiap kasus. x sudah ada di
// memori device; out berbentuk (B, H, T, hd) dan berisi sampah sampai sebuah
// kernel menulisinya. Tulis kernelnya lalu luncurkan: satu thread per elemen
// out, setiap elemen ditulis, tidak ada akses di luar out atau x. Grid dan
// ukuran blok kamu yang memilih; T*D belum tentu kelipatan apa pun.
#include <attnlab/cuda.hpp>

// out: (B, H, T, hd)   x: (B, T, D), D = H * hd
__global__ void split_heads_kernel(float* out, const float* x, int B, int T, int H, int hd) {
    // TODO: cari elemen out milik thread ini, lalu salin elemen x yang
    //       sesuai ke dalamnya.
}

void split_heads(DeviceTensor& out, const DeviceTensor& x, int n_heads) {
    const int B = x.size(0), T = x.size(1), D = x.size(2);
    const int hd = D / n_heads;

    // TODO: luncurkan split_heads_kernel<<<grid, block>>>(out.data(), x.data(), B, T, n_heads, hd)
    //       dengan grid dan blok pilihanmu yang memberi setiap elemen out
    //       thread-nya sendiri. Untuk sekarang belum ada yang diluncurkan.
    (void)out; (void)B; (void)T; (void)hd;
}
