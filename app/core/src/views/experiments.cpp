#include "attnlab/core/views/experiments.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#include <Eigen/Dense>

namespace attnlab {

namespace {

using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

bool valid_projection_sizes(int tokens, int d_model, int heads) {
    return tokens >= 1 && d_model >= 1 && heads >= 1 && d_model % heads == 0;
}

ProjectionTiming time_projections(int tokens, int d_model, int heads, int repeats) {
    const int hd = d_model / heads;
    const MatrixF x = MatrixF::Random(tokens, d_model);
    // x: (T, D); per head and projection: W (D, hd) -> (T, hd)
    std::vector<MatrixF> per_head(static_cast<size_t>(3 * heads), MatrixF::Random(d_model, hd));
    std::vector<MatrixF> outputs(per_head.size(), MatrixF(tokens, hd));
    // fused: W_QKV (D, 3D) -> (T, 3D)
    const MatrixF fused = MatrixF::Random(d_model, 3 * d_model);
    MatrixF fused_out(tokens, 3 * d_model);

    using clock = std::chrono::steady_clock;
    std::vector<double> per_head_ms, fused_ms;
    float sink = 0;  // keeps the optimiser from dropping the work
    for (int r = 0; r < std::max(1, repeats); ++r) {
        auto t0 = clock::now();
        for (size_t i = 0; i < per_head.size(); ++i) outputs[i].noalias() = x * per_head[i];
        per_head_ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
        sink += outputs.back()(0, 0);
        t0 = clock::now();
        fused_out.noalias() = x * fused;
        fused_ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
        sink += fused_out(0, 0);
    }
    volatile float keep = sink;
    (void)keep;
    return ProjectionTiming{median(per_head_ms), median(fused_ms), 3 * heads, 1, tokens, d_model, heads};
}

MessageKey timing_explanation_key(const ProjectionTiming& t) {
    const double ratio = t.per_head_ms / std::max(t.fused_ms, 1e-9);
    if (ratio >= 1.3) return msg::gui_exp_why_gain;
    // Work of the whole projection: 2·T·D·3D flops. Under ~0.1 GFLOP a CPU
    // core finishes it in a few milliseconds, and x (T·D floats) stays in
    // cache for all 3·H per-head matmuls.
    const double flops = 2.0 * t.tokens * t.d_model * 3.0 * t.d_model;
    const int hd = t.heads > 0 ? t.d_model / t.heads : 0;
    if (flops < 1e8 || hd < 32) return msg::gui_exp_why_small;
    return msg::gui_exp_why_cpu;
}

ProjectionTimingJob::~ProjectionTimingJob() {
    if (thread_.joinable()) thread_.join();
}

bool ProjectionTimingJob::start(int tokens, int d_model, int heads, int repeats) {
    if (running() || !valid_projection_sizes(tokens, d_model, heads)) return false;
    if (thread_.joinable()) thread_.join();
    done_.store(false);
    failed_ = false;
    thread_ = std::thread([this, tokens, d_model, heads, repeats] {
        // Nothing may escape a thread (std::terminate would end the window):
        // a measurement that cannot run (out of memory) is reported as failed.
        std::optional<ProjectionTiming> t;
        try {
            t = time_projections(tokens, d_model, heads, repeats);
        } catch (...) {
        }
        {
            std::lock_guard<std::mutex> lock(mu_);
            pending_ = t;
        }
        done_.store(true);
    });
    return true;
}

void ProjectionTimingJob::poll() {
    if (!thread_.joinable() || !done_.load()) return;
    thread_.join();
    std::lock_guard<std::mutex> lock(mu_);
    if (pending_) result_ = pending_;
    failed_ = !pending_;
}

}  // namespace attnlab
