// Jumlah baris di GPU: (B, H, R, N) -> (B, H, R)
//
//     out[b, h, r] = x[b, h, r, 0] + x[b, h, r, 1] + ... + x[b, h, r, N-1]
//
// attnlab memanggil row_sum sekali untuk setiap kasus. x sudah ada di memori
// device; out berbentuk (B, H, R) dan berisi sampah sampai sebuah kernel
// menulisinya. Satu blok per baris: setiap thread-nya menjumlahkan sebagian
// baris, lalu menggabungkan jumlah parsialnya (langkah 1: pohon di memori
// __shared__ dengan __syncthreads(); langkah 2: tingkat-tingkat di dalam satu
// warp dengan __shfl_down_sync). N bisa lebih besar dari bloknya, dan belum
// tentu kelipatan 32.
#include <attnlab/cuda.hpp>

constexpr int kThreads = 128;

// out: (B, H, R)   x: (B, H, R, N); blok r menjumlahkan baris r.
__global__ void row_sum_kernel(float* out, const float* x, int N) {
    // TODO: setiap thread menjumlahkan elemen-elemennya di baris blockIdx.x,
    //       blok menggabungkan jumlah parsialnya, dan satu thread menulis
    //       out[blockIdx.x].
}

void row_sum(DeviceTensor& out, const DeviceTensor& x) {
    const int N = x.size(3);
    const int rows = out.numel();  // B * H * R

    // TODO: luncurkan row_sum_kernel<<<rows, kThreads>>>(out.data(), x.data(), N).
    //       Untuk sekarang belum ada yang diluncurkan.
    (void)out; (void)N; (void)rows;
}
