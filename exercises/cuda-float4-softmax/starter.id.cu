// Softmax satu langkah decoding di GPU, dengan load dan store float4
//
// Untuk setiap baris x (B, H, T), satu baris berisi T skor per (b, h):
//
//     out[b, h, j] = exp(x[b, h, j] - m) / jumlah atas k dari exp(x[b, h, k] - m)
//
// dengan m nilai maksimum baris itu. Hasilnya harus tetap berhingga ketika
// sebuah baris berisi angka dalam ribuan. attnlab memanggil softmax_step sekali
// untuk setiap kasus; x sudah ada di memori device; out berbentuk (B, H, T) dan
// berisi sampah sampai sebuah kernel menulisinya.
//
// Kernel ini benar, tetapi pemeriksaannya tetap gagal: satu warp per baris, setiap
// lane memindahkan satu float per instruksi, paling banyak 128 byte per request
// warp. Jika T >= 64, load dan store masing-masing harus memindahkan paling sedikit
// 160 byte per request warp: jadikan float4 di bagian baris yang memungkinkan.
// x.data() dan out.data() selaras 16 byte; baris r dimulai di float r * T.
#include <attnlab/cuda.hpp>

constexpr int kWarpsPerBlock = 4;  // 128 thread: empat baris per blok

__device__ float warp_max(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, offset));
    return v;
}

__device__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset);
    return v;
}

// out, x: (B, H, T)
__global__ void softmax_kernel(float* out, const float* x, int T, int rows) {
    const int row = blockIdx.x * kWarpsPerBlock + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= rows) return;  // seluruh warp berbagi baris ini, jadi semuanya keluar bersama
    const float* in = x + (size_t)row * T;
    float* o = out + (size_t)row * T;

    // TODO: tiga lintasan yang sama, dengan load dan store float4 di bagian baris yang memungkinkan.
    float m = -INFINITY;
    for (int j = lane; j < T; j += 32) m = fmaxf(m, in[j]);
    m = warp_max(m);

    float s = 0.0f;
    for (int j = lane; j < T; j += 32) s += expf(in[j] - m);
    const float inv_sum = 1.0f / warp_sum(s);

    for (int j = lane; j < T; j += 32) o[j] = expf(in[j] - m) * inv_sum;
}

void softmax_step(DeviceTensor& out, const DeviceTensor& x) {
    const int T = x.size(2);
    const int rows = x.numel() / T;  // B * H baris berisi T skor
    softmax_kernel<<<(rows + kWarpsPerBlock - 1) / kWarpsPerBlock, 32 * kWarpsPerBlock>>>(out.data(), x.data(), T, rows);
}
