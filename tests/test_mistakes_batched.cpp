// The mistake catalogue of the batched, counting, tile and head-comparison
// exercises (reference/src/registry_batched.cpp), checked against the course
// data: every mistake an exercise lists is a variant of its reference op, has
// words in both languages, and is told apart from the right answer by at
// least one of the exercise's cases, beyond the exercise's tolerance. Also the
// new ops themselves, and the variants' defining properties.
#include "attnlab/core/course/course.hpp"
#include "course_support.hpp"
#include "attnlab/reference/ops.hpp"
#include "attnlab/reference/registry.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

using namespace attnlab;
using namespace attnlab::reference;
using namespace attnlab::testing;
using nlohmann::json;

namespace {


const std::vector<std::string> kExercises = {"batched-layout", "batched-mhsa", "param-count", "head-dim-tiles",
                                             "why-many-heads"};





struct Tol {
    double atol, rtol;
};

// The tolerance exactly as exercise.json states it (the runner's defaults
// when it states none).
Tol tolerance_of(const std::string& id) {
    const json j = read_json(kCourse / id / "exercise.json");
    Tol t{1e-5, 1e-4};
    if (j.contains("tolerance")) {
        t.atol = j["tolerance"].value("atol", t.atol);
        t.rtol = j["tolerance"].value("rtol", t.rtol);
    }
    return t;
}

// True when a learner returning `variant` would fail against `right`: another
// kind or shape, a different integer, or one element outside the tolerance
// (an infinity matches only the same infinity).
bool separated(const Value& variant, const Value& right, Tol t) {
    if (variant.kind != right.kind) return true;
    if (variant.kind == ValueKind::Int) return variant.int_value != right.int_value;
    if (variant.kind == ValueKind::Float)
        return std::fabs(variant.float_value - right.float_value) > t.atol + t.rtol * std::fabs(right.float_value);
    if (variant.tensor.shape != right.tensor.shape) return true;
    for (size_t k = 0; k < right.tensor.data.size(); ++k) {
        const double a = variant.tensor.data[k], r = right.tensor.data[k];
        if (std::isinf(r) || std::isinf(a)) {
            if (a != r) return true;
        } else if (!(std::fabs(a - r) <= t.atol + t.rtol * std::fabs(r))) {
            return true;
        }
    }
    return false;
}


Value tensor(Shape shape, std::vector<float> data) {
    TensorData t;
    t.shape = std::move(shape);
    t.data = std::move(data);
    return Value::of_tensor(std::move(t));
}

Value arange(Shape shape) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> data;
    for (int64_t i = 0; i < n; ++i) data.push_back(static_cast<float>(i));
    return tensor(std::move(shape), std::move(data));
}

Value eye(int64_t n) {
    std::vector<float> data(static_cast<size_t>(n * n), 0.0f);
    for (int64_t i = 0; i < n; ++i) data[static_cast<size_t>(i * n + i)] = 1.0f;
    return tensor({n, n}, std::move(data));
}

// Deterministic values in [-scale, scale] (a small LCG, no dependence on the course).
Value filled(Shape shape, uint32_t seed, float scale) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> data;
    for (int64_t i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        data.push_back(scale * (static_cast<float>(seed >> 8) / 8388608.0f - 1.0f));
    }
    return tensor(std::move(shape), std::move(data));
}

Result run(const std::string& op, const Inputs& in) {
    const Op* o = find_op(op);
    REQUIRE_MESSAGE(o != nullptr, "no op " << op);
    return o->run(in);
}

Result run_mistake(const std::string& op, const std::string& id, const Inputs& in) {
    const Mistake* m = find_mistake(op, id);
    REQUIRE_MESSAGE(m != nullptr, "no mistake " << id << " on " << op);
    return m->run(in);
}

float at(const Value& v, std::vector<int64_t> index) { return v.tensor.data[static_cast<size_t>(v.tensor.offset(index))]; }

const TensorData* stage(const Result& r, const std::string& name) {
    for (const NamedTensor& s : r.stages)
        if (s.name == name) return &s.tensor;
    return nullptr;
}

}  // namespace

TEST_CASE("every listed mistake is a variant of the exercise's op, with words in both languages") {
    for (const std::string& id : kExercises) {
        CAPTURE(id);
        const Exercise& e = exercise(id);
        const std::vector<std::string> mistakes = listed_mistakes(id);
        CHECK(!mistakes.empty());
        for (const std::string& m : mistakes) {
            CAPTURE(m);
            CHECK(find_mistake(e.reference, m) != nullptr);
            const json words = read_json(kCourse / "mistakes" / (m + ".json"));
            for (const char* field : {"title", "message"})
                for (const char* lang : {"en", "id"}) {
                    CAPTURE(field);
                    CAPTURE(lang);
                    REQUIRE(words.contains(field));
                    CHECK(!words[field].value(lang, std::string()).empty());
                }
        }
    }
}

TEST_CASE("every listed mistake is told apart from the right answer by at least one case") {
    for (const std::string& id : kExercises) {
        CAPTURE(id);
        const Exercise& e = exercise(id);
        const Op* op = find_op(e.reference);
        REQUIRE(op != nullptr);
        const Tol tol = tolerance_of(id);
        for (const std::string& m : listed_mistakes(id)) {
            CAPTURE(m);
            const Mistake* mistake = find_mistake(e.reference, m);
            REQUIRE(mistake != nullptr);
            int separating = 0;
            for (const Case& c : e.cases) {
                const Inputs in = inputs_of(e, c);
                if (separated(mistake->run(in).output, op->run(in).output, tol)) ++separating;
            }
            CHECK(separating >= 1);
        }
    }
}

TEST_CASE("each exercise keeps a wrong fixture per listed mistake, and its files exist") {
    for (const std::string& id : kExercises) {
        CAPTURE(id);
        const json j = read_json(kCourse / id / "exercise.json");
        REQUIRE(j.contains("fixtures"));
        std::map<std::string, int> expected;
        for (const json& f : j["fixtures"]) {
            const std::string file = f.at("file").get<std::string>();
            CAPTURE(file);
            CHECK(fs::is_regular_file(kCourse / id / file));
            const std::string expect = f.at("expect").get<std::string>();
            CHECK((expect == "pass") == (file.rfind("right/", 0) == 0));
            ++expected[expect];
        }
        for (const std::string& m : listed_mistakes(id)) {
            CAPTURE(m);
            CHECK(expected[m] >= 1);
        }
    }
}

TEST_CASE("softmax exercises have a stability case that a softmax without the max subtraction cannot survive") {
    for (const std::string& id : {std::string("batched-mhsa"), std::string("why-many-heads")}) {
        CAPTURE(id);
        const Exercise& e = exercise(id);
        bool found = false;
        for (const Case& c : e.cases) {
            const Result r = run(e.reference, inputs_of(e, c));
            const TensorData* masked = stage(r, "masked");
            REQUIRE(masked != nullptr);
            const int64_t n = masked->shape.back();
            double largest = 0;
            bool overflows = false;
            for (size_t row = 0; row * static_cast<size_t>(n) < masked->data.size(); ++row) {
                float sum = 0.0f;  // exp in float without subtracting the max, as a careless learner would
                for (int64_t j = 0; j < n; ++j) {
                    const float s = masked->data[row * static_cast<size_t>(n) + static_cast<size_t>(j)];
                    if (std::isfinite(s)) largest = std::max(largest, static_cast<double>(std::fabs(s)));
                    sum += std::exp(s);
                }
                for (int64_t j = 0; j < n; ++j) {
                    const float w = std::exp(masked->data[row * static_cast<size_t>(n) + static_cast<size_t>(j)]) / sum;
                    overflows |= !std::isfinite(w);
                }
            }
            if (largest >= 1000 && overflows) found = true;
        }
        CHECK(found);
    }
}

TEST_CASE("padded_head_dim rounds up to whole 16-wide tiles") {
    const std::map<int64_t, int64_t> expected = {{1, 16},  {15, 16}, {16, 16}, {17, 32}, {32, 32},
                                                 {64, 64}, {72, 80}, {80, 80}, {257, 272}};
    for (const auto& [hd, width] : expected) {
        CAPTURE(hd);
        const Result r = run("padded_head_dim", {{"head_dim", Value::of_int(hd)}});
        CHECK(r.output.kind == ValueKind::Int);
        CHECK(r.output.int_value == width);
        CHECK(run_mistake("padded_head_dim", "pad_rounds_down", {{"head_dim", Value::of_int(hd)}}).output.int_value ==
              hd / 16 * 16);
        CHECK(run_mistake("padded_head_dim", "pad_adds_extra_tile", {{"head_dim", Value::of_int(hd)}})
                  .output.int_value == (hd / 16 + 1) * 16);
    }
    CHECK_THROWS_AS(run("padded_head_dim", {{"head_dim", Value::of_int(0)}}), ReferenceError);
    CHECK_THROWS_AS(run("padded_head_dim", {{"head_dim", Value::of_int(-16)}}), ReferenceError);
}

TEST_CASE("one_vs_many_heads: slice 0 is one head of width D, slices 1..H the narrow heads") {
    const Value x = filled({5, 6}, 7, 1.0f), w_q = filled({6, 6}, 8, 0.8f), w_k = filled({6, 6}, 9, 0.8f);
    const Result r = run("one_vs_many_heads", {{"x", x}, {"w_q", w_q}, {"w_k", w_k}, {"n_heads", Value::of_int(3)}});
    REQUIRE(r.output.tensor.shape == Shape{4, 5, 5});

    const auto matrix = [](const Value& v) {
        return Matrix(Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
                          v.tensor.data.data(), v.tensor.shape[0], v.tensor.shape[1])
                          .cast<double>());
    };
    const Matrix q = matrix(x) * matrix(w_q), k = matrix(x) * matrix(w_k);
    const Heads wide = causal_attention_weights(Heads{q}, Heads{k}).weights;
    const Heads narrow = causal_attention_weights(split_heads(q, 3), split_heads(k, 3)).weights;
    for (int64_t s = 0; s < 4; ++s) {
        const Matrix& want = s == 0 ? wide[0] : narrow[static_cast<size_t>(s - 1)];
        for (int64_t i = 0; i < 5; ++i) {
            double row = 0;
            for (int64_t j = 0; j < 5; ++j) {
                CHECK(at(r.output, {s, i, j}) == doctest::Approx(want(i, j)).epsilon(1e-6));
                row += at(r.output, {s, i, j});
                if (j > i) CHECK(at(r.output, {s, i, j}) == 0.0f);
            }
            CHECK(row == doctest::Approx(1.0).epsilon(1e-5));
        }
    }
    for (const char* name : {"scores", "masked", "weights"}) {
        CAPTURE(name);
        REQUIRE(stage(r, name) != nullptr);
        CHECK(stage(r, name)->shape == Shape{4, 5, 5});
    }
}

TEST_CASE("one_vs_many_heads: with one head both slices agree; the ping-pong case flattens the wide head") {
    const Value x = filled({4, 4}, 11, 1.0f), w = filled({4, 4}, 12, 0.9f);
    const Result one = run("one_vs_many_heads", {{"x", x}, {"w_q", w}, {"w_k", w}, {"n_heads", Value::of_int(1)}});
    for (int64_t i = 0; i < 4; ++i)
        for (int64_t j = 0; j < 4; ++j) CHECK(at(one.output, {0, i, j}) == at(one.output, {1, i, j}));

    const Value ping_pong = tensor({4, 4}, {2, 0, 2, 0, 0, 2, 0, 2, 2, 0, 2, 0, 0, 2, 0, 2});
    const Value swap_first_pair = tensor({4, 4}, {0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1});
    const Result r = run("one_vs_many_heads",
                         {{"x", ping_pong}, {"w_q", eye(4)}, {"w_k", swap_first_pair}, {"n_heads", Value::of_int(2)}});
    for (int64_t j = 0; j < 4; ++j) CHECK(at(r.output, {0, 3, j}) == doctest::Approx(0.25));
    CHECK(at(r.output, {1, 3, 0}) == doctest::Approx(0.472).epsilon(1e-3));  // head 0 looks at the pings
    CHECK(at(r.output, {2, 3, 1}) == doctest::Approx(0.472).epsilon(1e-3));  // head 1 at the pongs
}

TEST_CASE("one_vs_many_heads rejects inputs that do not fit") {
    const Value x = filled({3, 4}, 1, 1.0f), w = filled({4, 4}, 2, 1.0f);
    CHECK_THROWS_AS(run("one_vs_many_heads", {{"x", x}, {"w_q", w}, {"w_k", w}, {"n_heads", Value::of_int(3)}}),
                    ReferenceError);
    CHECK_THROWS_AS(run("one_vs_many_heads", {{"x", x}, {"w_q", w}, {"w_k", w}, {"n_heads", Value::of_int(0)}}),
                    ReferenceError);
    CHECK_THROWS_AS(run("one_vs_many_heads",
                        {{"x", x}, {"w_q", filled({4, 3}, 3, 1.0f)}, {"w_k", w}, {"n_heads", Value::of_int(2)}}),
                    ReferenceError);
}

TEST_CASE("batched layout variants: each moves the numbers the way its mistake does") {
    const Inputs in = {{"x", arange({2, 3, 4})}, {"n_heads", Value::of_int(2)}};
    const Value right = run("batched_split_heads", in).output;

    // No transpose: the buffer unchanged, read as (B, H, T, hd).
    const Value flat = run_mistake("batched_split_heads", "split_without_transpose", in).output;
    CHECK(flat.tensor.shape == Shape{2, 2, 3, 2});
    CHECK(flat.tensor.data == in.at("x").tensor.data);

    // Interleaved: head h column j is x column h + j*H.
    const Value inter = run_mistake("batched_split_heads", "heads_interleaved", in).output;
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t h = 0; h < 2; ++h)
            for (int64_t t = 0; t < 3; ++t)
                for (int64_t j = 0; j < 2; ++j)
                    CHECK(at(inter, {b, h, t, j}) == static_cast<float>(b * 12 + t * 4 + h + j * 2));

    // Head-first: slot (b, h) holds pair (s mod B, s div B) for s = b*H + h.
    const Value swapped = run_mistake("batched_split_heads", "batch_head_swapped", in).output;
    CHECK(at(swapped, {0, 1, 0, 0}) == at(right, {1, 0, 0, 0}));
    CHECK(at(swapped, {1, 0, 0, 0}) == at(right, {0, 1, 0, 0}));
    CHECK(at(swapped, {1, 1, 2, 1}) == at(right, {1, 1, 2, 1}));

    // With one sequence or one head the two orders coincide.
    for (const auto& [shape, heads] : std::vector<std::pair<Shape, int64_t>>{{{1, 3, 4}, 2}, {{3, 2, 4}, 1}}) {
        const Inputs single = {{"x", arange(shape)}, {"n_heads", Value::of_int(heads)}};
        CHECK(run_mistake("batched_split_heads", "batch_head_swapped", single).output.tensor.data ==
              run("batched_split_heads", single).output.tensor.data);
    }
}

TEST_CASE("batched MHSA variants: across-batch leaks only into later sequences; swapped pairs need B, H > 1") {
    const Value w_q = filled({4, 4}, 21, 0.7f), w_k = filled({4, 4}, 22, 0.7f), w_v = filled({4, 4}, 23, 0.7f),
                w_o = filled({4, 4}, 24, 0.7f);
    const auto layer = [&](const Value& x, int64_t heads) {
        return Inputs{{"x", x}, {"w_q", w_q}, {"w_k", w_k}, {"w_v", w_v}, {"w_o", w_o}, {"n_heads", Value::of_int(heads)}};
    };
    const Inputs two = layer(filled({2, 3, 4}, 25, 1.0f), 2);
    const Value right = run("batched_causal_mhsa", two).output;
    const Value joined = run_mistake("batched_causal_mhsa", "attends_across_batch", two).output;
    REQUIRE(joined.tensor.shape == right.tensor.shape);
    const size_t per_sequence = 3 * 4;
    bool first_equal = true, second_differs = false;
    for (size_t k = 0; k < right.tensor.data.size(); ++k) {
        const bool same = std::fabs(joined.tensor.data[k] - right.tensor.data[k]) <= 1e-6f;
        if (k < per_sequence) first_equal &= same;
        else second_differs |= !same;
    }
    CHECK(first_equal);
    CHECK(second_differs);

    CHECK(separated(run_mistake("batched_causal_mhsa", "batch_head_swapped", two).output, right, {1e-4, 1e-3}));
    for (const Inputs& in : {layer(filled({1, 3, 4}, 26, 1.0f), 2), layer(filled({2, 3, 4}, 27, 1.0f), 1)}) {
        const Value a = run_mistake("batched_causal_mhsa", "batch_head_swapped", in).output;
        CHECK_FALSE(separated(a, run("batched_causal_mhsa", in).output, {1e-6, 1e-6}));
    }

    // scale_sqrt_d is the right layer when hd = D (one head).
    const Inputs one_head = layer(filled({2, 3, 4}, 28, 1.0f), 1);
    CHECK_FALSE(separated(run_mistake("batched_causal_mhsa", "scale_sqrt_d", one_head).output,
                          run("batched_causal_mhsa", one_head).output, {1e-6, 1e-6}));
}

TEST_CASE("parameter-count variants") {
    const auto count = [](const char* mistake, int64_t d, int64_t layers) {
        const Inputs in = {{"d_model", Value::of_int(d)}, {"n_layers", Value::of_int(layers)}};
        return (mistake ? run_mistake("attention_params", mistake, in) : run("attention_params", in)).output.int_value;
    };
    CHECK(count(nullptr, 768, 12) == 28311552);
    CHECK(count("count_misses_w_o", 768, 12) == 3 * 768 * 768 * 12);
    CHECK(count("count_one_layer", 768, 12) == 2359296);
    CHECK(count("int_overflow", 768, 12) == 28311552);  // fits in int: no overflow
    CHECK(count("int_overflow", 4096, 32) == std::numeric_limits<int32_t>::min());
    CHECK(count(nullptr, 12288, 96) == 57982058496LL);
    CHECK(count("int_overflow", 12288, 96) == static_cast<int32_t>(static_cast<uint32_t>(57982058496ULL)));
}
