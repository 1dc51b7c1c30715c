// Softmax kausal di GPU
//
// Untuk setiap baris i di setiap irisan (b, h) dari scores (B, H, T, T):
//
//     out[b, h, i, j] = exp(s_ij) / jumlah atas k <= i dari exp(s_ik)    untuk j <= i
//     out[b, h, i, j] = 0                                                untuk j >  i
//
// Key j > i ada di masa depan: bobotnya tepat 0 dan skornya tidak boleh
// mengubah barisnya. Hasilnya harus tetap berhingga untuk skor dalam ribuan.
// attnlab memanggil causal_softmax sekali untuk setiap kasus. scores sudah ada
// di memori device; out berbentuk (B, H, T, T) dan berisi sampah sampai sebuah
// kernel menulisinya. Grid dan ukuran blok kamu yang memilih; T belum tentu
// kelipatan apa pun.
#include <attnlab/cuda.hpp>

// out: (B, H, T, T)   scores: (B, H, T, T)
__global__ void causal_softmax_kernel(float* out, const float* scores, int T) {
    // TODO: hitung bobot baris (atau baris-baris) yang menjadi tanggung jawab blok ini.
}

void causal_softmax(DeviceTensor& out, const DeviceTensor& scores) {
    const int T = scores.size(3);
    const int rows = scores.numel() / T;  // B * H * T baris, masing-masing berisi T skor

    // TODO: luncurkan causal_softmax_kernel<<<grid, block>>>(out.data(), scores.data(), T)
    //       sehingga setiap baris tertangani. Untuk sekarang belum ada yang diluncurkan.
    (void)out; (void)rows;
}
