// The CUDA exercises' reference ops (reference/src/registry_cuda.cpp):
// causal_softmax, batched_causal_mask, batched_row_sum,
// batched_causal_attention, batched_attention_scores and
// attention_scores_untransposed, each against values worked out by hand, and
// each catalogued mistake against what its name says, computed here
// independently of the reference's code.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/reference/registry.hpp"

using namespace attnlab;
using namespace attnlab::reference;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// A tensor Value from doubles, stored as float like every learner input.
Value tensor(Shape shape, const std::vector<double>& values) {
    TensorData t = TensorData::zeros(std::move(shape));
    REQUIRE(static_cast<int64_t>(values.size()) == t.numel());
    for (size_t i = 0; i < values.size(); ++i) t.data[i] = static_cast<float>(values[i]);
    return Value::of_tensor(t);
}

// Reproducible values in [-scale, scale].
Value random_tensor(Shape shape, unsigned seed, double scale = 1.0) {
    TensorData t = TensorData::zeros(std::move(shape));
    uint32_t state = seed * 2654435761u + 1;
    for (float& x : t.data) {
        state = state * 1664525u + 1013904223u;
        x = static_cast<float>(scale * (2.0 * (state >> 8) / double(1u << 24) - 1.0));
    }
    return Value::of_tensor(t);
}

const Op& op_of(const std::string& name) {
    const Op* op = find_op(name);
    REQUIRE_MESSAGE(op != nullptr, name);
    return *op;
}

Result run(const std::string& op, const Inputs& in) { return op_of(op).run(in); }

Result run_mistake(const std::string& op, const std::string& id, const Inputs& in) {
    const Mistake* m = find_mistake(op, id);
    REQUIRE_MESSAGE(m != nullptr, op << ": " << id);
    return m->run(in);
}

// The n-th form (0-based) of a mistake that has several.
Result run_form(const std::string& op, const std::string& id, size_t n, const Inputs& in) {
    std::vector<const Mistake*> forms;
    for (const Mistake& m : op_of(op).mistakes)
        if (m.id == id) forms.push_back(&m);
    REQUIRE_MESSAGE(n < forms.size(), op << ": " << id << " form " << n);
    return forms[n]->run(in);
}

std::string error_of(const std::string& op, const Inputs& in) {
    try {
        run(op, in);
    } catch (const ReferenceError& e) {
        return e.what();
    }
    return "(no ReferenceError)";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const TensorData& stage(const Result& r, const std::string& name) {
    for (const NamedTensor& s : r.stages)
        if (s.name == name) return s.tensor;
    FAIL("no stage " << name);
    static const TensorData none;
    return none;
}

double at(const TensorData& t, std::vector<int64_t> index) { return t.data[static_cast<size_t>(t.offset(index))]; }

// Element-wise |a - b| <= tol, with NaN only where the other has NaN and
// infinities only where the other has the same one.
bool near(const TensorData& a, const TensorData& b, double tol = 1e-6) {
    if (a.shape != b.shape) return false;
    for (size_t i = 0; i < a.data.size(); ++i) {
        const double x = a.data[i], y = b.data[i];
        if (std::isnan(x) || std::isnan(y)) {
            if (std::isnan(x) != std::isnan(y)) return false;
        } else if (std::isinf(x) || std::isinf(y)) {
            if (x != y) return false;
        } else if (std::abs(x - y) > tol) {
            return false;
        }
    }
    return true;
}

// Plain softmax of one row of doubles, written out again here.
std::vector<double> softmax(const std::vector<double>& row) {
    double m = -kInf;
    for (double x : row) m = std::max(m, x);
    std::vector<double> out;
    double sum = 0;
    for (double x : row) sum += std::exp(x - m);
    for (double x : row) out.push_back(std::exp(x - m) / sum);
    return out;
}

std::vector<double> row_of(const TensorData& t, int64_t b, int64_t h, int64_t i) {
    const int64_t n = t.shape[3];
    std::vector<double> row;
    for (int64_t j = 0; j < n; ++j) row.push_back(at(t, {b, h, i, j}));
    return row;
}

void check_row(const TensorData& t, int64_t b, int64_t h, int64_t i, const std::vector<double>& want,
               double tol = 1e-6) {
    CAPTURE(b);
    CAPTURE(h);
    CAPTURE(i);
    const std::vector<double> got = row_of(t, b, h, i);
    REQUIRE(got.size() == want.size());
    for (size_t j = 0; j < want.size(); ++j) {
        CAPTURE(j);
        CHECK(got[j] == doctest::Approx(want[j]).epsilon(tol));
    }
}

Inputs scores_in(Value scores) { return {{"scores", std::move(scores)}}; }
Inputs qkv_in(Value q, Value k, Value v) { return {{"q", std::move(q)}, {"k", std::move(k)}, {"v", std::move(v)}}; }
Inputs qk_in(Value q, Value k) { return {{"q", std::move(q)}, {"k", std::move(k)}}; }

// One (b, h) slice of a (B, H, R, C) tensor.
TensorData slice(const TensorData& t, int64_t b, int64_t h) {
    const int64_t n = t.shape[2] * t.shape[3];
    const auto first = t.data.begin() + (b * t.shape[1] + h) * n;
    return TensorData({t.shape[2], t.shape[3]}, std::vector<float>(first, first + n));
}

}  // namespace

// ------------------------------------------------------------ causal_softmax

TEST_CASE("causal_softmax: T = 2 by hand, a future key gets exactly 0") {
    const double ln3 = std::log(3.0);
    // slice (0, 0): row 0 has a larger future score (9) that must not count.
    // slice (0, 1): another head, computed on its own.
    const Result r = run("causal_softmax", scores_in(tensor({1, 2, 2, 2}, {2, 9, 0, ln3, -3, 50, ln3, 0})));
    const TensorData& out = r.output.tensor;
    CHECK(out.shape == Shape{1, 2, 2, 2});
    check_row(out, 0, 0, 0, {1, 0});
    check_row(out, 0, 0, 1, {0.25, 0.75});
    check_row(out, 0, 1, 0, {1, 0});
    check_row(out, 0, 1, 1, {0.75, 0.25});
    CHECK(at(out, {0, 0, 0, 1}) == 0.0);  // exactly, not merely small
    CHECK(at(out, {0, 1, 0, 1}) == 0.0);

    REQUIRE(r.stages.size() == 1);
    CHECK(r.stages[0].name == "masked_scores");
    const TensorData& masked = stage(r, "masked_scores");
    CHECK(masked.shape == Shape{1, 2, 2, 2});
    CHECK(at(masked, {0, 0, 0, 0}) == 2.0);
    CHECK(at(masked, {0, 0, 0, 1}) == -kInf);
    CHECK(at(masked, {0, 1, 0, 1}) == -kInf);
    CHECK(at(masked, {0, 1, 1, 0}) == doctest::Approx(ln3));
}

TEST_CASE("causal_softmax: rows sum to 1 over keys 0..i, the future is 0 and never read") {
    const Value scores = random_tensor({2, 3, 5, 5}, 7, 3.0);
    const TensorData out = run("causal_softmax", scores_in(scores)).output.tensor;
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t h = 0; h < 3; ++h)
            for (int64_t i = 0; i < 5; ++i) {
                const std::vector<double> row = row_of(scores.tensor, b, h, i);
                std::vector<double> want = softmax(std::vector<double>(row.begin(), row.begin() + i + 1));
                want.resize(5, 0.0);
                check_row(out, b, h, i, want);
            }
    // Future scores, even NaN or +inf ones, change nothing.
    Value changed = scores;
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t h = 0; h < 3; ++h) {
            changed.tensor.data[static_cast<size_t>(changed.tensor.offset({b, h, 0, 4}))] = 1e30f;
            changed.tensor.data[static_cast<size_t>(changed.tensor.offset({b, h, 1, 3}))] = NAN;
            changed.tensor.data[static_cast<size_t>(changed.tensor.offset({b, h, 2, 3}))] = INFINITY;
        }
    CHECK(near(run("causal_softmax", scores_in(changed)).output.tensor, out, 0.0));
}

TEST_CASE("causal_softmax: logits in the thousands stay finite") {
    // Row 1 holds 1000 and 1001: exp(1000) overflows, the stable softmax does not.
    const TensorData out =
        run("causal_softmax", scores_in(tensor({1, 1, 3, 3}, {3000, 1, 1, 1000, 1001, 5, -2000, 2000, 2001})))
            .output.tensor;
    for (float x : out.data) CHECK(std::isfinite(x));
    const double e = std::exp(1.0);
    check_row(out, 0, 0, 0, {1, 0, 0});
    check_row(out, 0, 0, 1, {1 / (1 + e), e / (1 + e), 0});
    check_row(out, 0, 0, 2, {0, 1 / (1 + e), e / (1 + e)});
}

TEST_CASE("causal_softmax: T = 1 is a weight of 1, and -inf visible keys get 0") {
    check_row(run("causal_softmax", scores_in(tensor({2, 1, 1, 1}, {-40, 7}))).output.tensor, 1, 0, 0, {1});
    const TensorData out = run("causal_softmax", scores_in(tensor({1, 1, 2, 2}, {0, 0, -kInf, 4}))).output.tensor;
    check_row(out, 0, 0, 1, {0, 1});
}

TEST_CASE("causal_softmax: bad input gets a message naming scores") {
    auto error = [](Value v) { return error_of("causal_softmax", scores_in(std::move(v))); };
    const std::string rank = error(tensor({2, 2, 2}, std::vector<double>(8, 0.0)));
    CHECK(contains(rank, "scores: expected a rank-4 tensor (B, H, T, T)"));
    CHECK(contains(rank, "(2, 2, 2)"));
    CHECK(contains(error(tensor({1, 1, 2, 3}, std::vector<double>(6, 0.0))), "last two axes equal"));
    CHECK(contains(error(tensor({0, 1, 2, 2}, {})), "B >= 1"));
    CHECK(contains(error(tensor({1, 0, 2, 2}, {})), "H >= 1"));
    CHECK(contains(error(tensor({1, 1, 0, 0}, {})), "T >= 1"));
    const std::string nan = error(tensor({1, 2, 2, 2}, {0, 0, 0, 0, 0, 0, NAN, 0}));
    CHECK(contains(nan, "row 1 of slice (b, h) = (0, 1)"));
    CHECK(contains(nan, "NaN"));
    CHECK(contains(error(tensor({1, 1, 2, 2}, {0, 0, -kInf, -kInf})), "-inf on every visible key"));
    CHECK(contains(error_of("causal_softmax", {}), "scores: missing input"));
}

TEST_CASE("causal_softmax mistakes: each is what its name says, and differs from the op") {
    const Value scores = random_tensor({2, 2, 4, 4}, 11, 2.0);
    const TensorData right = run("causal_softmax", scores_in(scores)).output.tensor;

    SUBCASE("reads_future_keys: a plain softmax of every row over all keys") {
        const Result r = run_mistake("causal_softmax", "reads_future_keys", scores_in(scores));
        for (int64_t b = 0; b < 2; ++b)
            for (int64_t h = 0; h < 2; ++h)
                for (int64_t i = 0; i < 4; ++i)
                    check_row(r.output.tensor, b, h, i, softmax(row_of(scores.tensor, b, h, i)));
        CHECK(near(stage(r, "masked_scores"), scores.tensor, 0.0));  // nothing masked
        CHECK_FALSE(near(r.output.tensor, right, 1e-3));
    }
    SUBCASE("mask_includes_diagonal: row i over keys 0..i-1; row 0 keeps no key and is NaN") {
        const Result r = run_mistake("causal_softmax", "mask_includes_diagonal", scores_in(scores));
        for (int64_t b = 0; b < 2; ++b)
            for (int64_t h = 0; h < 2; ++h) {
                for (double x : row_of(r.output.tensor, b, h, 0)) CHECK(std::isnan(x));
                for (int64_t i = 1; i < 4; ++i) {
                    const std::vector<double> row = row_of(scores.tensor, b, h, i);
                    std::vector<double> want = softmax(std::vector<double>(row.begin(), row.begin() + i));
                    want.resize(4, 0.0);
                    check_row(r.output.tensor, b, h, i, want);
                }
            }
        CHECK(at(stage(r, "masked_scores"), {1, 1, 2, 2}) == -kInf);
        CHECK_FALSE(near(r.output.tensor, right, 1e-3));
    }
    SUBCASE("mask_with_zero: future logits 0, then a softmax over every key") {
        const Result r = run_mistake("causal_softmax", "mask_with_zero", scores_in(scores));
        for (int64_t b = 0; b < 2; ++b)
            for (int64_t h = 0; h < 2; ++h)
                for (int64_t i = 0; i < 4; ++i) {
                    std::vector<double> row = row_of(scores.tensor, b, h, i);
                    for (int64_t j = i + 1; j < 4; ++j) row[static_cast<size_t>(j)] = 0.0;
                    check_row(r.output.tensor, b, h, i, softmax(row));
                }
        CHECK(at(stage(r, "masked_scores"), {0, 1, 0, 3}) == 0.0);
        CHECK_FALSE(near(r.output.tensor, right, 1e-3));
    }
    SUBCASE("T = 2 by hand") {
        const Inputs in = scores_in(tensor({1, 1, 2, 2}, {2, 9, 1, 1}));
        const double e7 = std::exp(7.0), e2 = std::exp(2.0);
        check_row(run_mistake("causal_softmax", "reads_future_keys", in).output.tensor, 0, 0, 0,
                  {1 / (1 + e7), e7 / (1 + e7)});
        check_row(run_mistake("causal_softmax", "mask_with_zero", in).output.tensor, 0, 0, 0,
                  {e2 / (e2 + 1), 1 / (e2 + 1)});
        check_row(run_mistake("causal_softmax", "mask_includes_diagonal", in).output.tensor, 0, 0, 1, {1, 0});
    }
}

// ------------------------------------------------- batched_causal_attention

namespace {

// B = H = 1, T = 2, hd = 4 (scale 1/2). Query 1 scores keys 0 and 1 as
// 0 and 2·ln 9 / 2 = ln 9, so its weights are 1/10 and 9/10. Query 0 would
// score key 1 as ln 3 if it could see it.
Inputs worked_attention() {
    const double ln9 = std::log(9.0);
    return qkv_in(tensor({1, 1, 2, 4}, {1, 0, 0, 0, 2, 0, 0, 0}), tensor({1, 1, 2, 4}, {0, 0, 0, 0, ln9, 0, 0, 0}),
                  tensor({1, 1, 2, 4}, {1, 2, 3, 4, 11, 12, 13, 14}));
}

}  // namespace

TEST_CASE("batched_causal_attention: T = 2 by hand, with its stages") {
    const Result r = run("batched_causal_attention", worked_attention());
    CHECK(r.output.tensor.shape == Shape{1, 1, 2, 4});
    check_row(r.output.tensor, 0, 0, 0, {1, 2, 3, 4});      // only key 0 is visible
    check_row(r.output.tensor, 0, 0, 1, {10, 11, 12, 13});  // 0.1·v0 + 0.9·v1

    REQUIRE(r.stages.size() == 2);
    CHECK(r.stages[0].name == "scores");
    CHECK(r.stages[1].name == "weights");
    const TensorData& scores = stage(r, "scores");
    CHECK(scores.shape == Shape{1, 1, 2, 2});
    CHECK(at(scores, {0, 0, 0, 0}) == 0.0);
    CHECK(at(scores, {0, 0, 0, 1}) == -kInf);  // masked, not the scaled ln 3
    CHECK(at(scores, {0, 0, 1, 1}) == doctest::Approx(std::log(9.0)));
    const TensorData& weights = stage(r, "weights");
    check_row(weights, 0, 0, 0, {1, 0});
    check_row(weights, 0, 0, 1, {0.1, 0.9});
    CHECK(at(weights, {0, 0, 0, 1}) == 0.0);
}

TEST_CASE("batched_causal_attention: every (b, h) slice on its own, causal, stable") {
    const Value q = random_tensor({2, 3, 5, 4}, 1), k = random_tensor({2, 3, 5, 4}, 2),
                v = random_tensor({2, 3, 5, 4}, 3);
    const Result r = run("batched_causal_attention", qkv_in(q, k, v));
    const TensorData& out = r.output.tensor;
    CHECK(out.shape == Shape{2, 3, 5, 4});
    // Each slice: weights = causal softmax of q·k / 2, out = weights · v, recomputed here.
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t h = 0; h < 3; ++h)
            for (int64_t i = 0; i < 5; ++i) {
                std::vector<double> logits;
                for (int64_t j = 0; j <= i; ++j) {
                    double dot = 0;
                    for (int64_t d = 0; d < 4; ++d) dot += at(q.tensor, {b, h, i, d}) * at(k.tensor, {b, h, j, d});
                    logits.push_back(dot / 2.0);
                }
                const std::vector<double> w = softmax(logits);
                std::vector<double> want(4, 0.0);
                for (int64_t j = 0; j <= i; ++j)
                    for (int64_t d = 0; d < 4; ++d) want[static_cast<size_t>(d)] += w[static_cast<size_t>(j)] * at(v.tensor, {b, h, j, d});
                check_row(out, b, h, i, want, 1e-5);
            }
    // Token 4's key and value (the last) change no output row before it.
    Value k2 = k, v2 = v;
    for (int64_t d = 0; d < 4; ++d) {
        k2.tensor.data[static_cast<size_t>(k2.tensor.offset({1, 2, 4, d}))] = 100.0f;
        v2.tensor.data[static_cast<size_t>(v2.tensor.offset({1, 2, 4, d}))] = -100.0f;
    }
    const TensorData out2 = run("batched_causal_attention", qkv_in(q, k2, v2)).output.tensor;
    for (int64_t i = 0; i < 4; ++i) CHECK(row_of(out2, 1, 2, i) == row_of(out, 1, 2, i));
    CHECK(row_of(out2, 1, 2, 4) != row_of(out, 1, 2, 4));
    // Scores in the thousands: the output stays a finite average of value rows.
    const Value big_q = random_tensor({1, 2, 3, 4}, 4, 60.0), big_k = random_tensor({1, 2, 3, 4}, 5, 60.0);
    const TensorData big = run("batched_causal_attention", qkv_in(big_q, big_k, random_tensor({1, 2, 3, 4}, 6)))
                               .output.tensor;
    for (float x : big.data) {
        CHECK(std::isfinite(x));
        CHECK(std::abs(x) <= 1.0f + 1e-6f);
    }
}

TEST_CASE("batched_causal_attention: bad input gets a message naming it") {
    const Value good = random_tensor({2, 2, 3, 4}, 9);
    auto error = [](Value q, Value k, Value v) {
        return error_of("batched_causal_attention", qkv_in(std::move(q), std::move(k), std::move(v)));
    };
    CHECK(contains(error(random_tensor({2, 3, 4}, 1), good, good), "q: expected a rank-4 tensor (B, H, T, hd)"));
    CHECK(contains(error(good, random_tensor({2, 3, 4}, 1), good), "k: expected a rank-4 tensor"));
    const std::string k_shape = error(good, random_tensor({2, 2, 4, 4}, 1), good);
    CHECK(contains(k_shape, "k: expected shape (2, 2, 3, 4)"));
    CHECK(contains(k_shape, "got shape (2, 2, 4, 4)"));
    CHECK(contains(error(good, good, random_tensor({2, 2, 3, 5}, 1)), "v: expected shape (2, 2, 3, 4)"));
    CHECK(contains(error(tensor({1, 1, 2, 0}, {}), tensor({1, 1, 2, 0}, {}), tensor({1, 1, 2, 0}, {})), "hd >= 1"));
    CHECK(contains(error(tensor({1, 1, 0, 4}, {}), tensor({1, 1, 0, 4}, {}), tensor({1, 1, 0, 4}, {})), "T >= 1"));
    Value nan = good;
    nan.tensor.data[5] = NAN;
    CHECK(contains(error(good, good, nan), "v: element (0, 0, 1, 1) is NaN"));
    CHECK(contains(error_of("batched_causal_attention", qk_in(good, good)), "v: missing input"));
}

TEST_CASE("batched_causal_attention mistakes: by hand on the worked case") {
    const Inputs in = worked_attention();
    // Query 0 also sees key 1 (score ln 3): weights 1/4, 3/4.
    const Result future = run_mistake("batched_causal_attention", "reads_future_keys", in);
    check_row(future.output.tensor, 0, 0, 0, {8.5, 9.5, 10.5, 11.5});
    check_row(future.output.tensor, 0, 0, 1, {10, 11, 12, 13});
    CHECK(at(stage(future, "scores"), {0, 0, 0, 1}) == doctest::Approx(std::log(3.0)));
    // Without the 1/2, query 1 scores key 1 as 2·ln 9 = ln 81: weights 1/82, 81/82.
    const Result unscaled = run_mistake("batched_causal_attention", "no_scale", in);
    check_row(unscaled.output.tensor, 0, 0, 0, {1, 2, 3, 4});
    check_row(unscaled.output.tensor, 0, 0, 1, {1 + 10 * 81.0 / 82, 2 + 10 * 81.0 / 82, 3 + 10 * 81.0 / 82, 4 + 10 * 81.0 / 82});
    CHECK(at(stage(unscaled, "scores"), {0, 0, 0, 1}) == -kInf);  // still masked
}

TEST_CASE("batched_causal_attention mistakes: each is what its name says, and differs from the op") {
    const Value q = random_tensor({2, 3, 4, 4}, 21, 2.0), k = random_tensor({2, 3, 4, 4}, 22, 2.0),
                v = random_tensor({2, 3, 4, 4}, 23);
    const Inputs in = qkv_in(q, k, v);
    const Result right = run("batched_causal_attention", in);

    SUBCASE("reads_future_keys: no mask, otherwise the op (scaled, plain softmax)") {
        const Result r = run_mistake("batched_causal_attention", "reads_future_keys", in);
        const TensorData& scores = stage(r, "scores");
        for (float x : scores.data) CHECK(std::isfinite(x));
        for (int64_t b = 0; b < 2; ++b)
            for (int64_t h = 0; h < 3; ++h)
                for (int64_t i = 0; i < 4; ++i)
                    check_row(stage(r, "weights"), b, h, i, softmax(row_of(scores, b, h, i)));
        CHECK_FALSE(near(r.output.tensor, right.output.tensor, 1e-3));
    }
    SUBCASE("no_scale: the scores are exactly twice the op's (hd = 4)") {
        const Result r = run_mistake("batched_causal_attention", "no_scale", in);
        const TensorData& mine = stage(r, "scores");
        const TensorData& theirs = stage(right, "scores");
        REQUIRE(mine.shape == theirs.shape);
        for (size_t i = 0; i < mine.data.size(); ++i) {
            if (std::isinf(theirs.data[i]))
                CHECK(mine.data[i] == theirs.data[i]);  // the mask is the same -inf
            else
                CHECK(double(mine.data[i]) == doctest::Approx(2.0 * theirs.data[i]).epsilon(1e-6));
        }
        CHECK_FALSE(near(r.output.tensor, right.output.tensor, 1e-3));
    }
    SUBCASE("block_mapping_swapped: slice l = b·H + h holds the op's slice (l % B, l / B)") {
        const Result r = run_mistake("batched_causal_attention", "block_mapping_swapped", in);
        const int64_t B = 2, H = 3;
        std::set<int64_t> sources;
        for (int64_t b = 0; b < B; ++b)
            for (int64_t h = 0; h < H; ++h) {
                const int64_t l = b * H + h, from_b = l % B, from_h = l / B;
                sources.insert(from_b * H + from_h);
                CAPTURE(l);
                for (const char* name : {"scores", "weights"})
                    CHECK(near(slice(stage(r, name), b, h), slice(stage(right, name), from_b, from_h), 0.0));
                CHECK(near(slice(r.output.tensor, b, h), slice(right.output.tensor, from_b, from_h), 0.0));
            }
        CHECK(sources.size() == static_cast<size_t>(B * H));  // a permutation of the slices
        // Slices 0 and B·H - 1 stay; the four between move: (0,1) <- (1,0), (0,2) <- (0,1), ...
        CHECK(near(slice(r.output.tensor, 0, 1), slice(right.output.tensor, 1, 0), 0.0));
        CHECK(near(slice(r.output.tensor, 1, 0), slice(right.output.tensor, 1, 1), 0.0));
        CHECK_FALSE(near(r.output.tensor, right.output.tensor, 1e-3));
    }
}

TEST_CASE("wmma_kt_layout: each 16 x 16 tile of K multiplied untransposed, keys past T read as zeros") {
    // hd = 32, T = 20: key j's dimension d comes from k[16·(j/16) + d%16][16·(d/16) + j%16].
    const Value q = random_tensor({1, 2, 20, 32}, 31), k = random_tensor({1, 2, 20, 32}, 32), v = random_tensor({1, 2, 20, 32}, 33);
    const Result r = run_mistake("batched_causal_attention", "wmma_kt_layout", qkv_in(q, k, v));
    const TensorData& scores = stage(r, "scores");
    const TensorData& K = k.tensor;
    const TensorData& Q = q.tensor;
    auto kk = [&](int64_t h, int64_t key, int64_t d) { return key < 20 ? double(K.data[size_t((h * 20 + key) * 32 + d)]) : 0.0; };
    for (int64_t h = 0; h < 2; ++h)
        for (int64_t i = 0; i < 20; ++i)
            for (int64_t j = 0; j <= i; ++j) {
                double s = 0;
                for (int64_t d = 0; d < 32; ++d) s += double(Q.data[size_t((h * 20 + i) * 32 + d)]) * kk(h, j / 16 * 16 + d % 16, d / 16 * 16 + j % 16);
                CAPTURE(h);
                CAPTURE(i);
                CAPTURE(j);
                CHECK(at(scores, {0, h, i, j}) == doctest::Approx(s / std::sqrt(32.0)).epsilon(1e-5));
            }
    CHECK(at(scores, {0, 0, 3, 4}) == -kInf);  // still causal
    CHECK_FALSE(near(r.output.tensor, run("batched_causal_attention", qkv_in(q, k, v)).output.tensor, 1e-2));
}

TEST_CASE("wmma_v_layout: each 16 x 16 tile of V transposed, scores and weights right, keys past T read as zeros") {
    // hd = 32, T = 20: key j's value in dimension d comes from v[16·(j/16) + d%16][16·(d/16) + j%16].
    const Value q = random_tensor({1, 2, 20, 32}, 41), k = random_tensor({1, 2, 20, 32}, 42), v = random_tensor({1, 2, 20, 32}, 43);
    const Result r = run_mistake("batched_causal_attention", "wmma_v_layout", qkv_in(q, k, v));
    const Result right = run("batched_causal_attention", qkv_in(q, k, v));
    CHECK(near(stage(r, "scores"), stage(right, "scores"), 0.0));
    const TensorData& P = stage(right, "weights");
    const TensorData& V = v.tensor;
    auto vv = [&](int64_t h, int64_t key, int64_t d) { return key < 20 ? double(V.data[size_t((h * 20 + key) * 32 + d)]) : 0.0; };
    for (int64_t h = 0; h < 2; ++h)
        for (int64_t i = 0; i < 20; ++i)
            for (int64_t d = 0; d < 32; ++d) {
                double o = 0;
                for (int64_t j = 0; j <= i; ++j) o += at(P, {0, h, i, j}) * vv(h, j / 16 * 16 + d % 16, d / 16 * 16 + j % 16);
                CAPTURE(h);
                CAPTURE(i);
                CAPTURE(d);
                CHECK(at(r.output.tensor, {0, h, i, d}) == doctest::Approx(o).epsilon(1e-5));
            }
    CHECK_FALSE(near(r.output.tensor, right.output.tensor, 1e-2));
}

TEST_CASE("block_mapping_swapped: only separable when B > 1 and H > 1") {
    for (const Shape& s : {Shape{1, 3, 3, 2}, Shape{3, 1, 3, 2}}) {
        const Inputs in = qkv_in(random_tensor(s, 31), random_tensor(s, 32), random_tensor(s, 33));
        CHECK(near(run_mistake("batched_causal_attention", "block_mapping_swapped", in).output.tensor,
                   run("batched_causal_attention", in).output.tensor, 0.0));
    }
    // B = H: the mapping transposes the (b, h) grid.
    const Shape s{2, 2, 3, 2};
    const Inputs in = qkv_in(random_tensor(s, 34), random_tensor(s, 35), random_tensor(s, 36));
    const TensorData swapped = run_mistake("batched_causal_attention", "block_mapping_swapped", in).output.tensor;
    const TensorData right = run("batched_causal_attention", in).output.tensor;
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t h = 0; h < 2; ++h) CHECK(near(slice(swapped, b, h), slice(right, h, b), 0.0));
}

// ------------------------------------------------- batched_attention_scores

TEST_CASE("batched_attention_scores: Q Kᵀ / sqrt(hd) for every pair, no mask") {
    // hd = 4, scale 1/2: q0·k = (6, 2), q1·k = (0, 4).
    const Inputs in = qk_in(tensor({1, 1, 2, 4}, {2, 0, 0, 0, 0, 4, 0, 0}), tensor({1, 1, 2, 4}, {3, 0, 0, 0, 1, 1, 0, 0}));
    const Result r = run("batched_attention_scores", in);
    CHECK(r.output.tensor.shape == Shape{1, 1, 2, 2});
    CHECK(r.stages.empty());
    check_row(r.output.tensor, 0, 0, 0, {3, 1});  // (0, 1) is a score, not -inf
    check_row(r.output.tensor, 0, 0, 1, {0, 2});
    const TensorData unscaled = run_mistake("batched_attention_scores", "no_scale", in).output.tensor;
    check_row(unscaled, 0, 0, 0, {6, 2});
    check_row(unscaled, 0, 0, 1, {0, 4});

    // B = 2, H = 3, T = 3, hd = 2: each slice from its own q and k.
    const Value q = random_tensor({2, 3, 3, 2}, 41), k = random_tensor({2, 3, 3, 2}, 42);
    const TensorData out = run("batched_attention_scores", qk_in(q, k)).output.tensor;
    CHECK(out.shape == Shape{2, 3, 3, 3});
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t h = 0; h < 3; ++h)
            for (int64_t i = 0; i < 3; ++i)
                for (int64_t j = 0; j < 3; ++j) {
                    const double dot = at(q.tensor, {b, h, i, 0}) * at(k.tensor, {b, h, j, 0}) +
                                       at(q.tensor, {b, h, i, 1}) * at(k.tensor, {b, h, j, 1});
                    CHECK(at(out, {b, h, i, j}) == doctest::Approx(dot / std::sqrt(2.0)).epsilon(1e-6));
                }
    CHECK_FALSE(near(run_mistake("batched_attention_scores", "no_scale", qk_in(q, k)).output.tensor, out, 1e-3));
}

TEST_CASE("batched_attention_scores: bad input gets a message naming it") {
    const Value good = random_tensor({1, 2, 3, 4}, 1);
    CHECK(contains(error_of("batched_attention_scores", qk_in(random_tensor({3, 4}, 1), good)),
                   "q: expected a rank-4 tensor (B, H, T, hd), got shape (3, 4)"));
    CHECK(contains(error_of("batched_attention_scores", qk_in(good, random_tensor({1, 2, 3, 2}, 1))),
                   "k: expected shape (1, 2, 3, 4)"));
    CHECK(contains(error_of("batched_attention_scores", qk_in(good, Value::of_int(3))), "k: expected tensor"));
}

// -------------------------------------------- attention_scores_untransposed

namespace {

// (B, T, H, hd) -> (B, H, T, hd), element by element, written out again here.
Value heads_first(const Value& x) {
    const Shape& s = x.tensor.shape;
    TensorData t = TensorData::zeros({s[0], s[2], s[1], s[3]});
    for (int64_t b = 0; b < s[0]; ++b)
        for (int64_t i = 0; i < s[1]; ++i)
            for (int64_t h = 0; h < s[2]; ++h)
                for (int64_t d = 0; d < s[3]; ++d)
                    t.data[static_cast<size_t>(t.offset({b, h, i, d}))] = static_cast<float>(at(x.tensor, {b, i, h, d}));
    return Value::of_tensor(t);
}

}  // namespace

TEST_CASE("attention_scores_untransposed: q, k in (B, T, H, hd), scores by hand") {
    // B = 1, T = 2, H = 2, hd = 2 (scale 1/sqrt 2). Token rows hold both heads:
    //   q: t0 = (1, 0 | 0, 2), t1 = (0, 1 | 1, 1)    k: t0 = (2, 0 | 1, 0), t1 = (0, 3 | 0, -1)
    // Head 0: Q = [[1, 0], [0, 1]], K = [[2, 0], [0, 3]] -> Q Kᵀ = [[2, 0], [0, 3]].
    // Head 1: Q = [[0, 2], [1, 1]], K = [[1, 0], [0, -1]] -> Q Kᵀ = [[0, -2], [1, -1]].
    // Read as (B, H, T, hd) instead, head 0 would be q rows (1, 0), (0, 2): a different answer.
    const Inputs in = qk_in(tensor({1, 2, 2, 2}, {1, 0, 0, 2, 0, 1, 1, 1}), tensor({1, 2, 2, 2}, {2, 0, 1, 0, 0, 3, 0, -1}));
    const Result r = run("attention_scores_untransposed", in);
    CHECK(r.output.tensor.shape == Shape{1, 2, 2, 2});
    CHECK(r.stages.empty());
    const double s = 1.0 / std::sqrt(2.0);
    check_row(r.output.tensor, 0, 0, 0, {2 * s, 0});
    check_row(r.output.tensor, 0, 0, 1, {0, 3 * s});
    check_row(r.output.tensor, 0, 1, 0, {0, -2 * s});
    check_row(r.output.tensor, 0, 1, 1, {s, -s});
    const TensorData unscaled = run_mistake("attention_scores_untransposed", "no_scale", in).output.tensor;
    check_row(unscaled, 0, 0, 0, {2, 0});
    check_row(unscaled, 0, 0, 1, {0, 3});
    check_row(unscaled, 0, 1, 0, {0, -2});
    check_row(unscaled, 0, 1, 1, {1, -1});
}

TEST_CASE("attention_scores_untransposed: batched_attention_scores of the transposed inputs") {
    for (const Shape& shape : {Shape{2, 3, 3, 4}, Shape{3, 5, 2, 1}, Shape{1, 1, 4, 2}}) {
        CAPTURE(shape_to_string(shape));
        const Value q = random_tensor(shape, 51), k = random_tensor(shape, 52);
        const TensorData untransposed = run("attention_scores_untransposed", qk_in(q, k)).output.tensor;
        CHECK(untransposed.shape == Shape{shape[0], shape[2], shape[1], shape[1]});
        CHECK(near(untransposed, run("batched_attention_scores", qk_in(heads_first(q), heads_first(k))).output.tensor, 0.0));
        const TensorData unscaled = run_mistake("attention_scores_untransposed", "no_scale", qk_in(q, k)).output.tensor;
        CHECK(near(unscaled,
                   run_mistake("batched_attention_scores", "no_scale", qk_in(heads_first(q), heads_first(k))).output.tensor,
                   0.0));
        if (shape[3] > 1) CHECK_FALSE(near(unscaled, untransposed, 1e-3));  // hd = 1: the scale is 1
    }
}

TEST_CASE("attention_scores_untransposed: bad input gets a message naming it") {
    const Value good = random_tensor({1, 3, 2, 4}, 1);
    auto error = [](Value q, Value k) { return error_of("attention_scores_untransposed", qk_in(std::move(q), std::move(k))); };
    CHECK(contains(error(random_tensor({3, 4}, 1), good), "q: expected a rank-4 tensor (B, T, H, hd), got shape (3, 4)"));
    CHECK(contains(error(good, random_tensor({3, 2, 4}, 1)), "k: expected a rank-4 tensor (B, T, H, hd)"));
    const std::string k_shape = error(good, random_tensor({1, 2, 3, 4}, 1));
    CHECK(contains(k_shape, "k: expected shape (1, 3, 2, 4) (B, T, H, hd), like q"));
    CHECK(contains(k_shape, "got shape (1, 2, 3, 4)"));
    CHECK(contains(error(tensor({0, 2, 2, 2}, {}), tensor({0, 2, 2, 2}, {})), "B >= 1"));
    CHECK(contains(error(tensor({1, 0, 2, 2}, {}), tensor({1, 0, 2, 2}, {})), "T >= 1"));
    CHECK(contains(error(tensor({1, 2, 0, 2}, {}), tensor({1, 2, 0, 2}, {})), "H >= 1"));
    CHECK(contains(error(tensor({1, 2, 2, 0}, {}), tensor({1, 2, 2, 0}, {})), "hd >= 1"));
    CHECK(contains(error(good, Value::of_int(3)), "k: expected tensor"));
}

// --------------------------------------------------------------- catalogue

TEST_CASE("the CUDA ops' catalogue: ids, stages, and words for every new id") {
    struct Expected {
        std::string op;
        std::vector<std::pair<std::string, std::string>> mistakes;  // id, stage
    };
    const std::vector<Expected> expected = {
        {"causal_softmax",
         {{"reads_future_keys", "masked_scores"},
          {"mask_includes_diagonal", "masked_scores"},
          {"mask_with_zero", "masked_scores"},
          {"mask_misses_first_future_key", "masked_scores"},
          {"mask_includes_diagonal", "masked_scores"},
          {"reads_future_keys", "masked_scores"},  // every key read, then 0 written to the future ones
          {"softmax_without_max", ""},
          {"softmax_without_max", ""}}},
        {"batched_causal_mask",
         {{"mask_includes_diagonal", ""},
          {"mask_with_zero", ""},
          {"mask_below_diagonal", ""},
          {"mask_with_large_negative", ""},  // -1e9, -1e10, -1e30, the lowest float
          {"mask_with_large_negative", ""},
          {"mask_with_large_negative", ""},
          {"mask_with_large_negative", ""}}},
        {"batched_row_sum",  // 6 blocks cut after a block's worth, then 15 (block, threads combined) pairs
         std::vector<std::pair<std::string, std::string>>(6 + 15, {"row_sum_no_stride_loop", ""})},
        {"batched_causal_attention",
         {{"reads_future_keys", "scores"},
          {"reads_future_keys", "scores"},  // the future keys' weights dropped after a softmax over every key
          {"no_scale", "scores"},
          {"scale_sqrt_d", "scores"},
          {"scale_by_hd", "scores"},
          {"mask_misses_first_future_key", "scores"},
          {"block_mapping_swapped", "scores"},
          {"block_mapping_swapped", "scores"},
          {"softmax_without_max", "weights"},
          {"softmax_without_max", "weights"}}},
        {"batched_attention_scores", {{"no_scale", ""}, {"scale_sqrt_d", ""}, {"scale_by_hd", ""}}},
        {"attention_scores_untransposed", {{"no_scale", ""}, {"scale_sqrt_d", ""}, {"scale_by_hd", ""}, {"layout_read_as_bhtd", ""}}},
    };
    std::vector<Expected> with_tiles = expected;
    for (Expected& e : with_tiles)
        if (e.op == "batched_causal_attention")  // then the online loop's mistakes, one form per tile size
            for (const char* id : {"online_no_rescale", "online_rescale_incomplete", "online_rescale_incomplete",
                                   "online_rescale_inverted", "online_rescale_inverted", "online_diagonal_chunk_unmasked",
                                   "online_partial_chunk_dropped"})
                for (int tile = 0; tile < 7; ++tile)  // tiles of 1 key: only the rescaling mistakes show
                    if (tile > 0 || std::string(id).find("rescale") != std::string::npos) e.mistakes.push_back({id, ""});
    for (Expected& e : with_tiles)
        if (e.op == "batched_causal_attention") {  // cuda-flash-attention-wmma
            e.mistakes.push_back({"wmma_kt_layout", "scores"});
            e.mistakes.push_back({"wmma_v_layout", ""});
        }
    for (const Expected& e : with_tiles) {
        const Op& op = op_of(e.op);
        CAPTURE(e.op);
        CHECK_FALSE(op.summary.empty());
        REQUIRE(op.mistakes.size() == e.mistakes.size());
        for (size_t i = 0; i < e.mistakes.size(); ++i) {
            CHECK(op.mistakes[i].id == e.mistakes[i].first);
            CHECK(op.mistakes[i].stage == e.mistakes[i].second);
            if (!e.mistakes[i].second.empty()) {  // the stage a mistake names is one the op records
                const Mistake& m = op.mistakes[i];
                bool recorded = false;
                const Inputs in = e.op == "causal_softmax"
                                      ? scores_in(random_tensor({1, 1, 2, 2}, 3))
                                      : qkv_in(random_tensor({1, 1, 2, 2}, 3), random_tensor({1, 1, 2, 2}, 4),
                                               random_tensor({1, 1, 2, 2}, 5));
                for (const NamedTensor& s : op.run(in).stages) recorded = recorded || s.name == m.stage;
                CHECK(recorded);
            }
        }
    }
    // Every id these ops use has learner words in both languages.
    for (const char* id : {"reads_future_keys", "block_mapping_swapped", "mask_includes_diagonal", "mask_with_zero", "no_scale",
                           "softmax_without_max", "mask_with_large_negative", "mask_below_diagonal",
                           "mask_misses_first_future_key", "row_sum_no_stride_loop", "layout_read_as_bhtd", "scale_sqrt_d",
                           "scale_by_hd", "wmma_kt_layout", "wmma_v_layout"}) {
        CAPTURE(id);
        std::ifstream file(std::string(ATTNLAB_TEST_FIXTURES) + "/../../exercises/mistakes/" + id + ".json");
        REQUIRE(file.good());
        const nlohmann::json words = nlohmann::json::parse(file);
        for (const char* field : {"title", "message"})
            for (const char* lang : {"en", "id"}) {
                CAPTURE(field);
                CAPTURE(lang);
                REQUIRE(words.at(field).at(lang).is_string());
                CHECK_FALSE(words[field][lang].get<std::string>().empty());
            }
        CHECK(words["message"]["en"] != words["message"]["id"]);
    }
}

// ------------------------------------------------------ batched_causal_mask

TEST_CASE("batched_causal_mask: 0..8 by hand, every slice alike, and its mistakes") {
    const Inputs in = scores_in(tensor({1, 2, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8}));
    const TensorData out = run("batched_causal_mask", in).output.tensor;
    for (int64_t h = 0; h < 2; ++h) {
        CHECK(row_of(out, 0, h, 0) == std::vector<double>{0, -kInf, -kInf});
        CHECK(row_of(out, 0, h, 1) == std::vector<double>{3, 4, -kInf});
        CHECK(row_of(out, 0, h, 2) == std::vector<double>{6, 7, 8});
    }
    const TensorData diagonal = run_mistake("batched_causal_mask", "mask_includes_diagonal", in).output.tensor;
    CHECK(row_of(diagonal, 0, 1, 1) == std::vector<double>{3, -kInf, -kInf});
    const TensorData zero = run_mistake("batched_causal_mask", "mask_with_zero", in).output.tensor;
    CHECK(row_of(zero, 0, 0, 0) == std::vector<double>{0, 0, 0});
    const TensorData large = run_mistake("batched_causal_mask", "mask_with_large_negative", in).output.tensor;
    CHECK(row_of(large, 0, 0, 1) == std::vector<double>{3, 4, -1e9});
    const TensorData below = run_mistake("batched_causal_mask", "mask_below_diagonal", in).output.tensor;
    CHECK(row_of(below, 0, 1, 2) == std::vector<double>{-kInf, -kInf, 8});
    CHECK(row_of(below, 0, 1, 0) == std::vector<double>{0, 1, 2});
    CHECK(contains(error_of("batched_causal_mask", scores_in(tensor({1, 1, 2, 3}, {0, 0, 0, 0, 0, 0}))), "scores"));
}

// ---------------------------------------------------------- batched_row_sum

TEST_CASE("batched_row_sum: (B, H, R, N) -> (B, H, R), by hand and at random") {
    const TensorData out = run("batched_row_sum", {{"x", tensor({1, 1, 2, 4}, {0, 1, 2, 3, 4, 5, 6, 7})}}).output.tensor;
    CHECK(out.shape == Shape{1, 1, 2});
    CHECK(out.data == std::vector<float>{6, 22});
    const Value x = random_tensor({2, 3, 5, 37}, 7);
    const TensorData sums = run("batched_row_sum", {{"x", x}}).output.tensor;
    REQUIRE(sums.shape == Shape{2, 3, 5});
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t h = 0; h < 3; ++h)
            for (int64_t r = 0; r < 5; ++r) {
                double s = 0;
                for (double v : row_of(x.tensor, b, h, r)) s += v;
                CHECK(at(sums, {b, h, r}) == doctest::Approx(s).epsilon(1e-6));
            }
    CHECK(contains(error_of("batched_row_sum", {{"x", tensor({2, 3}, {1, 2, 3, 4, 5, 6})}}), "x"));
}

// Every row sum of batch 0 in `sums` against the sum of the elements of x's row that `kept` keeps (by index).
template <typename Kept>
void check_kept_sums(const TensorData& sums, const TensorData& x, Kept kept) {
    for (int64_t h = 0; h < x.shape[1]; ++h)
        for (int64_t r = 0; r < x.shape[2]; ++r) {
            const std::vector<double> row = row_of(x, 0, h, r);
            double s = 0;
            for (size_t j = 0; j < row.size(); ++j)
                if (kept(static_cast<int64_t>(j))) s += row[j];
            CHECK(at(sums, {0, h, r}) == doctest::Approx(s).epsilon(1e-6));
        }
}

TEST_CASE("row_sum_no_stride_loop: each row cut after a block's worth of elements, 32 to 1024") {
    // N = 100: the 32- and 64-thread forms lose the tail, the others sum it all.
    const Value x = random_tensor({1, 2, 3, 100}, 8);
    const TensorData right = run("batched_row_sum", {{"x", x}}).output.tensor;
    const int64_t threads[] = {32, 64, 128, 256, 512, 1024};
    for (size_t n = 0; n < 6; ++n) {
        CAPTURE(threads[n]);
        const TensorData cut = run_form("batched_row_sum", "row_sum_no_stride_loop", n, {{"x", x}}).output.tensor;
        REQUIRE(cut.shape == right.shape);
        check_kept_sums(cut, x.tensor, [&](int64_t j) { return j < threads[n]; });
        CHECK(near(cut, right, 1e-4) == (threads[n] >= 100));
    }
    CHECK(run_form("batched_row_sum", "row_sum_no_stride_loop", 0, {{"x", tensor({1, 1, 1, 2}, {1, 2})}}).output.tensor.data ==
          std::vector<float>{3});
}

TEST_CASE("row_sum_no_stride_loop: a striding block that combines only its first threads' partial sums") {
    // N = 600: a block of 256 threads striding the row, thread t adds elements t, t + 256, t + 512; combining only
    // the first 4 warps' sums (128 threads) keeps elements 0-127, 256-383 and 512-599, which no cut row equals.
    // Every pair leaves something out: the widest, 512 of a 1024-thread block, drops 512-599.
    const Value x = random_tensor({1, 2, 3, 600}, 9);
    const TensorData right = run("batched_row_sum", {{"x", x}}).output.tensor;
    const Op& op = op_of("batched_row_sum");
    size_t form = 6;  // after the six cut rows, in order of block size, then of threads combined
    for (int64_t threads = 64; threads <= 1024; threads *= 2)
        for (int64_t combined = 32; combined < threads; combined *= 2, ++form) {
            CAPTURE(threads);
            CAPTURE(combined);
            REQUIRE(form < op.mistakes.size());
            const TensorData some = run_form("batched_row_sum", "row_sum_no_stride_loop", form, {{"x", x}}).output.tensor;
            REQUIRE(some.shape == right.shape);
            check_kept_sums(some, x.tensor, [&](int64_t j) { return j % threads < combined; });
            CHECK_FALSE(near(some, right, 1e-4));
        }
    CHECK(form == op.mistakes.size());
    // The 256-thread block combining 128 threads' sums, on a row no longer than the block: the row cut after 128.
    const Value short_rows = random_tensor({1, 1, 2, 200}, 10);
    const size_t block_256_of_128 = 6 + 1 + 2 + 2;  // after the 64- and 128-thread blocks' forms: 32 then 64 then 128
    CHECK(near(run_form("batched_row_sum", "row_sum_no_stride_loop", block_256_of_128, {{"x", short_rows}}).output.tensor,
               run_form("batched_row_sum", "row_sum_no_stride_loop", 2, {{"x", short_rows}}).output.tensor, 1e-6));
}

TEST_CASE("the online loop's mistakes in a kernel: each (b, h) slice is the one-head op's mistake, per tile size") {
    const Shape s{2, 2, 21, 4};  // T = 21: a partial last tile for every size but 128
    const Inputs in = qkv_in(random_tensor(s, 61, 3.0), random_tensor(s, 62, 3.0), random_tensor(s, 63));
    const TensorData right = run("batched_causal_attention", in).output.tensor;
    const int64_t tiles[] = {1, 4, 8, 16, 32, 64, 128};
    for (const char* id : {"online_no_rescale", "online_rescale_inverted", "online_diagonal_chunk_unmasked"})
        for (size_t n = 0; n < 7; ++n) {
            const bool has_tile_1 = std::string(id) != "online_diagonal_chunk_unmasked";
            if (n == 0 && !has_tile_1) continue;
            const std::string mistake_id = id;  // captured as text, not as a pointer
            CAPTURE(mistake_id);
            CAPTURE(tiles[n]);
            const TensorData r = run_form("batched_causal_attention", id, has_tile_1 ? n : n - 1, in).output.tensor;
            REQUIRE(r.shape == s);
            for (int64_t b = 0; b < 2; ++b)
                for (int64_t h = 0; h < 2; ++h) {
                    const Inputs head{{"q", Value::of_tensor(slice(in.at("q").tensor, b, h))},
                                      {"k", Value::of_tensor(slice(in.at("k").tensor, b, h))},
                                      {"v", Value::of_tensor(slice(in.at("v").tensor, b, h))},
                                      {"chunk", Value::of_int(tiles[n])}};
                    CHECK(near(slice(r, b, h), run_mistake("online_causal_attention", id, head).output.tensor, 1e-5));
                }
            // One tile holding every key hides a missing rescale; a smaller one shows it.
            if (std::string(id) == "online_no_rescale") CHECK(near(r, right, 1e-4) == (tiles[n] >= 21));
            else CHECK_FALSE(near(r, right, 1e-4));
        }
}

TEST_CASE("the other forms: one future key, an empty row of zeros, the swap on store, q and k read as (B, H, T, hd)") {
    SUBCASE("causal_softmax, mask_misses_first_future_key: row i over keys 0..i+1") {
        const Inputs in = scores_in(tensor({1, 1, 3, 3}, {0, 0, 5, 1, 1, 1, 2, 2, 2}));
        const TensorData r = run_mistake("causal_softmax", "mask_misses_first_future_key", in).output.tensor;
        check_row(r, 0, 0, 0, {0.5, 0.5, 0});  // key 2 is two ahead: hidden
        check_row(r, 0, 0, 1, {1.0 / 3, 1.0 / 3, 1.0 / 3});
        check_row(r, 0, 0, 2, {1.0 / 3, 1.0 / 3, 1.0 / 3});
    }
    SUBCASE("causal_softmax, mask_includes_diagonal with the empty row written as zeros") {
        const Inputs in = scores_in(tensor({1, 1, 3, 3}, {7, 7, 7, 1, 9, 9, 2, 2, 9}));
        const TensorData r = run_form("causal_softmax", "mask_includes_diagonal", 1, in).output.tensor;
        check_row(r, 0, 0, 0, {0, 0, 0});
        check_row(r, 0, 0, 1, {1, 0, 0});
        check_row(r, 0, 0, 2, {0.5, 0.5, 0});
    }
    SUBCASE("batched_causal_attention, mask_misses_first_future_key: query i also mixes value i + 1") {
        // q = 0: equal scores, so query i averages the values it sees.
        const Value q = tensor({1, 1, 3, 1}, {0, 0, 0}), k = tensor({1, 1, 3, 1}, {1, 2, 3}), v = tensor({1, 1, 3, 1}, {3, 6, 9});
        const TensorData r = run_mistake("batched_causal_attention", "mask_misses_first_future_key", qkv_in(q, k, v)).output.tensor;
        CHECK(r.data == std::vector<float>{4.5f, 6.0f, 6.0f});
        CHECK(run("batched_causal_attention", qkv_in(q, k, v)).output.tensor.data == std::vector<float>{3.0f, 4.5f, 6.0f});
    }
    SUBCASE("batched_causal_attention, block_mapping_swapped on store: block l writes slice (l % B)·H + l / B") {
        const Shape s{2, 3, 3, 2};
        const Inputs in = qkv_in(random_tensor(s, 41), random_tensor(s, 42), random_tensor(s, 43));
        const TensorData right = run("batched_causal_attention", in).output.tensor;
        const TensorData r = run_form("batched_causal_attention", "block_mapping_swapped", 1, in).output.tensor;
        for (int64_t l = 0; l < 6; ++l) {
            const int64_t dest = (l % 2) * 3 + l / 2;
            CAPTURE(l);
            CHECK(near(slice(r, dest / 3, dest % 3), slice(right, l / 3, l % 3), 0.0));
        }
        // Not the swap on read: slice 1 holds block 2's attention there, block 3's here.
        CHECK_FALSE(near(r, run_form("batched_causal_attention", "block_mapping_swapped", 0, in).output.tensor, 1e-3));
    }
    SUBCASE("attention_scores_untransposed, layout_read_as_bhtd: the buffer taken as (B, H, T, hd)") {
        const Value q = random_tensor({2, 3, 2, 4}, 51), k = random_tensor({2, 3, 2, 4}, 52);  // (B, T, H, hd)
        Value q_as = q, k_as = k;  // the same floats, shaped as the mistake reads them
        q_as.tensor.shape = k_as.tensor.shape = Shape{2, 2, 3, 4};
        const TensorData r = run_mistake("attention_scores_untransposed", "layout_read_as_bhtd", qk_in(q, k)).output.tensor;
        CHECK(near(r, run("batched_attention_scores", qk_in(q_as, k_as)).output.tensor, 1e-6));
        CHECK_FALSE(near(r, run("attention_scores_untransposed", qk_in(q, k)).output.tensor, 1e-3));
    }
}

// ------------------------------------- softmax without its max, in a kernel

TEST_CASE("softmax_without_max in the CUDA ops: NaN where a float kernel overflows, 0 for the future keys") {
    // Row 0 of slice 0 is 3000 (exp overflows), row 1 ordinary; slice 1 row 0 is -7000 (exp underflows).
    const Inputs in = scores_in(tensor({1, 2, 2, 2}, {3000, 9, 1, 2, -7000, 5, 0.5, 1}));
    const TensorData right = run("causal_softmax", in).output.tensor;
    CHECK(row_of(right, 0, 0, 0) == std::vector<double>{1, 0});
    bool matched_overflow = false, matched_underflow = false;
    for (const Mistake& m : op_of("causal_softmax").mistakes) {
        if (m.id != "softmax_without_max") continue;
        const TensorData w = m.run(in).output.tensor;
        CHECK(at(w, {0, 0, 0, 1}) == 0.0);  // a future key is 0, even in a NaN row
        CHECK(at(w, {0, 1, 0, 1}) == 0.0);
        check_row(w, 0, 0, 1, softmax({1, 2}));
        matched_overflow |= std::isnan(at(w, {0, 0, 0, 0}));
        matched_underflow |= std::isnan(at(w, {0, 1, 0, 0}));
    }
    CHECK(matched_overflow);   // exp(x) with nothing subtracted
    CHECK(matched_underflow);  // a max that starts at 0
    // Attention: q·k of 2000 (scale 1/2) overflows without the max; the small case agrees with the op.
    const Inputs big = qkv_in(tensor({1, 1, 1, 4}, {100, 0, 0, 0}), tensor({1, 1, 1, 4}, {40, 0, 0, 0}),
                              tensor({1, 1, 1, 4}, {1, 2, 3, 4}));
    const Mistake* unstable = find_mistake("batched_causal_attention", "softmax_without_max");
    REQUIRE(unstable != nullptr);
    CHECK(std::isnan(unstable->run(big).output.tensor.data[0]));
    CHECK(near(unstable->run(worked_attention()).output.tensor, run("batched_causal_attention", worked_attention()).output.tensor, 1e-5));
}
