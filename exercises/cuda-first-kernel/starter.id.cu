// Mask kausal di GPU: skor (B, H, T, T) -> (B, H, T, T)
//
//     out[b, h, i, j] = scores[b, h, i, j]  jika j <= i   (query i boleh melihat key j)
//     out[b, h, i, j] = -INFINITY           jika j > i    (key masa depan)
//
// attnlab memanggil causal_mask sekali untuk setiap kasus. scores sudah ada
// di memori device; out berbentuk sama dan berisi sampah sampai sebuah kernel
// menulisinya. Tulis kernelnya lalu luncurkan: satu thread per elemen out,
// setiap elemen ditulis, tidak ada akses di luar out atau scores. Grid dan
// ukuran blok kamu yang memilih; B*H*T*T belum tentu kelipatan apa pun.
#include <attnlab/cuda.hpp>

// out, scores: (B, H, T, T), n = B*H*T*T elemen
__global__ void mask_kernel(float* out, const float* scores, int T, long long n) {
    // TODO: cari elemen out milik thread ini, lalu tulis skornya atau
    //       -INFINITY ke dalamnya.
}

void causal_mask(DeviceTensor& out, const DeviceTensor& scores) {
    const int T = scores.size(3);
    const long long n = scores.numel();

    // TODO: luncurkan mask_kernel<<<blocks, threads>>>(out.data(), scores.data(), T, n)
    //       dengan grid dan blok pilihanmu yang memberi setiap elemen out
    //       thread-nya sendiri. Untuk sekarang belum ada yang diluncurkan.
    (void)out; (void)T; (void)n;
}
