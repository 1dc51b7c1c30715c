// Forward FlashAttention-2 di tensor core: S = Q·Kᵀ dan O += P·V dengan WMMA
//
//   q, k, v, out: (B, H, T, hd), float row-major di memori device; hd bernilai
//   16, 32 atau 64, T panjang berapa pun.
//   out[b, h, i, :] = jumlah atas key j = 0..i dari w(i, j) · v[b, h, j, :], dengan
//   w(i, ·) softmax atas j = 0..i dari q[b, h, i, :] · k[b, h, j, :] / sqrt(hd).
//   Hasil cuda-flash-attention, dengan batasan yang dicek berikut:
//   - satu blok per (tile query 32 baris, head, barisan): ceil(T / 32)·H·B blok;
//   - K dan V lewat memori shared dalam tile, paling banyak 32 KiB per blok untuk T berapa pun;
//   - sebuah blok memuat setiap elemen q, K dan V dari memori global paling banyak sekali;
//   - launch membaca paling banyak 3.5 kali lalu lintas global minimum (causal early exit);
//   - FLOP yang dijalankan wmma::mma_sync paling sedikit 0.9 kali FLOP attention.
//   Dan yang diminta latihan ini: kedua perkalian di tensor core, dengan
//   fragmen wmma dari <mma.h> dalam __half (<cuda_fp16.h>) atau __nv_bfloat16
//   (<cuda_bf16.h>) dan akumulator float; maksimum dan jumlah baris online
//   softmax dibaca dari skor yang ditaruh di memori shared.
//
// attnlab memanggil flash_attention() sekali per kasus. q, k dan v sudah ada di
// memori device; out sudah berbentuk benar dan berisi sampah sampai kernel menulisnya.
#include <attnlab/cuda.hpp>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// TODO: kernelnya. Beri komentar bentuk, misalnya
// out: (B, H, T, hd)   q, k, v: (B, H, T, hd)

// q, k, v: (B, H, T, hd) di memori device; out: (B, H, T, hd), ditulis oleh kernelmu.
void flash_attention(DeviceTensor& out, const DeviceTensor& q, const DeviceTensor& k, const DeviceTensor& v) {
    const int B = q.size(0), H = q.size(1), T = q.size(2), hd = q.size(3);

    // TODO: launch kernelmu dengan satu blok per tile query 32 baris, head dan barisan.

    (void)out; (void)k; (void)v; (void)B; (void)H; (void)T; (void)hd;  // TODO: hapus setelah dipakai
}
