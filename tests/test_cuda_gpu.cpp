// GPU test (label gpu): the nvcc-built kernels on a real device against the
// Eigen reference. Exits 77 (ctest: skipped) when no CUDA device is present.
#include <array>
#include <cmath>
#include <cstdio>
#include <random>

#include "attnlab/core/text/launch_words.hpp"
#include "attnlab/kernels/kernels.hpp"
#include "attnlab/reference/registry.hpp"

using namespace attnlab;

namespace {

TensorData random_tensor(Shape shape, unsigned seed, float scale) {
    TensorData t = TensorData::zeros(std::move(shape));
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-scale, scale);
    for (float& v : t.data) v = dist(gen);
    return t;
}

// Max |kernel - ref| over finite entries; -1 when shapes or masks differ.
double max_error(const TensorData& got, const TensorData& ref) {
    if (got.shape != ref.shape) return -1;
    double worst = 0;
    for (size_t i = 0; i < ref.data.size(); ++i) {
        if (std::isinf(ref.data[i])) {
            if (got.data[i] != ref.data[i]) return -1;
            continue;
        }
        const double err = std::fabs(double(got.data[i]) - ref.data[i]);
        if (!(err <= 2e-4 + 1e-3 * std::fabs(ref.data[i]))) return -1;
        worst = std::max(worst, err);
    }
    return worst;
}

}  // namespace

int main() {
    if (!kernels::gpu_available()) {
        std::printf("no CUDA device: GPU kernel tests skipped (the emulator tests cover the same kernels)\n");
        return 77;
    }
    std::printf("device: %s\n", kernels::gpu_device_name().c_str());
    int failures = 0;
    for (int version : {1, 2})
        for (const auto& [B, T, D, H] : {std::array<int, 4>{1, 1, 64, 2}, {2, 70, 128, 2}, {3, 33, 144, 2}}) {
            reference::Inputs in;
            in["x"] = Value::of_tensor(random_tensor({B, T, D}, 1, 1.0f));
            const float w = 1.0f / std::sqrt(float(D));
            in["w_q"] = Value::of_tensor(random_tensor({D, D}, 2, w));
            in["w_k"] = Value::of_tensor(random_tensor({D, D}, 3, w));
            in["w_v"] = Value::of_tensor(random_tensor({D, D}, 4, w));
            in["w_o"] = Value::of_tensor(random_tensor({D, D}, 5, w));
            in["n_heads"] = Value::of_int(H);
            const reference::Result ref = reference::find_op("batched_causal_mhsa")->run(in);
            kernels::KernelOptions options;
            options.backend = kernels::Backend::Gpu;
            options.attention_version = version;
            const auto run = kernels::run_kernel_op("batched_causal_mhsa", in, options);
            bool ok = run && run->ok() && run->backend == kernels::Backend::Gpu;
            double err = ok ? max_error(run->output.tensor, ref.output.tensor) : -1;
            for (const NamedTensor& s : ok ? run->stages : std::vector<NamedTensor>{})
                for (const NamedTensor& r : ref.stages)
                    if (r.name == s.name && max_error(s.tensor, r.tensor) < 0) err = -1;
            ok = ok && err >= 0;
            std::printf("%s v%d B=%d T=%d D=%d H=%d: max abs error %.3g\n", ok ? "ok  " : "FAIL", version, B, T, D, H, err);
            if (!ok && run) std::printf("%s\n", describe_launch(run->report, Lang::En).c_str());
            failures += !ok;
        }
    return failures ? 1 : 0;
}
