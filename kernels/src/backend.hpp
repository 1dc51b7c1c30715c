#pragma once
// Internal: what each backend (the emulator, a real GPU) offers to
// kernels.cpp. Plain host vectors in and out; every launch is reported.
#include <string>
#include <vector>

#include "attnlab/common/launch_report.hpp"

namespace attnlab::kernels::detail {

struct HostTensor {
    std::string name;
    std::vector<int64_t> shape;
    std::vector<float> data;
};

struct BackendRun {
    std::vector<HostTensor> tensors;             // outputs, named by the caller's convention
    std::vector<emu::LaunchReport> launches;     // in launch order; the last one failed if any did
    bool ok() const { return launches.empty() || launches.back().ok(); }
    const HostTensor* find(const std::string& name) const {
        for (const HostTensor& t : tensors)
            if (t.name == name) return &t;
        return nullptr;
    }
};

// Causal MHSA from x (B, T, D) with a fused w_qkv (D, 3D) and, optionally,
// w_o (D, D). Outputs: qkv (B·T, 3D), heads (B, H, T, hd), concat (B, T, D),
// out (B, T, D) when w_o is given, and, with stages, scores/masked/weights
// (B, H, T, T).
struct MhsaProblem {
    const std::vector<float>* x = nullptr;
    const std::vector<float>* w_qkv = nullptr;
    const std::vector<float>* w_o = nullptr;   // null: stop after merging the heads
    int B = 1, T = 1, D = 1, H = 1;
    int version = 2;
    bool stages = true;
};

// Attention alone on (B, H, T, hd) q, k, v. Outputs: heads (+ stages).
struct AttentionProblem {
    const std::vector<float>* q = nullptr;
    const std::vector<float>* k = nullptr;
    const std::vector<float>* v = nullptr;
    int B = 1, H = 1, T = 1, hd = 1;
    int version = 2;
    bool stages = true;
};

#define ATTNLAB_BACKEND_FUNCTIONS                                                                     \
    BackendRun run_matmul(const std::vector<float>& a, const std::vector<float>& w, int M, int K, int N); \
    BackendRun run_split_heads(const std::vector<float>& x, int B, int T, int D, int H);               \
    BackendRun run_merge_heads(const std::vector<float>& heads, int B, int H, int T, int hd);          \
    BackendRun run_mhsa(const MhsaProblem& p);                                                          \
    BackendRun run_attention(const AttentionProblem& p);

namespace emulated { ATTNLAB_BACKEND_FUNCTIONS }
namespace native {
ATTNLAB_BACKEND_FUNCTIONS
int device_count();          // 0 when no GPU (or no driver)
std::string device_name();   // of device 0
}  // namespace native

}  // namespace attnlab::kernels::detail
