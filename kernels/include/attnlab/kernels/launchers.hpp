#pragma once
// The kernel launchers of kernels/attention/*.cu as built against the CPU
// emulator, for programs that drive single kernels on DeviceBuffers
// (benchmarks, a per-block view, layout comparisons). Shapes as in the .cu
// files; each returns the launch's report. run_kernel_op (kernels.hpp) is the
// usual entry point; these are the building blocks underneath it.
#include "attnlab/cuda_emu.hpp"

namespace attnlab::kernels::emulated {

template <class T> using dev_ptr = ::attnlab::emu::DevicePtr<T>;

// out: (B, H, T, hd) <- inp: (B, T, C), columns col0 .. col0 + H·hd - 1
emu::LaunchReport split_heads(dev_ptr<float> out, dev_ptr<const float> inp, int B, int T, int H, int hd,
                              int C, int col0);
// out: (B, T, H·hd) <- inp: (B, H, T, hd)
emu::LaunchReport merge_heads(dev_ptr<float> out, dev_ptr<const float> inp, int B, int T, int H, int hd);
// out: (M, N) = a: (M, K) · w: (K, N)
emu::LaunchReport matmul(dev_ptr<float> out, dev_ptr<const float> a, dev_ptr<const float> w, int M, int N,
                         int K);
// out, q, k, v: (B, H, T, hd); scores, masked, weights: (B, H, T, T), all null or all set.
// version 1 (one block per (batch, head)) or 2 (tiled online softmax, hd <= 128).
// layout: null for (B, H, T, hd) q, k, v; else {batch, head, row} strides in
// elements, element (b, h, t, d) at b·batch + h·head + t·row + d — e.g. the
// un-transposed qkv (B, T, 3D): {T·3D, hd, 3D} with k = qkv + D, v = qkv + 2D.
emu::LaunchReport attention(int version, dev_ptr<float> out, dev_ptr<const float> q, dev_ptr<const float> k,
                            dev_ptr<const float> v, dev_ptr<float> scores, dev_ptr<float> masked,
                            dev_ptr<float> weights, int B, int H, int T, int hd, const int* layout = nullptr);
int attention_v2_max_head_dim();
int attention_v2_rows_per_block();  // query rows (= threads) per attention_v2 block

}  // namespace attnlab::kernels::emulated
