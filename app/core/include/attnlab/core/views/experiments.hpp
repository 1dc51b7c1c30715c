#pragma once
#include <string>
// A live measurement for the experiments page: the Q/K/V projections done
// per head (3·H small matmuls, X · W_Q^h with W_Q^h of (D, hd)) versus fused
// (one X · W_QKV with W_QKV of (D, 3D)). Same arithmetic, different shapes:
// the fused matmul keeps the CPU's vector units and caches busier. It lives in
// the core, not in the reference: the reference is the truth, this is an
// experiment.
#include <atomic>
#include <mutex>
#include <optional>
#include <thread>

#include "attnlab/core/text/messages.hpp"

namespace attnlab {

struct ProjectionTiming {
    double per_head_ms = 0;  // median over repeats, all 3·H matmuls
    double fused_ms = 0;     // median over repeats, the single fused matmul
    int per_head_matmuls = 0;
    int fused_matmuls = 1;
    int tokens = 0, d_model = 0, heads = 0;  // the sizes measured
};

// Why the measurement shows the gain it shows, as a message key
// (gui.exp.why.*, both languages): "small" when the matrices are too small for
// fusing to matter on a CPU, "cpu" when they are large but the CPU backend
// does the same arithmetic and memory traffic either way, "gain" when fusing
// pays off here. Placeholders: {t}, {d}, {h}, {hd}, {n} (3·H).
MessageKey timing_explanation_key(const ProjectionTiming& t);

// Sizes a measurement accepts: all positive, d_model divisible by heads.
bool valid_projection_sizes(int tokens, int d_model, int heads);
// x: (tokens, d_model) in float. Precondition: valid_projection_sizes().
ProjectionTiming time_projections(int tokens, int d_model, int heads, int repeats);

// One measurement at a time on its own thread, so the window never freezes.
class ProjectionTimingJob {
public:
    ~ProjectionTimingJob();
    // False (and nothing starts) when busy or the sizes are invalid.
    bool start(int tokens, int d_model, int heads, int repeats = 5);
    bool running() const { return thread_.joinable() && !done_.load(); }
    // Collects a finished measurement; call once per frame.
    void poll();
    const std::optional<ProjectionTiming>& result() const { return result_; }
    // The last measurement could not run (it ran out of memory).
    bool failed() const { return failed_; }

private:
    std::thread thread_;
    std::atomic<bool> done_{false};
    std::mutex mu_;
    std::optional<ProjectionTiming> pending_;
    std::optional<ProjectionTiming> result_;
    bool failed_ = false;
};

}  // namespace attnlab
