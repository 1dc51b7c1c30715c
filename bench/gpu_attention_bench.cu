// GPU benchmark (built only with nvcc; needs a CUDA device to run):
// attnlab's kernels against cuBLAS at B = 4, T = 1024, H = 12, hd = 64, fp32.
//   attnlab-bench-gpu
// Prints time, achieved FLOP/s and the ratio to the cuBLAS baseline:
//   * fused QKV projection (B·T, D) × (D, 3D): matmul_tiled_v1 vs cublasSgemm
//   * causal attention: attention_v1 / attention_v2 vs cuBLAS batched GEMMs
//     (Q·K^T, a causal softmax kernel, P·V), which compute the full T×T
//     scores. FLOP/s count only the causal half for every method
//     (2·B·H·T²·hd), so the figures compare useful work.
// cuDNN's scaled-dot-product attention needs the cudnn-frontend graph API,
// which is not installed with the toolkit here; it is left out.
// Each of attnlab's kernels also gets the performance report's roofline
// estimate (app/core/include/attnlab/core/check/roofline.hpp: the same GPU table and
// model as `attnlab check`) beside its measured time: the model's calibration.
// A GPU has no sector counters, so the estimate takes the least traffic (every
// input and output byte once) and the resident blocks per SM from the threads
// alone (registers and shared memory ignored): a lower bound of the model's own.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "attnlab/core/check/roofline.hpp"
#include "attnlab/common/launch_report.hpp"

// The launchers of kernels/attention/*.cu as built by nvcc (attnlab_kernels_native).
namespace attnlab::kernels::native {
emu::LaunchReport matmul(float* out, const float* a, const float* w, int M, int N, int K);
emu::LaunchReport attention(int version, float* out, const float* q, const float* k, const float* v,
                            float* scores, float* masked, float* weights, int B, int H, int T, int hd,
                            const int* layout = nullptr);
}  // namespace attnlab::kernels::native

namespace {

#define CHECK_CUDA(call)                                                                         \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(err_));            \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

#define CHECK_CUBLAS(call)                                                                       \
    do {                                                                                         \
        cublasStatus_t st_ = (call);                                                             \
        if (st_ != CUBLAS_STATUS_SUCCESS) {                                                      \
            std::fprintf(stderr, "%s failed: status %d\n", #call, int(st_));                     \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

float* device_random(size_t n, unsigned seed, float scale) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-scale, scale);
    std::vector<float> h(n);
    for (float& x : h) x = dist(gen);
    float* d = nullptr;
    CHECK_CUDA(cudaMalloc(&d, n * sizeof(float)));
    CHECK_CUDA(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

float* device_zeros(size_t n) {
    float* d = nullptr;
    CHECK_CUDA(cudaMalloc(&d, n * sizeof(float)));
    CHECK_CUDA(cudaMemset(d, 0, n * sizeof(float)));
    return d;
}

// Mean milliseconds of `f` over `reps` runs after one warm-up run.
template <class F> double time_ms(F f, int reps = 20) {
    f();
    CHECK_CUDA(cudaDeviceSynchronize());
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    CHECK_CUDA(cudaEventRecord(start));
    for (int i = 0; i < reps; ++i) f();
    CHECK_CUDA(cudaEventRecord(stop));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    CHECK_CUDA(cudaEventDestroy(start));
    CHECK_CUDA(cudaEventDestroy(stop));
    return ms / reps;
}

// scores: (B·H, T, T) row-major, in place -> causal softmax rows. One warp per row.
__global__ void causal_softmax_rows(float* scores, int rows, int T) {
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const int i = row % T;  // query index: keys j <= i survive
    float* s = scores + size_t(row) * T;
    float m = -INFINITY;
    for (int j = lane; j <= i; j += 32) m = fmaxf(m, s[j]);
    for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    float sum = 0;
    for (int j = lane; j <= i; j += 32) sum += expf(s[j] - m);
    for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, o);
    for (int j = lane; j < T; j += 32) s[j] = j <= i ? expf(s[j] - m) / sum : 0.0f;
}

void print_row(const char* name, double ms, double flops, double baseline_ms) {
    std::printf("  %-34s %9.3f ms  %8.1f GFLOP/s  %6.2fx cuBLAS time\n", name, ms, flops / (ms * 1e-3) / 1e9,
                ms / baseline_ms);
}

// The roofline estimate of a launch against its measured time.
void print_estimate(const cudaDeviceProp& prop, const attnlab::emu::LaunchReport& launch, double measured_ms, double bytes,
                    double flops) {
    const attnlab::GpuModel* gpu = attnlab::gpu_model_for_device(prop.name);
    if (!gpu) {
        std::printf("    estimate: %s is not in the report's GPU table (roofline.hpp)\n", prop.name);
        return;
    }
    const long long threads = (long long)launch.block.count();
    const long long blocks = (long long)launch.grid.count();
    int per_sm = threads > 0 ? int(prop.maxThreadsPerMultiProcessor / threads) : 1;
    per_sm = std::min(per_sm, prop.maxBlocksPerMultiProcessor);
    const attnlab::TimeEstimate e = attnlab::roofline_time(*gpu, bytes, flops, blocks, per_sm);
    std::printf("    estimate on %s: %9.3f ms (%s; %lld blocks, %d per SM, %.2f waves), measured %.3f ms = %.2fx the estimate\n",
                gpu->name.c_str(), e.seconds * 1e3, attnlab::perf_bound_code(e.bound), blocks, per_sm, e.waves, measured_ms,
                measured_ms / (e.seconds * 1e3));
}

}  // namespace

int main() {
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        std::printf("no CUDA device: nothing to measure (this benchmark needs a GPU)\n");
        return 0;
    }
    cudaDeviceProp prop{};
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    const int B = 4, T = 1024, H = 12, hd = 64, D = H * hd, M = B * T;
    std::printf("attnlab GPU benchmark on %s: B=%d T=%d H=%d hd=%d (D=%d), fp32\n", prop.name, B, T, H, hd, D);

    cublasHandle_t cublas;
    CHECK_CUBLAS(cublasCreate(&cublas));
    const float one = 1.0f, zero = 0.0f;

    // ---- fused QKV projection: (M, D) x (D, 3D)
    float* x = device_random(size_t(M) * D, 1, 1.0f);
    float* w_qkv = device_random(size_t(D) * 3 * D, 2, 1.0f / std::sqrt(float(D)));
    float* qkv = device_zeros(size_t(M) * 3 * D);
    const double gemm_flops = 2.0 * M * D * 3.0 * D;
    // Row-major out = x·W is column-major out^T = W^T·x^T.
    const double cublas_gemm = time_ms([&] {
        CHECK_CUBLAS(cublasSgemm(cublas, CUBLAS_OP_N, CUBLAS_OP_N, 3 * D, M, D, &one, w_qkv, 3 * D, x, D, &zero, qkv, 3 * D));
    });
    attnlab::emu::LaunchReport gemm_launch;
    const double ours_gemm = time_ms([&] { gemm_launch = attnlab::kernels::native::matmul(qkv, x, w_qkv, M, 3 * D, D); });
    std::printf("fused QKV projection (%d x %d) x (%d x %d):\n", M, D, D, 3 * D);
    print_row("cublasSgemm", cublas_gemm, gemm_flops, cublas_gemm);
    print_row("matmul_tiled_v1", ours_gemm, gemm_flops, cublas_gemm);
    print_estimate(prop, gemm_launch, ours_gemm, 4.0 * (double(M) * D + double(D) * 3 * D + double(M) * 3 * D), gemm_flops);

    // ---- causal attention on (B, H, T, hd)
    const size_t n = size_t(B) * H * T * hd;
    float* q = device_random(n, 3, 1.0f);
    float* k = device_random(n, 4, 1.0f);
    float* v = device_random(n, 5, 1.0f);
    float* out = device_zeros(n);
    float* scores = device_zeros(size_t(B) * H * T * T);
    const double att_flops = 2.0 * B * H * double(T) * T * hd;  // causal half of Q·K^T and P·V
    const float scale = 1.0f / std::sqrt(float(hd));
    const long long slice = (long long)T * hd, square = (long long)T * T;
    const double cublas_att = time_ms([&] {
        // scores^T (col-major) = K_c^T · Q_c, i.e. row-major scores = Q·K^T.
        CHECK_CUBLAS(cublasSgemmStridedBatched(cublas, CUBLAS_OP_T, CUBLAS_OP_N, T, T, hd, &scale, k, hd, slice, q,
                                               hd, slice, &zero, scores, T, square, B * H));
        causal_softmax_rows<<<(B * H * T + 7) / 8, 256>>>(scores, B * H * T, T);
        // out^T (col-major) = V_c · P_c, i.e. row-major out = P·V.
        CHECK_CUBLAS(cublasSgemmStridedBatched(cublas, CUBLAS_OP_N, CUBLAS_OP_N, hd, T, T, &one, v, hd, slice, scores,
                                               T, square, &zero, out, hd, slice, B * H));
    });
    std::printf("causal attention, %d (batch, head) slices of (%d, %d):\n", B * H, T, hd);
    print_row("cuBLAS GEMMs + softmax", cublas_att, att_flops, cublas_att);
    // The reference op's count (registry_flops.cpp): QKᵀ and PV over the causal half, 5 per softmax element.
    const double op_flops = double(B) * H * T * (T + 1) / 2.0 * (4.0 * hd + 5);
    for (int version : {1, 2}) {
        attnlab::emu::LaunchReport launch;
        const double ms = time_ms([&] {
            const attnlab::emu::LaunchReport r =
                attnlab::kernels::native::attention(version, out, q, k, v, nullptr, nullptr, nullptr, B, H, T, hd);
            launch = r;
            if (!r.ok()) {
                std::fprintf(stderr, "attention_v%d: %s\n", version, r.fault.detail.c_str());
                std::exit(1);
            }
        });
        print_row(version == 1 ? "attention_v1 (block per (b, h))" : "attention_v2 (tiled online softmax)", ms,
                  att_flops, cublas_att);
        print_estimate(prop, launch, ms, 4.0 * 4.0 * double(n), op_flops);
    }
    cublasDestroy(cublas);
    for (float* p : {x, w_qkv, qkv, q, k, v, out, scores}) cudaFree(p);
    return 0;
}
