// The data behind the GUI's views, asserted without any GUI: heatmap sets
// (colour maps, ranges, masked cells, differences), colour maps, stage
// comparison, the split-heads memory layout and the model-size arithmetic.
// Cases are built by hand: a tiny causal attention computed in this file.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "attnlab/core/views/contrast.hpp"
#include "attnlab/core/views/visuals.hpp"

using namespace attnlab;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// The tiny case: T = 3 tokens, D = 4, H = 2 heads of hd = 2.
constexpr int T = 3, D = 4, H = 2, HD = D / H;

TensorData matrix(int rows, int cols, float (*f)(int, int)) {
    TensorData t;
    t.shape = {rows, cols};
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) t.data.push_back(f(i, j));
    return t;
}

size_t at3(int h, int i, int j) { return (static_cast<size_t>(h) * T + static_cast<size_t>(i)) * T + static_cast<size_t>(j); }

struct Tiny {
    TensorData q, k, v, scores, masked, weights;
};

// Q, K, V of (T, D); scores = Q_h K_hᵀ / √hd, masked (-inf for j > i) and
// the row softmax of that, each (H, T, T).
Tiny tiny() {
    Tiny t;
    t.q = matrix(T, D, [](int i, int j) { return 0.5f * static_cast<float>(i + 1) - 0.25f * static_cast<float>(j); });
    t.k = matrix(T, D, [](int i, int j) { return 0.3f * static_cast<float>(j - i) + 0.1f; });
    t.v = matrix(T, D, [](int i, int j) { return static_cast<float>(i * D + j) / 10.0f; });
    for (TensorData* s : {&t.scores, &t.masked, &t.weights}) {
        s->shape = {H, T, T};
        s->data.assign(static_cast<size_t>(H * T * T), 0.0f);
    }
    const float scale = 1.0f / std::sqrt(static_cast<float>(HD));
    for (int h = 0; h < H; ++h)
        for (int i = 0; i < T; ++i) {
            float m = -kInf;
            for (int j = 0; j < T; ++j) {
                float dot = 0;
                for (int c = 0; c < HD; ++c)
                    dot += t.q.data[static_cast<size_t>(i * D + h * HD + c)] * t.k.data[static_cast<size_t>(j * D + h * HD + c)];
                t.scores.data[at3(h, i, j)] = dot * scale;
                t.masked.data[at3(h, i, j)] = j > i ? -kInf : dot * scale;
                if (j <= i) m = std::max(m, dot * scale);
            }
            float sum = 0;
            for (int j = 0; j <= i; ++j) sum += std::exp(t.masked.data[at3(h, i, j)] - m);
            for (int j = 0; j < T; ++j) t.weights.data[at3(h, i, j)] = j > i ? 0.0f : std::exp(t.masked.data[at3(h, i, j)] - m) / sum;
        }
    return t;
}

// A case with the reference stages Q, K, V, scores, masked, weights and,
// when `probes`, the same tensors as the learner's probes.
CaseOutcome tiny_case(bool probes = true) {
    const Tiny t = tiny();
    CaseOutcome c;
    c.verdict = Verdict::Pass;
    c.stages = {{"Q", t.q}, {"K", t.k}, {"V", t.v}, {"scores", t.scores}, {"masked", t.masked}, {"weights", t.weights}};
    c.expected = Value::of_tensor(TensorData(Shape{T, D}, std::vector<float>(static_cast<size_t>(T * D), 0.5f)));
    c.actual = c.expected;
    c.tokens = {"a", "b", "c"};
    if (probes) c.probes = c.stages;
    return c;
}

TensorData& probe(CaseOutcome& c, const std::string& name) {
    for (auto& p : c.probes)
        if (p.name == name) return p.tensor;
    FAIL("no probe " << name);
    return c.probes.front().tensor;
}

Rgba pixel(const std::vector<uint8_t>& px, int cols, int i, int j) {
    const size_t o = (static_cast<size_t>(i) * static_cast<size_t>(cols) + static_cast<size_t>(j)) * 4;
    return {px[o], px[o + 1], px[o + 2], px[o + 3]};
}

double max_abs(const std::vector<float>& v) {
    double m = 0;
    for (float x : v)
        if (std::isfinite(x)) m = std::max(m, static_cast<double>(std::fabs(x)));
    return m;
}

int index_of(const std::vector<StageComparison>& s, const std::string& name) {
    for (size_t i = 0; i < s.size(); ++i)
        if (s[i].name == name) return static_cast<int>(i);
    return -1;
}

}  // namespace

// ---- colour maps ----------------------------------------------------------------

TEST_CASE("visuals: colour map endpoints, clamping, and viridis rising green") {
    CHECK(map_color(ColorMap::Viridis, 0.0) == Rgba{68, 1, 84, 255});
    CHECK(map_color(ColorMap::Viridis, 1.0) == Rgba{253, 231, 37, 255});
    CHECK(map_color(ColorMap::PuOr, 0.5) == Rgba{247, 247, 247, 255});
    CHECK(map_color(ColorMap::PuOr, 0.0) == Rgba{45, 0, 75, 255});
    CHECK(map_color(ColorMap::PuOr, 1.0) == Rgba{127, 59, 8, 255});

    // Outside [0, 1] clamps to the ends.
    for (ColorMap m : {ColorMap::Viridis, ColorMap::PuOr}) {
        CHECK(map_color(m, -0.5) == map_color(m, 0.0));
        CHECK(map_color(m, -1e9) == map_color(m, 0.0));
        CHECK(map_color(m, 1.7) == map_color(m, 1.0));
        CHECK(map_color(m, 1e9) == map_color(m, 1.0));
    }

    // Viridis brightens: green never falls and rises overall; every colour is opaque.
    int last_green = -1;
    for (int s = 0; s <= 100; ++s) {
        const Rgba c = map_color(ColorMap::Viridis, s / 100.0);
        CHECK(c[3] == 255);
        CHECK(static_cast<int>(c[1]) >= last_green);
        last_green = c[1];
    }
    CHECK(map_color(ColorMap::Viridis, 0.25)[1] < map_color(ColorMap::Viridis, 0.5)[1]);
    CHECK(map_color(ColorMap::Viridis, 0.5)[1] < map_color(ColorMap::Viridis, 0.75)[1]);

    // The masked and missing colours are in neither map.
    for (int s = 0; s <= 512; ++s)
        for (ColorMap m : {ColorMap::Viridis, ColorMap::PuOr}) {
            CHECK(map_color(m, s / 512.0) != kMaskedColor);
            CHECK(map_color(m, s / 512.0) != kMissingColor);
        }

    const ColorScale diverging{ColorMap::PuOr, -2.0, 2.0, true};
    CHECK(diverging.position(0.0f) == doctest::Approx(0.5));
    CHECK(diverging.position(2.0f) == doctest::Approx(1.0));
    CHECK(diverging.position(-1.0f) == doctest::Approx(0.25));
    CHECK(diverging.color(0.0f) == Rgba{247, 247, 247, 255});
    CHECK(diverging.color(5.0f) == map_color(ColorMap::PuOr, 1.0));  // clamped
    CHECK(diverging.color(-kInf) == kMaskedColor);
    CHECK(diverging.color(kNaN) == kMissingColor);
}

// ---- heatmaps ---------------------------------------------------------------------

TEST_CASE("visuals: heatmap stages are scores, masked, weights in pipeline order") {
    CaseOutcome c = tiny_case();
    c.stages.push_back({"heads", TensorData(Shape{H, T, HD}, std::vector<float>(static_cast<size_t>(H * T * HD), 0.0f))});
    c.stages.push_back({"concat", TensorData(Shape{T, D}, std::vector<float>(static_cast<size_t>(T * D), 0.0f))});
    CHECK(heatmap_stages(c) == std::vector<std::string>{"scores", "masked", "weights"});

    // Only those names, and only square (H, T, T) or (B, H, T, T).
    CaseOutcome odd;
    odd.stages = {
        {"weights", TensorData(Shape{2, 2, 3, 3}, std::vector<float>(36, 0.0f))},  // batched: kept
        {"scores", TensorData(Shape{2, 3, 4}, std::vector<float>(24, 0.0f))},      // not square
        {"masked", TensorData(Shape{3, 3}, std::vector<float>(9, 0.0f))},          // rank 2
        {"attn", TensorData(Shape{2, 3, 3}, std::vector<float>(18, 0.0f))},        // not a heatmap stage name
    };
    // A square output no stage equals is offered after the stages as "output"
    // (when a stage equals the output, that stage stands for it; test_gui_learner.cpp).
    odd.expected = Value::of_tensor(TensorData(Shape{2, 3, 3}, std::vector<float>(18, 1.0f)));
    CHECK(heatmap_stages(odd) == std::vector<std::string>{"weights", "output"});

    // No stages: the output itself, when it is (H, T, T).
    CaseOutcome out_only;
    out_only.expected = Value::of_tensor(TensorData(Shape{2, 3, 3}, std::vector<float>(18, 0.0f)));
    CHECK(heatmap_stages(out_only) == std::vector<std::string>{"output"});
    out_only.expected = Value::of_tensor(TensorData(Shape{3, 3}, std::vector<float>(9, 0.0f)));
    CHECK(heatmap_stages(out_only).empty());
    out_only.expected = Value::of_tensor(TensorData(Shape{2, 3, 4}, std::vector<float>(24, 0.0f)));
    CHECK(heatmap_stages(out_only).empty());
    out_only.expected = Value::of_int(3);
    CHECK(heatmap_stages(out_only).empty());

    // Stages that cannot be drawn give no set.
    CHECK_FALSE(build_heatmaps(c, "Q").has_value());
    CHECK_FALSE(build_heatmaps(c, "heads").has_value());
    CHECK_FALSE(build_heatmaps(c, "nonexistent").has_value());
}

TEST_CASE("visuals: weights are Viridis on [0, 1]; future keys are masked because of the masked stage") {
    const CaseOutcome c = tiny_case();
    const auto set = build_heatmaps(c, "weights");
    REQUIRE(set.has_value());
    CHECK(set->stage == "weights");
    CHECK(set->heads == H);
    CHECK(set->rows == T);
    CHECK(set->cols == T);
    CHECK(set->tokens == c.tokens);
    CHECK(set->value_scale.map == ColorMap::Viridis);
    CHECK(set->value_scale.lo == 0.0);
    CHECK(set->value_scale.hi == 1.0);
    CHECK_FALSE(set->value_scale.symmetric);
    REQUIRE(set->reference.size() == static_cast<size_t>(H));
    REQUIRE(set->learner.size() == static_cast<size_t>(H));
    REQUIRE(set->difference.size() == static_cast<size_t>(H));
    CHECK(set->learner_problem.empty());
    CHECK(set->max_abs_difference == 0.0);
    CHECK(set->difference_scale.map == ColorMap::PuOr);
    CHECK(set->difference_scale.lo == -set->difference_scale.hi);

    const Rgba zero = map_color(ColorMap::Viridis, 0.0);
    std::vector<uint8_t> px;
    for (int h = 0; h < H; ++h) {
        const HeadMatrix& ref = set->reference[static_cast<size_t>(h)];
        for (int i = 0; i < T; ++i)
            for (int j = 0; j < T; ++j) {
                CAPTURE(h);
                CAPTURE(i);
                CAPTURE(j);
                CHECK(ref.at(i, j) == c.stages[5].tensor.data[at3(h, i, j)]);
                if (j > i) CHECK(ref.at(i, j) == 0.0f);  // a plain 0, yet masked
                CHECK(ref.masked(i, j) == (j > i));
                CHECK(set->learner[static_cast<size_t>(h)].masked(i, j) == (j > i));
                CHECK(set->difference[static_cast<size_t>(h)].masked(i, j) == (j > i));
            }
        rasterize(ref, set->value_scale, px);
        REQUIRE(px.size() == static_cast<size_t>(T * T * 4));
        for (int i = 0; i < T; ++i)
            for (int j = 0; j < T; ++j) {
                const Rgba p = pixel(px, T, i, j);
                if (j > i) {
                    CHECK(p == kMaskedColor);
                    CHECK(p != zero);
                } else {
                    CHECK(p == set->value_scale.color(ref.at(i, j)));
                }
            }
        CHECK(pixel(px, T, 0, 0) == map_color(ColorMap::Viridis, 1.0));  // the first token attends only to itself
        rasterize(set->difference[static_cast<size_t>(h)], set->difference_scale, px);
        CHECK(pixel(px, T, 0, 2) == kMaskedColor);
        CHECK(pixel(px, T, 1, 0) == Rgba{247, 247, 247, 255});  // no difference: the diverging map's centre
    }

    // Without the masked stage the same zeros are just zeros.
    CaseOutcome bare = tiny_case();
    bare.stages.erase(bare.stages.begin() + 4);
    bare.probes.clear();
    const auto plain = build_heatmaps(bare, "weights");
    REQUIRE(plain.has_value());
    CHECK_FALSE(plain->reference[0].masked(0, 1));
    rasterize(plain->reference[0], plain->value_scale, px);
    CHECK(pixel(px, T, 0, 1) == zero);
}

TEST_CASE("visuals: scores and masked get a symmetric PuOr range over both sources") {
    CaseOutcome c = tiny_case();
    const Tiny t = tiny();
    const double ref_max = max_abs(t.scores.data);
    REQUIRE(ref_max > 0);

    auto scores = build_heatmaps(c, "scores");
    REQUIRE(scores.has_value());
    CHECK(scores->value_scale.map == ColorMap::PuOr);
    CHECK(scores->value_scale.symmetric);
    CHECK(scores->value_scale.hi == doctest::Approx(ref_max));
    CHECK(scores->value_scale.lo == -scores->value_scale.hi);
    // Scores come before the mask: every value is shown, none greyed out.
    std::vector<uint8_t> px;
    rasterize(scores->reference[1], scores->value_scale, px);
    for (int i = 0; i < T; ++i)
        for (int j = 0; j < T; ++j) {
            CHECK_FALSE(scores->reference[1].masked(i, j));
            CHECK(pixel(px, T, i, j) == scores->value_scale.color(scores->reference[1].at(i, j)));
            CHECK(pixel(px, T, i, j) != kMaskedColor);
        }

    // A learner value larger than any reference value widens the range.
    const float big = static_cast<float>(ref_max) * 3.0f + 1.0f;
    probe(c, "scores").data[at3(1, 2, 0)] = -big;
    scores = build_heatmaps(c, "scores");
    REQUIRE(scores.has_value());
    CHECK(scores->value_scale.hi == doctest::Approx(big));
    CHECK(scores->value_scale.lo == doctest::Approx(-big));
    CHECK(scores->max_abs_difference == doctest::Approx(std::fabs(-big - t.scores.data[at3(1, 2, 0)])));
    CHECK(scores->difference_scale.hi == doctest::Approx(scores->max_abs_difference));
    CHECK(scores->difference_scale.lo == -scores->difference_scale.hi);

    // "masked": the range ignores -inf; the -inf cells are masked in all three.
    const auto masked = build_heatmaps(c, "masked");
    REQUIRE(masked.has_value());
    CHECK(masked->value_scale.map == ColorMap::PuOr);
    CHECK(masked->value_scale.hi == doctest::Approx(max_abs(t.masked.data)));
    CHECK(masked->value_scale.lo == -masked->value_scale.hi);
    for (int h = 0; h < H; ++h) {
        for (const auto* list : {&masked->reference, &masked->learner, &masked->difference}) {
            const HeadMatrix& m = (*list)[static_cast<size_t>(h)];
            for (int i = 0; i < T; ++i)
                for (int j = 0; j < T; ++j) CHECK(m.masked(i, j) == (j > i));
            rasterize(m, list == &masked->difference ? masked->difference_scale : masked->value_scale, px);
            for (int i = 0; i < T; ++i)
                for (int j = i + 1; j < T; ++j) CHECK(pixel(px, T, i, j) == kMaskedColor);
        }
        CHECK(std::isinf(masked->difference[static_cast<size_t>(h)].at(0, 1)));  // both -inf: stays -inf
        CHECK(masked->difference[static_cast<size_t>(h)].at(1, 0) == 0.0f);
    }
}

TEST_CASE("visuals: differences where learner and reference disagree about the mask") {
    std::vector<uint8_t> px;
    SUBCASE("a learner -inf where the reference is finite is NaN, drawn as missing") {
        CaseOutcome c = tiny_case();
        probe(c, "masked").data[at3(0, 1, 0)] = -kInf;
        const auto set = build_heatmaps(c, "masked");
        REQUIRE(set.has_value());
        const HeadMatrix& d = set->difference[0];
        CHECK(std::isnan(d.at(1, 0)));
        CHECK(set->non_finite_differences == 1);  // counted, since max_abs_difference ignores it
        CHECK_FALSE(d.masked(1, 0));
        CHECK(set->learner[0].masked(1, 0));  // the learner did mask it
        CHECK_FALSE(set->reference[0].masked(1, 0));
        rasterize(d, set->difference_scale, px);
        CHECK(pixel(px, T, 1, 0) == kMissingColor);
        CHECK(pixel(px, T, 0, 1) == kMaskedColor);  // both masked
        rasterize(set->learner[0], set->value_scale, px);
        CHECK(pixel(px, T, 1, 0) == kMaskedColor);
    }
    SUBCASE("a learner who forgot the mask: the masked stage differs visibly") {
        CaseOutcome c = tiny_case();
        probe(c, "masked") = probe(c, "scores");
        const auto set = build_heatmaps(c, "masked");
        REQUIRE(set.has_value());
        for (int i = 0; i < T; ++i)
            for (int j = i + 1; j < T; ++j) {
                CHECK(set->reference[0].masked(i, j));
                CHECK_FALSE(set->learner[0].masked(i, j));
                CHECK_FALSE(set->difference[0].masked(i, j));
                CHECK(std::isnan(set->difference[0].at(i, j)));
            }
        rasterize(set->difference[0], set->difference_scale, px);
        CHECK(pixel(px, T, 0, 1) == kMissingColor);
        rasterize(set->learner[0], set->value_scale, px);
        CHECK(pixel(px, T, 0, 1) == set->value_scale.color(set->learner[0].at(0, 1)));
    }
    SUBCASE("weights of a learner who forgot the mask are drawn, not greyed out") {
        CaseOutcome c = tiny_case();
        TensorData& w = probe(c, "weights");
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < T; ++i)
                for (int j = 0; j < T; ++j) w.data[at3(h, i, j)] = 1.0f / T;  // uniform over all keys
        const auto set = build_heatmaps(c, "weights");
        REQUIRE(set.has_value());
        CHECK(set->value_scale.map == ColorMap::Viridis);
        CHECK(set->reference[0].masked(0, 1));
        CHECK_FALSE(set->learner[0].masked(0, 1));
        CHECK_FALSE(set->difference[0].masked(0, 1));
        CHECK(set->difference[0].at(0, 1) == doctest::Approx(1.0f / T));
        CHECK(set->max_abs_difference == doctest::Approx(1.0 - 1.0 / T));  // row 0: 1/T against 1
        rasterize(set->learner[0], set->value_scale, px);
        CHECK(pixel(px, T, 0, 1) == set->value_scale.color(1.0f / T));
        rasterize(set->difference[0], set->difference_scale, px);
        CHECK(pixel(px, T, 0, 1) != kMaskedColor);
        CHECK(pixel(px, T, 0, 1) == set->difference_scale.color(set->difference[0].at(0, 1)));
    }
}

TEST_CASE("visuals: learner tensors of the wrong shape or missing") {
    CaseOutcome c = tiny_case();
    probe(c, "weights") = TensorData(Shape{H, T, T + 1}, std::vector<float>(static_cast<size_t>(H * T * (T + 1)), 0.25f));
    auto set = build_heatmaps(c, "weights");
    REQUIRE(set.has_value());
    CHECK(set->learner.empty());
    CHECK(set->difference.empty());
    CHECK(set->learner_problem.find("(2, 3, 4)") != std::string::npos);
    CHECK(set->learner_problem.find("(2, 3, 3)") != std::string::npos);
    CHECK(set->reference.size() == static_cast<size_t>(H));

    c.probes.clear();
    set = build_heatmaps(c, "weights");
    REQUIRE(set.has_value());
    CHECK(set->learner.empty());
    CHECK(set->difference.empty());
    CHECK(set->learner_problem.empty());
    CHECK(set->max_abs_difference == 0.0);
}

TEST_CASE("visuals: batched stages show batch 0; the output stage uses the result") {
    // (B = 2, H, T, T): batch 1 differs, only batch 0 is drawn.
    const Tiny t = tiny();
    CaseOutcome c;
    c.verdict = Verdict::Pass;
    TensorData batched;
    batched.shape = {2, H, T, T};
    batched.data = t.weights.data;
    for (float v : t.weights.data) batched.data.push_back(v * 0.5f);
    TensorData masked4 = batched;
    masked4.data = t.masked.data;
    masked4.data.insert(masked4.data.end(), t.masked.data.begin(), t.masked.data.end());
    c.stages = {{"masked", masked4}, {"weights", batched}};
    c.probes = c.stages;
    const auto set = build_heatmaps(c, "weights");
    REQUIRE(set.has_value());
    CHECK(set->heads == H);
    CHECK(set->reference[1].values == std::vector<float>(t.weights.data.begin() + T * T, t.weights.data.begin() + 2 * T * T));
    CHECK(set->reference[1].masked(0, 2));
    CHECK_FALSE(set->reference[1].masked(2, 0));

    // The output stage: -inf entries of the result are masked; no result (NotRun) → no learner.
    CaseOutcome out;
    out.expected = Value::of_tensor(t.masked);
    out.actual = Value::of_tensor(t.masked);
    out.verdict = Verdict::Pass;
    REQUIRE(heatmap_stages(out) == std::vector<std::string>{"output"});
    auto o = build_heatmaps(out, "output");
    REQUIRE(o.has_value());
    CHECK(o->value_scale.map == ColorMap::PuOr);
    REQUIRE(o->learner.size() == static_cast<size_t>(H));
    CHECK(o->reference[0].masked(0, 1));
    CHECK(o->learner[0].masked(0, 1));
    CHECK(o->difference[0].masked(0, 1));
    CHECK_FALSE(o->difference[0].masked(1, 0));
    out.verdict = Verdict::NotRun;
    o = build_heatmaps(out, "output");
    REQUIRE(o.has_value());
    CHECK(o->learner.empty());
    CHECK(o->learner_problem.empty());

    // A softmax result as the output: probabilities → Viridis on [0, 1].
    out.expected = Value::of_tensor(t.weights);
    out.verdict = Verdict::Pass;
    o = build_heatmaps(out, "output");
    REQUIRE(o.has_value());
    CHECK(o->value_scale.map == ColorMap::Viridis);
    CHECK(o->value_scale.lo == 0.0);
    CHECK(o->value_scale.hi == 1.0);
}

// ---- stage comparison -------------------------------------------------------------

TEST_CASE("visuals: compare_stages finds the first divergence") {
    const Tolerance tol{1e-5, 1e-4};
    SUBCASE("all match") {
        const CaseOutcome c = tiny_case();
        const auto s = compare_stages(c, tol);
        REQUIRE(s.size() == 7);  // the six stages, then the return value, which no stage equals
        CHECK(s.back().name == "output");
        CHECK(s.back().from_output);
        for (const auto& x : s) {
            CHECK(x.status == StageStatus::Match);
            REQUIRE(x.learner_shape.has_value());
            CHECK(*x.learner_shape == x.reference_shape);
        }
        CHECK(first_divergence(s) == -1);
    }
    SUBCASE("matching up to scores, then differing at masked") {
        CaseOutcome c = tiny_case();
        probe(c, "masked").data[at3(1, 2, 1)] += 0.5f;
        probe(c, "weights").data[at3(1, 2, 1)] += 0.25f;
        c.probes.push_back({"my_debug", TensorData(Shape{7}, std::vector<float>(7, 1.0f))});
        const auto s = compare_stages(c, tol);
        REQUIRE(s.size() == 8);
        const std::vector<std::string> names = {"Q", "K", "V", "scores", "masked", "weights", "my_debug", "output"};
        for (size_t i = 0; i < names.size(); ++i) CHECK(s[i].name == names[i]);
        for (int i = 0; i < 4; ++i) CHECK(s[static_cast<size_t>(i)].status == StageStatus::Match);
        CHECK(s[4].status == StageStatus::Mismatch);
        CHECK(s[4].max_abs_error == doctest::Approx(0.5));
        CHECK(s[4].first_bad_index == std::vector<int64_t>{1, 2, 1});
        CHECK(s[5].status == StageStatus::Mismatch);
        CHECK(first_divergence(s) == index_of(s, "masked"));
        CHECK(first_divergence(s) == 4);
        // A probe the reference lacks: shown with its shape, not judged.
        CHECK(s[6].status == StageStatus::NotProbed);
        REQUIRE(s[6].learner_shape.has_value());
        CHECK(*s[6].learner_shape == Shape{7});
        CHECK(s[6].reference_shape.empty());
    }
    SUBCASE("a shape mismatch, and stages the learner did not probe") {
        CaseOutcome c = tiny_case();
        probe(c, "K") = TensorData(Shape{D, T}, std::vector<float>(static_cast<size_t>(D * T), 0.0f));
        c.probes.erase(c.probes.begin() + 5);  // no "weights" probe
        const auto s = compare_stages(c, tol);
        REQUIRE(s.size() == 7);  // and the return value
        CHECK(s[1].status == StageStatus::ShapeMismatch);
        REQUIRE(s[1].learner_shape.has_value());
        CHECK(*s[1].learner_shape == Shape{D, T});
        CHECK(s[1].reference_shape == Shape{T, D});
        CHECK(s[5].status == StageStatus::NotProbed);
        CHECK_FALSE(s[5].learner_shape.has_value());
        CHECK(first_divergence(s) == 1);
    }
    SUBCASE("a learner -inf where the reference is finite is a mismatch") {
        CaseOutcome c = tiny_case();
        probe(c, "scores").data[at3(0, 0, 2)] = -kInf;
        const auto s = compare_stages(c, tol);
        CHECK(s[3].status == StageStatus::Mismatch);
        CHECK(first_divergence(s) == 3);
    }
}

// ---- memory layout ------------------------------------------------------------------

TEST_CASE("visuals: split-heads pipeline shapes and strides") {
    auto s = split_heads_pipeline(0, 4, 8, 2);
    REQUIRE(s.size() == 4);
    CHECK(s[0].shape == Shape{4, 8});
    CHECK(s[0].strides == Shape{8, 1});
    CHECK(s[1].shape == Shape{4, 2, 4});
    CHECK(s[1].strides == Shape{8, 4, 1});
    CHECK(s[1].contiguous);
    CHECK_FALSE(s[1].copies);
    CHECK(s[2].label == "transpose(1, 0, 2)");
    CHECK(s[2].shape == Shape{2, 4, 4});
    CHECK(s[2].strides == Shape{4, 8, 1});
    CHECK_FALSE(s[2].contiguous);
    CHECK_FALSE(s[2].copies);
    CHECK(s[3].label == "contiguous()");
    CHECK(s[3].shape == Shape{2, 4, 4});
    CHECK(s[3].strides == Shape{16, 4, 1});
    CHECK(s[3].contiguous);
    CHECK(s[3].copies);

    s = split_heads_pipeline(2, 4, 8, 2);
    REQUIRE(s.size() == 4);
    CHECK(s[0].strides == Shape{32, 8, 1});
    CHECK(s[1].shape == Shape{2, 4, 2, 4});
    CHECK(s[1].strides == Shape{32, 8, 4, 1});
    CHECK(s[2].label == "transpose(0, 2, 1, 3)");
    CHECK(s[2].shape == Shape{2, 2, 4, 4});
    CHECK(s[2].strides == Shape{32, 4, 8, 1});
    CHECK_FALSE(s[2].contiguous);
    CHECK(s[3].strides == Shape{32, 16, 4, 1});
    CHECK(s[3].copies);

    CHECK(split_heads_pipeline(0, 4, 8, 3).empty());
    CHECK(split_heads_pipeline(2, 4, 10, 4).empty());
    CHECK(split_heads_pipeline(0, 4, 8, 0).empty());
    CHECK(memory_before(0, 4, 8, 3).empty());
    CHECK(memory_after(0, 4, 8, 3).empty());
}

TEST_CASE("visuals: memory cells before and after the contiguous transpose") {
    const int64_t B = 2, TT = 3, DD = 8, HH = 2, hd = DD / HH;
    const auto before = memory_before(B, TT, DD, HH);
    const auto after = memory_after(B, TT, DD, HH);
    REQUIRE(before.size() == static_cast<size_t>(B * TT * DD));
    REQUIRE(after.size() == before.size());
    for (size_t k = 0; k < before.size(); ++k) {
        const MemoryCell& c = before[k];
        CHECK(c.offset == static_cast<int64_t>(k));
        CHECK(((c.batch * TT + c.token) * DD + c.head * hd + c.j) == static_cast<int64_t>(k));
        const MemoryCell& a = after[k];
        CHECK(a.offset == static_cast<int64_t>(k));
        CHECK((((a.batch * HH + a.head) * TT + a.token) * hd + a.j) == static_cast<int64_t>(k));
    }
    // A few offsets by hand.
    auto same = [](const MemoryCell& c, int64_t b, int64_t t, int64_t h, int64_t j) {
        return c.batch == b && c.token == t && c.head == h && c.j == j;
    };
    CHECK(same(before[0], 0, 0, 0, 0));
    CHECK(same(before[5], 0, 0, 1, 1));   // token 0, second head
    CHECK(same(before[8], 0, 1, 0, 0));   // token 1 starts after D
    CHECK(same(before[29], 1, 0, 1, 1));  // batch 1 starts at T·D = 24
    CHECK(same(after[4], 0, 1, 0, 0));    // head 0, token 1 right after hd
    CHECK(same(after[12], 0, 0, 1, 0));   // head 1 starts at T·hd = 12
    CHECK(same(after[31], 1, 1, 0, 3));
    CHECK(same(after[47], 1, 2, 1, 3));

    // After: each (batch, head) is one contiguous run of T·hd cells; before it is not.
    auto runs = [](const std::vector<MemoryCell>& cells) {
        int n = 0;
        for (size_t k = 0; k < cells.size(); ++k)
            if (k == 0 || cells[k].head != cells[k - 1].head || cells[k].batch != cells[k - 1].batch) ++n;
        return n;
    };
    CHECK(runs(after) == B * HH);
    CHECK(runs(before) == B * TT * HH);

    // Without a batch axis: batch is 0 everywhere.
    const auto flat = memory_after(0, 4, 8, 2);
    REQUIRE(flat.size() == 32);
    for (const auto& c : flat) CHECK(c.batch == 0);
    CHECK(same(flat[16], 0, 0, 1, 0));
    CHECK(same(memory_before(0, 4, 8, 2)[12], 0, 1, 1, 0));
}

// ---- experiments ---------------------------------------------------------------------

TEST_CASE("visuals: model figures of the presets and a custom config") {
    const auto presets = preset_configs();
    REQUIRE(presets.size() >= 2);
    const ModelConfig& big = presets[0];
    CHECK(big.name == "ANDREA-120M");
    CHECK(big.d_model == 768);
    CHECK(big.heads == 12);
    CHECK(big.layers == 12);
    CHECK_FALSE(big.assumed);
    const ModelFigures f = model_figures(big);
    CHECK(f.head_dim == 64);
    CHECK(f.divides);
    CHECK(f.fills_tensor_core_tiles);
    CHECK(f.tiles_per_head == 4);
    CHECK(f.attention_params_per_layer == 2359296);
    CHECK(f.attention_params_total == 28311552);
    CHECK(f.matmuls_per_head_projection == 36);
    CHECK(f.matmuls_fused_qkv == 1);
    CHECK(f.matmuls_fused_projection == 3);

    const ModelConfig& small = presets[1];
    CHECK(small.name == "ANDREA-12M");
    CHECK(small.assumed);
    CHECK_FALSE(small.assumption.empty());
    CHECK(small.assumption.find("head_dim = 32") != std::string::npos);
    CHECK(model_figures(small).head_dim == 32);
    CHECK(model_figures(small).fills_tensor_core_tiles);

    ModelConfig odd{"odd", 864, 12, 12, false, ""};
    const ModelFigures g = model_figures(odd);
    CHECK(g.divides);
    CHECK(g.head_dim == 72);
    CHECK_FALSE(g.fills_tensor_core_tiles);
    CHECK(g.attention_params_per_layer == 4 * 864 * 864);

    ModelConfig bad{"bad", 100, 12, 2, false, ""};
    CHECK_FALSE(model_figures(bad).divides);
    CHECK_FALSE(model_figures(bad).fills_tensor_core_tiles);
}

// ---- contrast ---------------------------------------------------------------------------------

TEST_CASE("contrast_ratio is WCAG 2's; readable_ink gives a label at least 4.5:1 on any background") {
    struct Row {
        Rgb a, b;
        double ratio;
    };
    const Row rows[] = {
        {{0, 0, 0}, {255, 255, 255}, 21.0},
        {{255, 255, 255}, {255, 255, 255}, 1.0},
        {{118, 118, 118}, {255, 255, 255}, 4.54},  // the lightest grey that passes on white
        {{12, 12, 12}, {32, 110, 121}, 3.32},      // near-black on a dimmed teal: too little
        {{0, 0, 0}, {205, 55, 55}, 4.20},          // black on the faulted block's red: too little too
    };
    for (const Row& row : rows) {
        CAPTURE(row.ratio);
        CHECK(contrast_ratio(row.a, row.b) == doctest::Approx(row.ratio).epsilon(0.01));
        CHECK(contrast_ratio(row.b, row.a) == doctest::Approx(row.ratio).epsilon(0.01));
    }
    CHECK(readable_ink({255, 255, 255}) == Rgb{0, 0, 0});
    CHECK(readable_ink({0, 0, 0}) == Rgb{255, 255, 255});
    CHECK(readable_ink({205, 55, 55}) == Rgb{255, 255, 255});  // 5.0:1
    double worst = 21;
    for (int r = 0; r < 256; r += 15)
        for (int g = 0; g < 256; g += 15)
            for (int b = 0; b < 256; b += 15) {
                const Rgb bg = {static_cast<uint8_t>(r), static_cast<uint8_t>(g), static_cast<uint8_t>(b)};
                worst = std::min(worst, contrast_ratio(readable_ink(bg), bg));
            }
    CHECK(worst >= 4.5);
}
