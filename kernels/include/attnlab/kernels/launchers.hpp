#pragma once
// The kernel launchers of kernels/attention/*.cu as built for the CPU
// emulator, for programs that drive single kernels (benchmarks, a per-block
// view, layout comparisons), and the emulator's device memory they take.
// Shapes as in the .cu files; each launcher returns the launch's report.
// run_kernel_op (kernels.hpp) is the usual entry point; these are the
// building blocks underneath it.
//
// One emulated launch at a time per process, on the calling OS thread: the
// emulator's checks of plain CUDA keep their shadow state per process (see
// attnlab/emu/raw_memory.hpp). run_kernel_op and compare_attention_layouts
// take emulator_lock() for it; a program that calls these launchers from
// several threads takes it too.
#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "attnlab/common/launch_report.hpp"

namespace attnlab::kernels::emulated {

std::mutex& emulator_lock();

// Floats in the emulator's device memory (cudaMalloc's: page-aligned, guard
// pages around it, every byte "never written" until a kernel or an upload
// writes it). Host code may read and write it between launches.
class DeviceFloats {
public:
    DeviceFloats(const std::string& name, size_t count);
    static DeviceFloats from_host(const std::string& name, const std::vector<float>& values);
    ~DeviceFloats();
    DeviceFloats(DeviceFloats&& o) noexcept : data_(o.data_), count_(o.count_) { o.data_ = nullptr, o.count_ = 0; }
    DeviceFloats(const DeviceFloats&) = delete;
    DeviceFloats& operator=(const DeviceFloats&) = delete;
    DeviceFloats& operator=(DeviceFloats&&) = delete;
    float* data() const { return data_; }  // null when empty
    size_t size() const { return count_; }
    std::vector<float> download() const;

private:
    float* data_ = nullptr;
    size_t count_ = 0;
};

// out: (B, H, T, hd) <- inp: (B, T, C), columns col0 .. col0 + H·hd - 1
emu::LaunchReport split_heads(float* out, const float* inp, int B, int T, int H, int hd, int C, int col0);
// out: (B, T, H·hd) <- inp: (B, H, T, hd)
emu::LaunchReport merge_heads(float* out, const float* inp, int B, int T, int H, int hd);
// out: (M, N) = a: (M, K) · w: (K, N)
emu::LaunchReport matmul(float* out, const float* a, const float* w, int M, int N, int K);
// out, q, k, v: (B, H, T, hd); scores, masked, weights: (B, H, T, T), all null or all set.
// version 1 (one block per (batch, head)) or 2 (tiled online softmax, hd <= 128).
// layout: null for (B, H, T, hd) q, k, v; else {batch, head, row} strides in
// elements, element (b, h, t, d) at b·batch + h·head + t·row + d — e.g. the
// un-transposed qkv (B, T, 3D): {T·3D, hd, 3D} with k = qkv + D, v = qkv + 2D.
emu::LaunchReport attention(int version, float* out, const float* q, const float* k, const float* v, float* scores,
                            float* masked, float* weights, int B, int H, int T, int hd, const int* layout = nullptr);
int attention_v2_max_head_dim();
int attention_v2_rows_per_block();  // query rows (= threads) per attention_v2 block

}  // namespace attnlab::kernels::emulated
