// Skor attention dengan pembacaan yang coalesced
//
//     out[b, h, i, j] = jumlah atas d dari q[b, h, i, d] * k[b, h, j, d] / sqrt(hd)
//
// q dan k berbentuk (B, H, T, hd) dan sudah ada di memori device; out berbentuk
// (B, H, T, T) dan berisi sampah sampai sebuah kernel menulisinya. attnlab
// memanggil attention_scores sekali untuk setiap kasus.
//
// Kernel di bawah menghitung angka yang benar, tetapi pembacaan globalnya tidak
// coalesced: setiap request pembacaan sebuah warp memindahkan sektor 32 byte yang
// sebagian besar isinya tidak diminta. `attnlab check` mencetak berapa sektor yang
// dibuang kernelmu dibanding lalu lintas minimum skor ini; batasnya 2x.
#include <attnlab/cuda.hpp>

// out: (B, H, T, T)   q, k: (B, H, T, hd)
__global__ void scores_kernel(float* out, const float* q, const float* k,
                              int B, int H, int T, int hd, float scale) {
    // Satu thread per skor; thread-thread berurutan mengambil key j yang berurutan.
    const int n = B * H * T * T;
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;
    const int j = idx % T;
    const int i = (idx / T) % T;
    const int bh = idx / (T * T);
    float acc = 0.0f;
    for (int d = 0; d < hd; ++d) {
        const float qv = q[(bh * T + i) * hd + d];
        const float kv = k[(bh * T + j) * hd + d];
        acc += qv * kv;
    }
    out[idx] = acc * scale;
}

void attention_scores(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);
    const float scale = 1.0f / sqrtf(static_cast<float>(hd));

    // TODO: hitung skor yang sama dengan pembacaan global yang coalesced (membuang
    //       paling banyak 2x lalu lintas minimum; pemeriksaan mencetak angkamu). Kamu boleh
    //       mengubah kernel, grid, dan blok, serta menambahkan shared memory.
    const int threads = 128;
    scores_kernel<<<ceil_div(out.numel(), threads), threads>>>(out.data(), q.data(), k.data(), B, H, T, hd, scale);
}
