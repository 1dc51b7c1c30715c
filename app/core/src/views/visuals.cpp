#include "attnlab/core/views/visuals.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdlib>
#include <new>
#include <cmath>
#include <limits>

#include "attnlab/core/check/compare.hpp"

namespace attnlab {

namespace {

struct Stop {
    double t;
    uint8_t r, g, b;
};

// matplotlib's viridis at 9 points (interpolated linearly between them).
constexpr Stop kViridis[] = {
    {0.000, 68, 1, 84},    {0.125, 71, 45, 123},  {0.250, 59, 82, 139},  {0.375, 44, 114, 142}, {0.500, 33, 145, 140},
    {0.625, 40, 174, 128}, {0.750, 94, 201, 98},  {0.875, 173, 220, 48}, {1.000, 253, 231, 37},
};
// ColorBrewer PuOr (11 classes), purple for negative, orange for positive:
// distinguishable with the common colour-vision deficiencies.
constexpr Stop kPuOr[] = {
    {0.0, 45, 0, 75},      {0.1, 84, 39, 136},    {0.2, 128, 115, 172},  {0.3, 178, 171, 210},
    {0.4, 216, 218, 235},  {0.5, 247, 247, 247},  {0.6, 254, 224, 182},  {0.7, 253, 184, 99},
    {0.8, 224, 130, 20},   {0.9, 179, 88, 6},     {1.0, 127, 59, 8},
};

template <size_t N>
Rgba interpolate(const Stop (&stops)[N], double t) {
    t = std::clamp(t, 0.0, 1.0);
    size_t i = 1;
    while (i < N - 1 && stops[i].t < t) ++i;
    const Stop& a = stops[i - 1];
    const Stop& b = stops[i];
    const double u = b.t > a.t ? (t - a.t) / (b.t - a.t) : 0.0;
    auto mix = [u](uint8_t x, uint8_t y) { return static_cast<uint8_t>(std::lround(x + (y - x) * u)); };
    return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b), 255};
}

bool is_heatmap_stage_name(const std::string& name) { return name == "scores" || name == "masked" || name == "weights"; }

bool square_tail(const Shape& s) { return (s.size() == 3 || s.size() == 4) && s[s.size() - 1] == s[s.size() - 2] && s.back() > 0; }

// (H, T, T) or (B, H, T, T) → per-head matrices (batch 0).
std::vector<HeadMatrix> split_heads_of(const TensorData& t) {
    std::vector<HeadMatrix> out;
    if (!square_tail(t.shape)) return out;
    const int64_t heads = t.shape[t.shape.size() - 3];
    const int64_t n = t.shape.back();
    for (int64_t h = 0; h < heads; ++h) {
        HeadMatrix m;
        m.rows = m.cols = static_cast<int>(n);
        const size_t start = static_cast<size_t>(h * n * n);
        m.values = FloatSpan(t.data.data() + start, static_cast<size_t>(n * n));  // in place, never copied
        out.push_back(std::move(m));
    }
    return out;
}

// Probabilities: every finite value in [0, 1] and each row summing to 1.
bool looks_like_probabilities(const std::vector<HeadMatrix>& heads) {
    for (const auto& m : heads)
        for (int i = 0; i < m.rows; ++i) {
            double sum = 0;
            for (int j = 0; j < m.cols; ++j) {
                const float v = m.at(i, j);
                if (std::isnan(v) || v < -1e-6f || v > 1 + 1e-6f) return false;
                sum += v;
            }
            if (std::fabs(sum - 1.0) > 1e-3) return false;
        }
    return !heads.empty();
}

double max_abs_finite(const std::vector<HeadMatrix>& heads) {
    double m = 0;
    for (const auto& h : heads)
        for (float v : h.values)
            if (std::isfinite(v)) m = std::max(m, static_cast<double>(std::fabs(v)));
    return m;
}

// The CUDA kernel's matrices of the same stage, masked like the reference
// (a cell is masked where the kernel has -inf, or the reference is masked and
// the kernel agrees with it), drawn with the reference's colour scale.
void add_cuda_column(const CaseOutcome& c, const std::string& stage, const TensorData& ref, HeatmapSet& set) {
    if (!c.reference_kernel || !c.reference_kernel->ok) return;
    const TensorData* kernel = nullptr;
    if (stage == "output") kernel = c.reference_kernel->output.kind == ValueKind::Tensor ? &c.reference_kernel->output.tensor : nullptr;
    else kernel = find_stage(c.reference_kernel->stages, stage);
    if (!kernel || kernel->shape != ref.shape) return;
    set.cuda = split_heads_of(*kernel);
    set.cuda_backend = c.reference_kernel->backend;
    for (size_t h = 0; h < set.cuda.size() && h < set.reference.size(); ++h) {
        HeadMatrix& k = set.cuda[h];
        const HeadMatrix& r = set.reference[h];
        if (!r.mask.empty()) {
            k.mask.assign(k.values.size(), 0);
            for (size_t i = 0; i < k.values.size(); ++i)
                k.mask[i] = (std::isinf(k.values[i]) && k.values[i] < 0) || (r.mask[i] && k.values[i] == r.values[i]);
        }
        for (size_t i = 0; i < k.values.size(); ++i)
            if (std::isfinite(k.values[i]) && std::isfinite(r.values[i]))
                set.cuda_max_abs_difference = std::max(set.cuda_max_abs_difference, static_cast<double>(std::fabs(k.values[i] - r.values[i])));
    }
}

}  // namespace

Rgba map_color(ColorMap map, double t) { return map == ColorMap::Viridis ? interpolate(kViridis, t) : interpolate(kPuOr, t); }

double ColorScale::position(float value) const {
    const double span = hi - lo;
    return span > 0 ? (static_cast<double>(value) - lo) / span : 0.5;
}

namespace {

// The map sampled once at 1024 steps, ends included (finer than 8-bit colour
// can show): a cell's colour is a table lookup, so a 512×512 head rasterises
// in a few milliseconds instead of interpolating every cell.
constexpr int kColorSteps = 1024;
const std::array<Rgba, kColorSteps>& color_table(ColorMap map) {
    static const auto build = [](ColorMap m) {
        std::array<Rgba, kColorSteps> t{};
        for (int i = 0; i < kColorSteps; ++i) t[static_cast<size_t>(i)] = map_color(m, static_cast<double>(i) / (kColorSteps - 1));
        return t;
    };
    static const std::array<Rgba, kColorSteps> viridis = build(ColorMap::Viridis), puor = build(ColorMap::PuOr);
    return map == ColorMap::Viridis ? viridis : puor;
}

}  // namespace

Rgba ColorScale::color(float value) const {
    if (std::isnan(value)) return kMissingColor;
    if (std::isinf(value) && value < 0) return kMaskedColor;
    const double t = std::clamp(position(value), 0.0, 1.0) * (kColorSteps - 1);
    return color_table(map)[static_cast<size_t>(std::lround(t))];
}

bool HeadMatrix::masked(int i, int j) const {
    const size_t k = static_cast<size_t>(i) * static_cast<size_t>(cols) + static_cast<size_t>(j);
    if (!mask.empty()) return mask[k] != 0;
    const float v = values[k];
    return std::isinf(v) && v < 0;
}

std::vector<std::string> heatmap_stages(const CaseOutcome& c) {
    std::vector<std::string> out;
    const std::string output = output_stage_name(c);
    for (const auto& s : c.stages)
        if ((is_heatmap_stage_name(s.name) || s.name == output) && square_tail(s.tensor.shape)) out.push_back(s.name);
    if (c.expected.kind == ValueKind::Tensor && square_tail(c.expected.tensor.shape) && output == "output") out.push_back("output");
    return out;
}

namespace {

// Which positions are masked: -inf in the reference itself, or in the case's
// "masked" stage (whose shape matches) for stages after it, such as the
// softmax weights. Stages before it (the raw scores) show every value.
void mark_masked_cells(const CaseOutcome& c, const std::string& stage, const TensorData& ref, HeatmapSet& set) {
    bool after_mask = stage == "output", seen_mask = false;
    for (const auto& s : c.stages) {
        if (s.name == "masked") seen_mask = true;
        else if (s.name == stage) after_mask = seen_mask;
    }
    const TensorData* masked_stage = after_mask ? find_stage(c.stages, "masked") : nullptr;
    // Read straight from the masked stage (batch 0, head h), never copied.
    const float* mask_source = masked_stage && masked_stage->shape == ref.shape ? masked_stage->data.data() : nullptr;
    for (size_t h = 0; h < set.reference.size(); ++h) {
        std::vector<uint8_t> mask(set.reference[h].values.size(), 0);
        bool any = false;
        const float* from = mask_source ? mask_source + h * mask.size() : set.reference[h].values.data();
        for (size_t k = 0; k < mask.size(); ++k) {
            const float v = from[k];
            mask[k] = std::isinf(v) && v < 0;
            any |= mask[k] != 0;
        }
        if (!any) continue;
        if (h < set.learner.size()) {
            // The learner's cell is masked where it is -inf itself, or where the
            // reference is masked and it holds the same value (0 after softmax):
            // values a learner left unmasked are drawn, not greyed out.
            HeadMatrix& mine = set.learner[h];
            std::vector<uint8_t> own(mask.size(), 0);
            for (size_t k = 0; k < own.size(); ++k) {
                const float a = mine.values[k];
                own[k] = (std::isinf(a) && a < 0) || (mask[k] && a == set.reference[h].values[k]);
            }
            mine.mask = std::move(own);
        }
        set.reference[h].mask = std::move(mask);
    }

}

// A buffer of n floats for a whole set (12 heads × 512² = 12 MB): in 2 MB
// pages where the kernel gives them (madvise), so filling it takes a few page
// faults instead of three thousand; the first frame after new data waits on it.
std::shared_ptr<float> large_float_buffer(size_t n) {
    constexpr size_t kHugePage = size_t{2} << 20;
    const size_t bytes = std::max<size_t>(n * sizeof(float), 1);
    if (bytes < kHugePage) return std::shared_ptr<float>(new float[n ? n : 1], std::default_delete<float[]>());
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    ::madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return std::shared_ptr<float>(static_cast<float*>(p), [](float* q) { std::free(q); });
}

// Yours − reference, per head; cells where only one side is -inf or NaN are
// counted (and drawn apart), not given a finite error.
void add_differences(HeatmapSet& set) {
    // Every head's differences in one buffer (one allocation, not one per head).
    const size_t cells = static_cast<size_t>(set.rows) * static_cast<size_t>(set.cols);
    const std::shared_ptr<float> all = large_float_buffer(cells * set.learner.size());
    for (size_t h = 0; h < set.learner.size(); ++h) {
        HeadMatrix d;
        d.rows = set.rows;
        d.cols = set.cols;
        // Masked only where both are masked: a learner's unmasked value at a
        // masked position is a difference to see, not to grey out.
        if (!set.reference[h].mask.empty()) {
            d.mask.resize(set.reference[h].mask.size());
            for (size_t k = 0; k < d.mask.size(); ++k) d.mask[k] = set.reference[h].mask[k] && set.learner[h].mask[k];
        }
        float* out = all.get() + h * cells;
        const float* mine = set.learner[h].values.data();
        const float* ref = set.reference[h].values.data();
        float worst = 0;
        for (size_t k = 0; k < cells; ++k) {
            const float a = mine[k], r = ref[k];
            if (std::isinf(r) && a == r) out[k] = r;  // both masked: stays masked
            else if (!std::isfinite(a) || !std::isfinite(r)) {
                out[k] = std::numeric_limits<float>::quiet_NaN();
                ++set.non_finite_differences;
            }
            else {
                out[k] = a - r;
                worst = std::max(worst, std::fabs(a - r));
            }
        }
        set.max_abs_difference = std::max(set.max_abs_difference, static_cast<double>(worst));
        d.values = FloatSpan(out, cells, all);
        set.difference.push_back(std::move(d));
    }
}

}  // namespace

std::optional<HeatmapSet> build_heatmaps(const CaseOutcome& c, const std::string& stage) {
    const TensorData* ref = nullptr;
    const TensorData* mine = nullptr;
    if (stage == "output") {
        if (c.expected.kind != ValueKind::Tensor) return std::nullopt;
        ref = &c.expected.tensor;
    } else {
        ref = find_stage(c.stages, stage);
    }
    bool mine_from_output = false;
    int mine_line = 0;
    for (const LearnerStage& l : learner_stages(c))
        if (l.name == stage) mine = l.tensor, mine_from_output = l.from_output, mine_line = l.from_record ? l.line : 0;
    if (!ref || !square_tail(ref->shape)) return std::nullopt;

    HeatmapSet set;
    set.stage = stage;
    set.tokens = c.tokens;
    set.reference = split_heads_of(*ref);
    set.heads = static_cast<int>(set.reference.size());
    set.rows = set.cols = static_cast<int>(ref->shape.back());
    if (mine) {
        // Compare only what the reference shows: batch 0 of a batched tensor.
        const bool same = mine->shape == ref->shape;
        set.learner_from_output = mine_from_output;
        set.learner_line = mine_line;
        if (same) set.learner = split_heads_of(*mine);
        else set.learner_problem = "shape " + shape_to_string(mine->shape) + " where " + shape_to_string(ref->shape) + " was expected";
    }

    mark_masked_cells(c, stage, *ref, set);
    const bool probabilities = stage == "weights" || looks_like_probabilities(set.reference);
    if (probabilities) {
        set.value_scale = ColorScale{ColorMap::Viridis, 0.0, 1.0, false};
    } else {
        const double m = std::max({max_abs_finite(set.reference), max_abs_finite(set.learner), 1e-12});
        set.value_scale = ColorScale{ColorMap::PuOr, -m, m, true};
    }

    add_differences(set);
    const double dm = std::max(set.max_abs_difference, 1e-12);
    set.difference_scale = ColorScale{ColorMap::PuOr, -dm, dm, true};
    add_cuda_column(c, stage, *ref, set);
    return set;
}

void rasterize(const HeadMatrix& m, const ColorScale& scale, std::vector<uint8_t>& out) {
    out.resize(static_cast<size_t>(m.rows) * static_cast<size_t>(m.cols) * 4);
    // ColorScale::color's table lookup, inlined: this loop runs for every cell.
    const std::array<Rgba, kColorSteps>& table = color_table(scale.map);
    const double span = scale.hi - scale.lo;
    const float scale_k = span > 0 ? static_cast<float>((kColorSteps - 1) / span) : 0.0f;
    const float lo = static_cast<float>(scale.lo);
    const float centre = span > 0 ? 0.0f : (kColorSteps - 1) * 0.5f;
    auto color_of = [&](float v) -> Rgba {
        if (std::isnan(v)) return kMissingColor;
        if (v == -std::numeric_limits<float>::infinity()) return kMaskedColor;
        const float t = span > 0 ? (v - lo) * scale_k : centre;
        const int i = t <= 0.0f ? 0 : t >= kColorSteps - 1 ? kColorSteps - 1 : static_cast<int>(t + 0.5f);
        return table[static_cast<size_t>(i)];
    };
    uint8_t* p = out.data();
    for (size_t k = 0; k < m.values.size(); ++k) {
        const Rgba c = !m.mask.empty() && m.mask[k] ? kMaskedColor : color_of(m.values[k]);
        p[0] = c[0];
        p[1] = c[1];
        p[2] = c[2];
        p[3] = c[3];
        p += 4;
    }
}

namespace {

Shape row_major_strides(const Shape& shape) {
    Shape s(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) s[i - 1] = s[i] * shape[i];
    return s;
}

}  // namespace

std::vector<LayoutStage> split_heads_pipeline(int64_t batch, int64_t tokens, int64_t d_model, int64_t heads) {
    std::vector<LayoutStage> out;
    if (heads <= 0 || d_model % heads != 0) return out;
    const int64_t hd = d_model / heads;
    if (batch <= 0) {
        out.push_back({"x", {tokens, d_model}, {d_model, 1}, true, false});
        out.push_back({"reshape(T, H, hd)", {tokens, heads, hd}, {d_model, hd, 1}, true, false});
        out.push_back({"transpose(1, 0, 2)", {heads, tokens, hd}, {hd, d_model, 1}, false, false});
        out.push_back({"contiguous()", {heads, tokens, hd}, row_major_strides({heads, tokens, hd}), true, true});
    } else {
        out.push_back({"x", {batch, tokens, d_model}, {tokens * d_model, d_model, 1}, true, false});
        out.push_back({"reshape(B, T, H, hd)", {batch, tokens, heads, hd}, {tokens * d_model, d_model, hd, 1}, true, false});
        out.push_back({"transpose(0, 2, 1, 3)", {batch, heads, tokens, hd}, {tokens * d_model, hd, d_model, 1}, false, false});
        out.push_back({"contiguous()", {batch, heads, tokens, hd}, row_major_strides({batch, heads, tokens, hd}), true, true});
    }
    return out;
}

namespace {

// Row-major order over (B, T, H, hd) — token-major, as (T, D) — or over
// (B, H, T, hd) — head-major, after the transpose and contiguous().
std::vector<MemoryCell> memory_cells(int64_t batch, int64_t tokens, int64_t d_model, int64_t heads, bool head_major) {
    std::vector<MemoryCell> cells;
    if (heads <= 0 || d_model % heads != 0) return cells;
    const int64_t hd = d_model / heads, nb = std::max<int64_t>(batch, 1);
    const int64_t outer = head_major ? heads : tokens, inner = head_major ? tokens : heads;
    for (int64_t b = 0; b < nb; ++b)
        for (int64_t o = 0; o < outer; ++o)
            for (int64_t i = 0; i < inner; ++i)
                for (int64_t j = 0; j < hd; ++j) {
                    const int64_t t = head_major ? i : o, h = head_major ? o : i;
                    cells.push_back({static_cast<int64_t>(cells.size()), b, t, h, j});
                }
    return cells;
}

}  // namespace

std::vector<MemoryCell> memory_before(int64_t batch, int64_t tokens, int64_t d_model, int64_t heads) {
    return memory_cells(batch, tokens, d_model, heads, false);
}

std::vector<MemoryCell> memory_after(int64_t batch, int64_t tokens, int64_t d_model, int64_t heads) {
    return memory_cells(batch, tokens, d_model, heads, true);
}

std::vector<ModelConfig> preset_configs() {
    return {
        {"ANDREA-120M", 768, 12, 12, false, ""},
        {"ANDREA-12M", 256, 8, 6, true, "only head_dim = 32 is given; d_model 256, 8 heads and 6 layers are assumptions"},
    };
}

ModelFigures model_figures(const ModelConfig& c) {
    ModelFigures f;
    f.divides = c.heads > 0 && c.d_model % c.heads == 0;
    f.head_dim = c.heads > 0 ? c.d_model / c.heads : 0;
    f.fills_tensor_core_tiles = f.divides && f.head_dim > 0 && f.head_dim % 16 == 0;
    f.tiles_per_head = f.head_dim / 16;
    f.attention_params_per_layer = 4 * c.d_model * c.d_model;
    f.attention_params_total = f.attention_params_per_layer * c.layers;
    f.matmuls_per_head_projection = 3 * c.heads;
    f.matmuls_fused_projection = 3;
    f.matmuls_fused_qkv = 1;
    return f;
}

}  // namespace attnlab
