// The mistake catalogue of the core exercises (split-heads, causal-mask,
// concat-project, causal-mhsa): each variant computes what its mistake says,
// every mistake an exercise lists has words, a wrong fixture and a case of the
// exercise that separates it from the right answer beyond the exercise's
// tolerance (and from the exercise's other mistakes, so that a diagnosis made
// on the first failing case is not ambiguous).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attnlab/core/course/course.hpp"
#include "course_support.hpp"
#include "attnlab/reference/ops.hpp"
#include "attnlab/reference/registry.hpp"

using namespace attnlab;
using namespace attnlab::reference;
using namespace attnlab::testing;
using json = nlohmann::json;

namespace {

const char* const kCoreExercises[] = {"split-heads", "causal-mask", "concat-project", "causal-mhsa"};







Value tensor(Shape shape, std::vector<float> data) { return Value::of_tensor(TensorData(std::move(shape), std::move(data))); }

Value from(const Matrix& m) {
    TensorData t = TensorData::zeros({m.rows(), m.cols()});
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j) t.data[static_cast<size_t>(i * m.cols() + j)] = static_cast<float>(m(i, j));
    return Value::of_tensor(t);
}

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
    std::srand(seed);
    return Matrix::Random(rows, cols);
}

Value run_mistake(const std::string& op, const std::string& id, const Inputs& in) {
    const Mistake* m = find_mistake(op, id);
    INFO(op << ": " << id);
    REQUIRE(m != nullptr);
    return m->run(in).output;
}

Value run_op(const std::string& op, const Inputs& in) {
    const Op* o = find_op(op);
    REQUIRE(o != nullptr);
    return o->run(in).output;
}

const Tolerance kTight{1e-5, 1e-5};

}  // namespace

// ---------------------------------------------------------- the catalogue data

TEST_CASE("core exercises: every listed mistake is a variant of the exercise's op and has words") {
    INFO((course().problems.empty() ? std::string() : course().problems.front()));
    REQUIRE(course().problems.empty());
    for (const char* id : kCoreExercises) {
        CAPTURE(id);
        const Exercise& e = exercise(id);
        const std::vector<std::string> mistakes = listed_mistakes(id);
        CHECK_FALSE(mistakes.empty());
        for (const std::string& m : mistakes) {
            CAPTURE(m);
            CHECK(find_mistake(e.reference, m) != nullptr);
            const json words = read_json(kCourse / "mistakes" / (m + ".json"));
            for (const char* field : {"title", "message"})
                for (const char* lang : {"en", "id"}) {
                    REQUIRE(words.contains(field));
                    CHECK_FALSE(words[field].value(lang, std::string()).empty());
                }
        }
        // The stage a mistake points at is one the op records (or none for an
        // op without stages), so the Stages view can show it.
        const Result right = find_op(e.reference)->run(inputs_of(e, e.cases.front()));
        for (const Mistake& m : find_op(e.reference)->mistakes) {
            CAPTURE(m.id);
            if (right.stages.empty()) CHECK(m.stage.empty());
            else CHECK(std::any_of(right.stages.begin(), right.stages.end(), [&](const NamedTensor& s) { return s.name == m.stage; }));
        }
        // And the op has no variant the exercise forgot to list.
        for (const Mistake& m : find_op(e.reference)->mistakes)
            CHECK_MESSAGE(std::find(mistakes.begin(), mistakes.end(), m.id) != mistakes.end(), m.id);
    }
}

TEST_CASE("core exercises: a wrong fixture for every mistake, each file present, expectations well formed") {
    for (const char* id : kCoreExercises) {
        CAPTURE(id);
        const json j = read_json(kCourse / id / "exercise.json");
        REQUIRE(j.contains("fixtures"));
        REQUIRE(j["tolerance"].contains("why"));
        CHECK(j["tolerance"]["why"].get<std::string>().size() > 20);
        const std::vector<std::string> mistakes = listed_mistakes(id);
        std::multiset<std::string> expected;
        for (const json& f : j["fixtures"]) {
            const std::string file = f["file"].get<std::string>(), expect = f["expect"].get<std::string>();
            CAPTURE(file);
            CHECK(fs::is_regular_file(kCourse / id / file));
            CHECK((kVerdicts.count(expect) || std::find(mistakes.begin(), mistakes.end(), expect) != mistakes.end()));
            CHECK((file.rfind(expect == "pass" ? "right/" : "wrong/", 0) == 0));
            expected.insert(expect);
        }
        for (const std::string& m : mistakes) CHECK_MESSAGE(expected.count(m) >= 1, m);  // more for its other forms
        CHECK(expected.count("pass") >= 1);  // a correct alternative to the solution
    }
    // Writing into the caller's scores is caught, and a softmax without the max
    // is named (from the stability case, not left a bare non_finite).
    CHECK(read_json(kCourse / "causal-mask" / "exercise.json").dump().find("modified_input") != std::string::npos);
    CHECK(read_json(kCourse / "causal-mhsa" / "exercise.json")["fixtures"].dump().find("softmax_without_max") != std::string::npos);
}

// ------------------------------------------------- the cases separate them all

TEST_CASE("core exercises: a case separates every mistake from the answer and from the other mistakes") {
    for (const char* id : kCoreExercises) {
        const Exercise& e = exercise(id);
        const std::vector<std::string> mistakes = listed_mistakes(id);
        for (const std::string& m : mistakes) {
            CAPTURE(id);
            CAPTURE(m);
            // The first case where the variant fails is where a fixture making
            // this mistake fails first, and where the runner looks for a match.
            int first = -1;
            for (size_t c = 0; c < e.cases.size() && first < 0; ++c) {
                const Inputs in = inputs_of(e, e.cases[c]);
                if (!agree(run_mistake(e.reference, m, in), run_op(e.reference, in), e.tolerance))
                    first = static_cast<int>(c);
            }
            REQUIRE_MESSAGE(first >= 0, "no case of " << std::string(id) << " tells " << m << " from the answer");
            const Inputs in = inputs_of(e, e.cases[static_cast<size_t>(first)]);
            const Value wrong = run_mistake(e.reference, m, in);
            for (const std::string& other : mistakes) {
                if (other == m) continue;
                CHECK_MESSAGE(!agree(wrong, run_mistake(e.reference, other, in), e.tolerance),
                              "case " << first << " cannot tell " << m << " from " << other);
            }
        }
    }
}

TEST_CASE("causal-mhsa: a stability case has logits in the thousands that only a max-subtracted softmax survives") {
    const Exercise& e = exercise("causal-mhsa");
    bool found = false;
    for (const Case& c : e.cases) {
        const Result r = find_op(e.reference)->run(inputs_of(e, c));
        for (const NamedTensor& stage : r.stages) {
            if (stage.name != "masked") continue;
            float largest = 0.0f;
            for (float v : stage.tensor.data)
                if (std::isfinite(v)) largest = std::max(largest, std::fabs(v));
            // exp overflows float beyond ~88.7: a softmax without the max gives inf/inf.
            if (largest >= 1000.0f && std::isinf(std::exp(largest))) found = true;
        }
        // And the answer itself stays finite: the right softmax passes it.
        for (float v : r.output.tensor.data) CHECK(std::isfinite(v));
    }
    CHECK(found);
}

// ------------------------------------------------ each variant is its mistake

TEST_CASE("split_heads variants: no transpose reads whole rows, interleaving takes every H-th column") {
    // x = 0…7 as (2, 4), 2 heads of 2.
    const Inputs in{{"x", tensor({2, 4}, {0, 1, 2, 3, 4, 5, 6, 7})}, {"n_heads", Value::of_int(2)}};
    CHECK(agree(run_op("split_heads", in), tensor({2, 2, 2}, {0, 1, 4, 5, 2, 3, 6, 7}), kTight));
    CHECK(agree(run_mistake("split_heads", "split_without_transpose", in), tensor({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}), kTight));
    CHECK(agree(run_mistake("split_heads", "heads_interleaved", in), tensor({2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7}), kTight));
}

TEST_CASE("causal_mask variants, on scores 0…8") {
    const float inf = std::numeric_limits<float>::infinity();
    const Inputs in{{"scores", tensor({1, 3, 3}, {0, 1, 2, 3, 4, 5, 6, 7, 8})}};
    auto is = [&](const char* id, std::vector<float> data) {
        CAPTURE(id);
        CHECK(agree(run_mistake("causal_mask", id, in), tensor({1, 3, 3}, std::move(data)), kTight));
    };
    is("mask_includes_diagonal", {-inf, -inf, -inf, 3, -inf, -inf, 6, 7, -inf});
    is("mask_misses_first_future_key", {0, 1, -inf, 3, 4, 5, 6, 7, 8});
    is("mask_with_zero", {0, 0, 0, 3, 4, 0, 6, 7, 8});
    is("mask_with_large_negative", {0, -1e9f, -1e9f, 3, 4, -1e9f, 6, 7, 8});
    is("mask_below_diagonal", {0, 1, 2, -inf, 4, 5, -inf, -inf, 8});
    // A (T, T) matrix works as well as (H, T, T), like the op.
    const Inputs flat{{"scores", tensor({2, 2}, {1, 2, 3, 4})}};
    CHECK(agree(run_mistake("causal_mask", "mask_with_zero", flat), tensor({2, 2}, {1, 0, 3, 4}), kTight));
}

TEST_CASE("merge_project variants: the merge's layout and W_O") {
    // heads (2, 2, 2) = 0…7, w_o a shear so that W_O and W_Oᵀ differ.
    const Value heads = tensor({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
    Matrix w_o = Matrix::Identity(4, 4);
    w_o(0, 3) = 1.0;
    const Inputs in{{"heads", heads}, {"w_o", from(w_o)}};
    Matrix concat(2, 4), flat(2, 4), interleaved(2, 4);
    concat << 0, 1, 4, 5, 2, 3, 6, 7;
    flat << 0, 1, 2, 3, 4, 5, 6, 7;
    interleaved << 0, 4, 1, 5, 2, 6, 3, 7;
    CHECK(agree(run_op("merge_project", in), from(concat * w_o), kTight));
    CHECK(agree(run_mistake("merge_project", "merge_without_transpose", in), from(flat * w_o), kTight));
    CHECK(agree(run_mistake("merge_project", "heads_interleaved", in), from(interleaved * w_o), kTight));
    CHECK(agree(run_mistake("merge_project", "w_o_forgotten", in), from(concat), kTight));
    CHECK(agree(run_mistake("merge_project", "w_o_transposed", in), from(concat * w_o.transpose()), kTight));
}

TEST_CASE("causal_mhsa variants equal the right layer run on changed inputs") {
    const int T = 5, D = 6, H = 3;  // hd = 2
    const Matrix x = random_matrix(T, D, 1), w_q = random_matrix(D, D, 2), w_k = random_matrix(D, D, 3),
                 w_v = random_matrix(D, D, 4), w_o = random_matrix(D, D, 5);
    auto inputs = [&](const Matrix& q, const Matrix& k, const Matrix& v, const Matrix& o) {
        return Inputs{{"x", from(x)}, {"w_q", from(q)}, {"w_k", from(k)}, {"w_v", from(v)}, {"w_o", from(o)},
                      {"n_heads", Value::of_int(H)}};
    };
    const Inputs in = inputs(w_q, w_k, w_v, w_o);
    auto same = [&](const char* id, const Inputs& changed) {
        CAPTURE(id);
        const Value wrong = run_mistake("causal_mhsa", id, in);
        CHECK(agree(wrong, run_op("causal_mhsa", changed), kTight));
        CHECK_FALSE(agree(wrong, run_op("causal_mhsa", in), kTight));
    };
    // Scaling Q scales the scores: 1/√D is 1/√hd times √(hd/D); no scale is √hd times it.
    const Matrix wq_f = w_q.cast<float>().cast<double>();
    same("scale_sqrt_d", inputs(wq_f * std::sqrt(2.0 / D), w_k, w_v, w_o));
    same("no_scale", inputs(wq_f * std::sqrt(2.0), w_k, w_v, w_o));
    same("k_used_as_v", inputs(w_q, w_k, w_k, w_o));
    same("q_used_as_v", inputs(w_q, w_k, w_q, w_o));
    same("w_o_forgotten", inputs(w_q, w_k, w_v, Matrix::Identity(D, D)));
    same("w_o_transposed", inputs(w_q, w_k, w_v, w_o.transpose()));
    // Interleaved heads: head h owns columns h, h + H, …, which is the right
    // layer with those columns of W_Q, W_K, W_V (and rows of W_O) moved into blocks.
    Matrix blocks = Matrix::Zero(D, D);  // blocks(old column, new column) = 1
    for (int h = 0; h < H; ++h)
        for (int c = 0; c < 2; ++c) blocks(c * H + h, h * 2 + c) = 1.0;
    same("heads_interleaved", inputs(w_q * blocks, w_k * blocks, w_v * blocks, blocks.transpose() * w_o));

    // The mask and softmax mistakes, read from the variant's own stages.
    auto stage = [&](const char* id, const char* name) {
        for (const NamedTensor& s : find_mistake("causal_mhsa", id)->run(in).stages)
            if (s.name == name) return s.tensor;
        FAIL("no stage " << name);
        return TensorData();
    };
    auto at = [](const TensorData& t, int64_t h, int64_t i, int64_t j) { return t.data[static_cast<size_t>(t.offset({h, i, j}))]; };
    const TensorData after = stage("mask_after_softmax", "weights");
    const TensorData columns = stage("softmax_wrong_axis", "weights");
    const TensorData zero = stage("mask_with_zero", "masked");
    const TensorData late = stage("mask_misses_first_future_key", "masked");
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < T; ++i) {
            double after_row = 0, column = 0;
            for (int64_t j = 0; j < T; ++j) {
                after_row += at(after, h, i, j);
                column += at(columns, h, j, i);  // column i of the weights
                if (j > i) {
                    CHECK(at(after, h, i, j) == 0.0f);
                    CHECK(at(zero, h, i, j) == 0.0f);
                    CHECK((j == i + 1) != std::isinf(at(late, h, i, j)));
                }
            }
            // The future's share is lost, not renormalised away; columns sum to 1.
            if (i + 1 < T) CHECK(after_row < 1.0 - 1e-6);
            CHECK(column == doctest::Approx(1.0).epsilon(1e-5));
        }
    // A mask that hides the diagonal leaves token 0 with nothing: NaN, as in float code.
    const Value diagonal = run_mistake("causal_mhsa", "mask_includes_diagonal", in);
    for (int j = 0; j < D; ++j) CHECK(std::isnan(diagonal.tensor.data[static_cast<size_t>(j)]));
    for (size_t k = D; k < diagonal.tensor.data.size(); ++k) CHECK(std::isfinite(diagonal.tensor.data[k]));
}
