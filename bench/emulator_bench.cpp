// Emulator figures (printed, never asserted): the cost of one __syncthreads
// at 256 threads, and the emulated attention kernels v1 and v2 at
// B = 1, T = 128, H = 12, hd = 64. Goals: <= 10 us per barrier, <= 0.2 s per
// attention launch on 2 cores. Then the speed model's validation table: the
// estimate of each kernel at that shape beside a bound derived by hand (the
// README's table).
//   attnlab-bench-emulator
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <random>

#include <thread>

#include "attnlab/core/check/performance.hpp"
#include "attnlab/core/check/roofline.hpp"
#include "attnlab/emu/launch.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/kernels/launchers.hpp"

using namespace attnlab;

namespace attnlab::bench {
void barriers_only(float* out, int n);  // emulator_bench_kernels.cu: n barriers, then out[0] = n
}  // namespace attnlab::bench

namespace {

// CPU seconds of the whole process (all threads): on a busy machine the wall
// time says more about the neighbours than about the emulator.
double cpu_seconds() { return double(std::clock()) / CLOCKS_PER_SEC; }

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<float> random_values(size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = dist(gen);
    return v;
}

void bench_barrier(const emu::LaunchOptions& options) {
    emu::ScopedLaunchOptions scoped(options);
    const kernels::emulated::DeviceFloats out("out", 1);
    const int n = 2000;
    using bench::barriers_only;
    emu::launch("barriers_only", barriers_only, dim3(1), dim3(256), 0, out.data(), 10);  // warm-up: stacks
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = cpu_seconds();
    const emu::LaunchReport r = emu::launch("barriers_only", barriers_only, dim3(1), dim3(256), 0, out.data(), n);
    const double s = seconds_since(start), cpu = cpu_seconds() - cpu_start;
    std::printf("  __syncthreads at 256 threads: %.2f us per barrier wall, %.2f us CPU (%lld barriers, %s)\n",
                s / n * 1e6, cpu / n * 1e6, (long long)r.counters.barriers, r.ok() ? "ok" : "FAULT");
}

void bench_attention(int version, const emu::LaunchOptions& options, const char* label) {
    emu::ScopedLaunchOptions scoped(options);
    const int B = 1, T = 128, H = 12, hd = 64;
    const size_t n = size_t(B) * H * T * hd;
    using kernels::emulated::DeviceFloats;
    const DeviceFloats q = DeviceFloats::from_host("q", random_values(n, 1));
    const DeviceFloats k = DeviceFloats::from_host("k", random_values(n, 2));
    const DeviceFloats v = DeviceFloats::from_host("v", random_values(n, 3));
    const DeviceFloats out("out", n);
    double best = 1e30, best_cpu = 1e30;
    emu::LaunchReport r;
    for (int rep = 0; rep < 3; ++rep) {
        const auto start = std::chrono::steady_clock::now();
        const double cpu_start = cpu_seconds();
        r = kernels::emulated::attention(version, out.data(), q.data(), k.data(), v.data(), nullptr, nullptr, nullptr,
                                         B, H, T, hd);
        best = std::min(best, seconds_since(start));
        best_cpu = std::min(best_cpu, cpu_seconds() - cpu_start);
    }
    std::printf("  attention v%d, B=1 T=128 H=12 hd=64, %-18s %.3f s wall, %.3f s CPU (best of 3; %s; "
                "%.2f sectors/load request, %lld bank conflicts)\n",
                version, label, best, best_cpu, r.ok() ? "ok" : "FAULT", r.counters.sectors_per_load_request(),
                (long long)r.counters.shared_bank_conflicts);
}

}  // namespace

// The speed model against a bound anyone can derive by hand, at ANDREA-120M's
// head shape: causal attention must read Q, K, V and write O once
// (4 * B*H*T*hd floats), and does 4*hd FLOPs per visible (query, key) pair
// (q.k and p*v, a multiply-add each), T(T+1)/2 pairs per head. No kernel can
// beat max(bytes / bandwidth, FLOPs / FP32 peak); the estimate says how far
// above that attnlab thinks each kernel runs, and why.
void print_validation() {
    const int B = 1, H = 12, T = 128, hd = 64;
    ReferencePoints refs = attention_reference_points(B, H, T, hd);
    while (!refs.ready) {  // a larger shape runs on a thread of its own
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        refs = attention_reference_points(B, H, T, hd);
    }
    const double bytes = 4.0 * B * H * T * hd * sizeof(float);
    const double flops = 4.0 * hd * (double(T) * (T + 1) / 2) * B * H;
    std::printf("speed model at B=%d H=%d T=%d hd=%d: least traffic %.0f B, %.0f FLOPs (causal pairs only)\n", B, H, T, hd, bytes,
                flops);
    for (const ReferencePoint& p : refs.points)
        std::printf("  %s: %lld B requested (%.2fx the least), %.0f FLOPs counted\n", p.label.c_str(), (long long)p.bytes,
                    double(p.bytes) / bytes, p.flops);
    const std::vector<GpuModel>& gpus = gpu_models();
    for (size_t g = 0; g < gpus.size(); ++g) {
        const double bound = std::max(bytes / gpus[g].bandwidth, flops / gpus[g].fp32_flops);
        std::printf("  %-14s hand bound %7.2f us", gpus[g].name.c_str(), bound * 1e6);
        for (const ReferencePoint& p : refs.points)
            if (g < p.estimates.size())
                std::printf(" | %s %7.2f us (%s, %.2f waves, %.0f%% occupancy)", p.label.c_str(), p.estimates[g].seconds * 1e6,
                            perf_bound_code(p.estimates[g].bound), p.estimates[g].waves, p.estimates[g].achieved_occupancy * 100);
        std::printf("\n");
    }
}

int main() {
    emu::LaunchOptions full;
    emu::LaunchOptions bare = full;
    bare.checks = false;
    bare.counters = false;
    emu::LaunchOptions inline_counting = full;
    inline_counting.count_beside = false;
    std::printf("attnlab CUDA emulator (a launch's blocks run one after another on one OS thread; its counters\n"
                "are counted on a second one beside it, or inline)\n");
    bench_barrier(full);
    for (int version : {1, 2}) {
        bench_attention(version, full, "checks + counters:");
        bench_attention(version, inline_counting, "counted inline:");
        bench_attention(version, bare, "bounds only:");
    }
    // Not a timing: what the (B, H, T, hd) transpose changes, in counters.
    for (int version : {1, 2}) {
        const kernels::LayoutComparison c = kernels::compare_attention_layouts(1, 128, 12, 64, version);
        std::printf("  layouts, attention v%d: (B,H,T,hd) %.2f sectors/load request, %lld pages; "
                    "(B,T,H,hd) %.2f sectors/load request, %lld pages; outputs differ by %g\n",
                    version, c.transposed.counters.sectors_per_load_request(),
                    (long long)c.transposed.counters.global_pages, c.untransposed.counters.sectors_per_load_request(),
                    (long long)c.untransposed.counters.global_pages, c.max_abs_difference);
    }
    print_validation();
    return 0;
}
