#pragma once
// The data behind attnlab's views, computed without any GUI: per-head
// attention heatmaps (learner · reference · difference) with their colour
// ranges and masked cells, the memory
// layout of split heads, and the model-size arithmetic of the experiments
// page. The GUI only turns these into pixels; tests assert on them.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/common/value.hpp"
#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/check/stage_comparison.hpp"  // the stages a view shows beside the reference's
#include "attnlab/core/course/course.hpp"

namespace attnlab {

// ---- colours ------------------------------------------------------------------

using Rgba = std::array<uint8_t, 4>;

enum class ColorMap {
    Viridis,  // sequential, perceptually uniform: softmax weights in [0, 1]
    PuOr,     // diverging, colour-blind safe (purple–white–orange): scores, differences
};

// t in [0, 1] → colour. Out-of-range t is clamped.
Rgba map_color(ColorMap map, double t);
// Masked (future) cells: a neutral grey that is in neither colour map.
inline constexpr Rgba kMaskedColor = {72, 72, 72, 255};
// Cells with no data or NaN.
inline constexpr Rgba kMissingColor = {255, 0, 255, 255};

// How values become colours for one kind of matrix.
struct ColorScale {
    ColorMap map = ColorMap::Viridis;
    double lo = 0, hi = 1;  // value range mapped to [0, 1]
    bool symmetric = false; // lo = -hi
    Rgba color(float value) const;  // -inf → kMaskedColor, NaN → kMissingColor
    double position(float value) const;  // where value falls in [0, 1]
};

// ---- heatmaps -------------------------------------------------------------------

// A read-only run of floats: a head's cells read in place from the case's
// tensor (no copy: 12 heads × 512² floats are 12 MB a source), or values the
// set computed itself, which `owner` keeps alive.
class FloatSpan {
public:
    FloatSpan() = default;
    FloatSpan(const float* data, size_t size, std::shared_ptr<const void> owner = {})
        : data_(data), size_(size), owner_(std::move(owner)) {}
    const float* data() const { return data_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    const float* begin() const { return data_; }
    const float* end() const { return data_ + size_; }
    float operator[](size_t k) const { return data_[k]; }
    friend bool operator==(const FloatSpan& a, const std::vector<float>& b) {
        return a.size_ == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }

private:
    const float* data_ = nullptr;
    size_t size_ = 0;
    std::shared_ptr<const void> owner_;
};

// One head's (T, T) matrix of one source. Its values point into the
// CaseOutcome the set was built from: a HeatmapSet must not outlive it.
struct HeadMatrix {
    int rows = 0, cols = 0;
    FloatSpan values;  // row-major
    // 1 where the position is masked (a future key). Filled from -inf entries
    // of this matrix or of the case's "masked" stage, so softmax weights —
    // exactly 0 there — are still drawn as masked, not as a zero value.
    std::vector<uint8_t> mask;
    float at(int i, int j) const { return values[static_cast<size_t>(i) * static_cast<size_t>(cols) + static_cast<size_t>(j)]; }
    bool masked(int i, int j) const;
};

// What a heatmap grid shows for one stage of one case.
struct HeatmapSet {
    std::string stage;              // "weights", "scores", "masked", or "output"
    int heads = 0;
    int rows = 0, cols = 0;
    std::vector<HeadMatrix> reference;
    std::vector<HeadMatrix> learner;     // empty when the learner has no such tensor
    bool learner_from_output = false;    // `learner` is the function's return value (no probe needed)
    int learner_line = 0;                // `learner` is a recorded tensor placed as this stage: the learner's line
    std::vector<HeadMatrix> difference;  // learner − reference; masked where both are -inf
    std::vector<HeadMatrix> cuda;        // the reference op's CUDA kernel (empty without one)
    KernelBackend cuda_backend = KernelBackend::Emulator;  // where `cuda` was computed, when it is filled
    double cuda_max_abs_difference = 0;  // |CUDA − reference| over cells finite in both
    ColorScale value_scale;              // for learner and reference
    ColorScale difference_scale;         // symmetric, diverging
    double max_abs_difference = 0;       // over cells finite in both
    int64_t non_finite_differences = 0;  // cells where only one side is ±inf or NaN (drawn kMissingColor)
    std::string learner_problem;         // e.g. "shape (2, 4, 4) where (2, 4, 5) was expected"
    std::vector<std::string> tokens;     // axis labels, when the case gives them
};

// The stages of a case that can be drawn as per-head (T, T) heatmaps, in
// pipeline order: reference stages of rank 3 (H, T, T) or 4 (B, H, T, T, first
// batch), plus the output itself when it has that shape and no reference
// stage stands for it.
std::vector<std::string> heatmap_stages(const CaseOutcome& c);
// Builds the set for `stage` ("output" for the entry point's result). The
// set reads the case's tensors in place: keep `c` alive while it is used.
// Softmax weights get Viridis on [0, 1]; anything else a symmetric PuOr range
// over the finite values of both sources.
std::optional<HeatmapSet> build_heatmaps(const CaseOutcome& c, const std::string& stage);

// Fills `out` (rows×cols RGBA, row-major) for one head matrix.
void rasterize(const HeadMatrix& m, const ColorScale& scale, std::vector<uint8_t>& out);

// ---- memory layout ----------------------------------------------------------------

// One step of the split-heads pipeline, with the strides of the view.
struct LayoutStage {
    std::string label;   // "reshape", "transpose(1, 0, 2)", "contiguous()"
    Shape shape;
    Shape strides;       // in elements
    bool contiguous = false;
    bool copies = false; // this step allocates and copies
};

// (T, D) → reshape (T, H, hd) → transpose (H, T, hd) → contiguous, or with a
// batch axis (B, T, D) → (B, T, H, hd) → (B, H, T, hd) → contiguous.
std::vector<LayoutStage> split_heads_pipeline(int64_t batch, int64_t tokens, int64_t d_model, int64_t heads);

// A cell of the linear buffer: which logical element lives at this offset.
struct MemoryCell {
    int64_t offset = 0;
    int64_t batch = 0, token = 0, head = 0, j = 0;  // j: index inside the head
};
// The buffer before (token-major, (T, D)) and after the contiguous transpose
// (head-major, (H, T, hd)): cell k holds the element listed at index k.
std::vector<MemoryCell> memory_before(int64_t batch, int64_t tokens, int64_t d_model, int64_t heads);
std::vector<MemoryCell> memory_after(int64_t batch, int64_t tokens, int64_t d_model, int64_t heads);

// ---- experiments -------------------------------------------------------------------

struct ModelConfig {
    std::string name;
    int64_t d_model = 768;
    int64_t heads = 12;
    int64_t layers = 12;
    bool assumed = false;       // some figures are assumptions (labelled in the view)
    std::string assumption;     // what was assumed
};

// ANDREA-120M as the seeds give it; ANDREA-12M's head_dim = 32 is given,
// the rest is an assumption, labelled.
std::vector<ModelConfig> preset_configs();

struct ModelFigures {
    int64_t head_dim = 0;
    bool divides = true;                 // d_model % heads == 0
    bool fills_tensor_core_tiles = false; // head_dim is a multiple of 16
    int64_t tiles_per_head = 0;          // head_dim / 16
    int64_t attention_params_per_layer = 0;  // 4·D²
    int64_t attention_params_total = 0;
    int64_t matmuls_per_head_projection = 0; // 3·H separate (X·W_Q^h etc.)
    int64_t matmuls_fused_projection = 0;    // 3 (or 1 with a fused QKV)
    int64_t matmuls_fused_qkv = 1;
};
ModelFigures model_figures(const ModelConfig& c);

}  // namespace attnlab
