// The step exercises (qkv-projections, fused-qkv, scaled-scores, stable-softmax,
// weighted-sum) and their mistake catalogue: each variant computes what its
// mistake says; every mistake an exercise lists has words and a wrong fixture;
// a case of the exercise separates it from the right answer beyond the
// exercise's tolerance (and from the exercise's other mistakes, so that a
// diagnosis made on the first failing case is not ambiguous); the softmax
// exercise has stability cases that a softmax without the max subtraction
// cannot survive in float32.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
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

const char* const kStepExercises[] = {"qkv-projections", "fused-qkv", "scaled-scores", "stable-softmax",
                                      "weighted-sum"};
constexpr float kInf = std::numeric_limits<float>::infinity();







Value tensor(Shape shape, std::vector<float> data) {
    return Value::of_tensor(TensorData(std::move(shape), std::move(data)));
}

Value from(const Matrix& m) {
    TensorData t = TensorData::zeros({m.rows(), m.cols()});
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            t.data[static_cast<size_t>(i * m.cols() + j)] = static_cast<float>(m(i, j));
    return Value::of_tensor(t);
}

// Reproducible values in [-1, 1], rounded to float so that Eigen and the ops
// see the same numbers.
Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
    std::srand(seed);
    return Matrix::Random(rows, cols).cast<float>().cast<double>();
}

Value run_mistake(const std::string& op, const std::string& id, const Inputs& in) {
    const Mistake* m = find_mistake(op, id);
    REQUIRE_MESSAGE(m != nullptr, (op + ": " + id));
    return m->run(in).output;
}

Value run_op(const std::string& op, const Inputs& in) {
    const Op* o = find_op(op);
    REQUIRE(o != nullptr);
    return o->run(in).output;
}

// Tight enough to tell every variant apart on hand-made inputs.
const Tolerance kTight = [] {
    Tolerance t;
    t.atol = 1e-5;
    t.rtol = 1e-5;
    return t;
}();

// The softmax formula written literally, in float, as learner code without
// the max subtraction computes it.
std::vector<float> literal_softmax_float(const TensorData& x) {
    const int64_t n = x.shape.back();
    std::vector<float> out(x.data.size());
    for (size_t row = 0; row < x.data.size(); row += static_cast<size_t>(n)) {
        float sum = 0.0f;
        for (int64_t j = 0; j < n; ++j) sum += out[row + j] = std::exp(x.data[row + j]);
        for (int64_t j = 0; j < n; ++j) out[row + j] /= sum;
    }
    return out;
}

}  // namespace

// ---------------------------------------------------------- the catalogue data

TEST_CASE("step exercises: every listed mistake is a variant of the exercise's op and has words") {
    INFO((course().problems.empty() ? std::string() : course().problems[0]));
    for (const char* id : kStepExercises) {
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
        // And the op has no variant the exercise forgot to list, but forms only a CUDA kernel of
        // the op makes (a WMMA fragment's layout), which a CUDA exercise of the same op lists.
        std::vector<std::string> cuda_listed;
        for (const Exercise& other : course().exercises)
            if (other.reference == e.reference && other.runtime == Runtime::Cuda)
                for (const MistakeSpec& spec : other.mistakes) cuda_listed.push_back(spec.id);
        for (const Mistake& m : find_op(e.reference)->mistakes) {
            const bool listed = std::find(mistakes.begin(), mistakes.end(), m.id) != mistakes.end();
            const bool cuda_form = std::find(cuda_listed.begin(), cuda_listed.end(), m.id) != cuda_listed.end();
            CHECK_MESSAGE((listed || cuda_form), m.id);
        }
    }
}

TEST_CASE("step exercises: one wrong fixture per mistake, a correct variant, every file present") {
    for (const char* id : kStepExercises) {
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
        // At least one fixture per mistake; a mistake with several forms (the
        // softmax without its max: no shift, a max from 0, one global max) may have one each.
        for (const std::string& m : mistakes) CHECK_MESSAGE(expected.count(m) >= 1, m);
        CHECK(expected.count("pass") >= 1);
    }
    // The softmax exercise keeps the unstable softmax and the write into x.
    const std::string softmax = read_json(kCourse / "stable-softmax" / "exercise.json").dump();
    CHECK(softmax.find("wrong/unstable_softmax.cpp") != std::string::npos);
    CHECK(softmax.find("modified_input") != std::string::npos);
}

TEST_CASE("step exercises: the manifest lists them in the course order") {
    const std::vector<std::string> order = read_json(kCourse / "manifest.json")["exercises"];
    auto at = [&](const std::string& id) {
        const auto it = std::find(order.begin(), order.end(), id);
        REQUIRE_MESSAGE(it != order.end(), id);
        return it - order.begin();
    };
    // fused-qkv refers to split-heads' (T, 3, D) view, so it comes after it.
    CHECK(at("qkv-projections") < at("split-heads"));
    CHECK(at("split-heads") < at("fused-qkv"));
    CHECK(at("fused-qkv") < at("scaled-scores"));
    CHECK(at("scaled-scores") < at("causal-mask"));
    CHECK(at("causal-mask") < at("stable-softmax"));
    CHECK(at("stable-softmax") < at("weighted-sum"));
    CHECK(at("weighted-sum") < at("concat-project"));
}

// ------------------------------------------------- the cases separate them all

TEST_CASE("step exercises: a case separates every mistake from the answer and from the other mistakes") {
    for (const char* id : kStepExercises) {
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
            REQUIRE_MESSAGE(first >= 0, "no case of " << id << " tells " << m << " from the answer");
            const Inputs in = inputs_of(e, e.cases[static_cast<size_t>(first)]);
            const Value wrong = run_mistake(e.reference, m, in);
            // A finite wrong answer, so that the verdict is wrong_answer and
            // the runner goes on to name the mistake; except the softmax
            // without its max, named by its NaN on the stability case.
            if (m != "softmax_without_max")
                for (float v : wrong.tensor.data) CHECK(!std::isnan(v));
            for (const std::string& other : mistakes) {
                if (other == m) continue;
                CHECK_MESSAGE(!agree(wrong, run_mistake(e.reference, other, in), e.tolerance),
                              "case " << first << " cannot tell " << m << " from " << other);
            }
        }
    }
}

TEST_CASE("step exercises: edge shapes T = 1 everywhere, H = D where there are heads") {
    auto has_case = [](const Exercise& e, const std::function<bool(const Inputs&)>& pred) {
        for (const Case& c : e.cases)
            if (pred(inputs_of(e, c))) return true;
        return false;
    };
    auto dim = [](const Inputs& in, const char* name, size_t axis) { return in.at(name).tensor.shape.at(axis); };
    CHECK(has_case(exercise("qkv-projections"), [&](const Inputs& in) { return dim(in, "x", 0) == 1; }));
    CHECK(has_case(exercise("fused-qkv"), [&](const Inputs& in) { return dim(in, "x", 0) == 1; }));
    for (const char* id : {"scaled-scores", "weighted-sum"}) {
        CAPTURE(id);
        const char* per_head = std::string(id) == "scaled-scores" ? "q" : "v";
        CHECK(has_case(exercise(id), [&](const Inputs& in) { return dim(in, per_head, 1) == 1; }));  // T = 1
        CHECK(has_case(exercise(id), [&](const Inputs& in) { return dim(in, per_head, 2) == 1 && dim(in, per_head, 0) > 1; }));  // H = D
        CHECK(has_case(exercise(id), [&](const Inputs& in) { return dim(in, per_head, 0) == 1; }));  // H = 1
    }
    CHECK(has_case(exercise("stable-softmax"), [&](const Inputs& in) { return dim(in, "x", 1) == 1; }));
}

// ------------------------------------------------------- stability (softmax)

TEST_CASE("stable-softmax: stability cases in the thousands that only a max-subtracted softmax survives") {
    const Exercise& e = exercise("stable-softmax");
    int stability_cases = 0;
    bool huge_positive = false, all_large_negative = false, single_token = false, masked_zero = false;
    for (const Case& c : e.cases) {
        const Inputs in = inputs_of(e, c);
        const TensorData& x = in.at("x").tensor;
        const Value right = run_op(e.reference, in);
        // The right answer is finite, and a -inf logit gets exactly 0.
        for (size_t i = 0; i < x.data.size(); ++i) {
            CHECK(std::isfinite(right.tensor.data[i]));
            if (x.data[i] == -kInf) {
                CHECK(right.tensor.data[i] == 0.0f);
                masked_zero = true;
            }
        }
        float largest = 0.0f;
        for (float v : x.data)
            if (std::isfinite(v)) largest = std::max(largest, std::fabs(v));
        const std::vector<float> literal = literal_softmax_float(x);
        const bool literal_breaks = std::any_of(literal.begin(), literal.end(), [](float v) { return !std::isfinite(v); });
        if (largest >= 1000.0f) {
            ++stability_cases;
            CHECK_MESSAGE(literal_breaks, "a case with logits in the thousands that the literal softmax survives");
        } else {
            CHECK_FALSE(literal_breaks);  // the small cases do not need the trick
        }
        const int64_t n = x.shape.back();
        single_token = single_token || n == 1;
        for (size_t row = 0; row < x.data.size(); row += static_cast<size_t>(n)) {
            float row_max = -kInf;
            int huge = 0;
            for (int64_t j = 0; j < n; ++j) {
                row_max = std::max(row_max, x.data[row + j]);
                if (x.data[row + j] >= 1000.0f) ++huge;
            }
            if (huge == 1 && n > 1) huge_positive = true;
            if (row_max <= -1000.0f) all_large_negative = true;
        }
    }
    CHECK(stability_cases >= 1);
    CHECK(huge_positive);        // a row with one huge value
    CHECK(all_large_negative);   // a row whose values are all large and negative: exp underflows to 0/0
    CHECK(single_token);
    CHECK(masked_zero);
}

// ------------------------------------------------ each variant is its mistake

TEST_CASE("qkv_projection variant: X · Wᵀ for every projection") {
    const Matrix x = random_matrix(3, 4, 1), w_q = random_matrix(4, 4, 2), w_k = random_matrix(4, 4, 3),
                 w_v = random_matrix(4, 4, 4);
    auto inputs = [&](const Matrix& q, const Matrix& k, const Matrix& v) {
        return Inputs{{"x", from(x)}, {"w_q", from(q)}, {"w_k", from(k)}, {"w_v", from(v)}};
    };
    const Inputs in = inputs(w_q, w_k, w_v);
    const Value wrong = run_mistake("qkv_projection", "projection_weights_transposed", in);
    CHECK(agree(wrong, run_op("qkv_projection", inputs(w_q.transpose(), w_k.transpose(), w_v.transpose())), kTight));
    CHECK_FALSE(agree(wrong, run_op("qkv_projection", in), kTight));
    // Its stages are the wrong Q, K, V, under the op's stage names.
    const Result r = find_mistake("qkv_projection", "projection_weights_transposed")->run(in);
    REQUIRE(r.stages.size() == 3);
    CHECK(r.stages[0].name == "Q");
    CHECK(agree(Value::of_tensor(r.stages[0].tensor), from(x * w_q.transpose()), kTight));
    // Bad inputs are refused like the op refuses them.
    CHECK_THROWS_AS(run_mistake("qkv_projection", "projection_weights_transposed", inputs(w_q, w_k, random_matrix(4, 3, 5))),
                    ReferenceError);
}

TEST_CASE("fused_qkv variants: the (T, 3D) product split without the transpose or interleaved") {
    // The first case of fused-qkv: X · W_QKV = rows 1…6, 7…12, 8 10 … 18.
    const Inputs in{{"x", tensor({3, 2}, {1, 0, 0, 1, 1, 1})},
                    {"w_qkv", tensor({2, 6}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})}};
    CHECK(agree(run_op("fused_qkv", in),
                tensor({3, 3, 2}, {1, 2, 7, 8, 8, 10, 3, 4, 9, 10, 12, 14, 5, 6, 11, 12, 16, 18}), kTight));
    // The buffer 1…6, 7…12, 8…18 read as (3, 3, 2).
    CHECK(agree(run_mistake("fused_qkv", "qkv_split_without_transpose", in),
                tensor({3, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 8, 10, 12, 14, 16, 18}), kTight));
    // Q = columns 0 and 3, K = 1 and 4, V = 2 and 5.
    CHECK(agree(run_mistake("fused_qkv", "qkv_interleaved", in),
                tensor({3, 3, 2}, {1, 4, 7, 10, 8, 14, 2, 5, 8, 11, 10, 16, 3, 6, 9, 12, 12, 18}), kTight));
    // The qkv stage itself is right in both: the split is what departs.
    for (const char* id : {"qkv_split_without_transpose", "qkv_interleaved"}) {
        const Result r = find_mistake("fused_qkv", id)->run(in);
        REQUIRE_FALSE(r.stages.empty());
        CHECK(r.stages[0].name == "qkv");
        CHECK(r.stages[0].tensor.data == find_op("fused_qkv")->run(in).stages[0].tensor.data);
        CHECK(find_mistake("fused_qkv", id)->stage == "Q");
    }
}

TEST_CASE("fused_qkv variant: W_QKV's buffer read as nn.Linear's (out, in) = (3D, D), then X · (that)ᵀ") {
    const Inputs in{{"x", tensor({3, 2}, {1, 0, 0, 1, 1, 1})},
                    {"w_qkv", tensor({2, 6}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})}};
    // 1…12 read as six rows of two: (1, 2), (3, 4), … (11, 12). Token (1, 0)
    // gets the first of each: 1, 3, 5, 7, 9, 11; token (0, 1) the second;
    // token (1, 1) their sums.
    std::vector<const Mistake*> forms;
    for (const Mistake& m : find_op("fused_qkv")->mistakes)
        if (m.id == "projection_weights_transposed") forms.push_back(&m);
    REQUIRE(forms.size() == 2);
    const Result r = forms[1]->run(in);
    CHECK(agree(Value::of_tensor(r.output.tensor),
                tensor({3, 3, 2}, {1, 3, 2, 4, 3, 7, 5, 7, 6, 8, 11, 15, 9, 11, 10, 12, 19, 23}), kTight));
    REQUIRE_FALSE(r.stages.empty());
    CHECK(r.stages[0].name == "qkv");
    CHECK(forms[1]->stage == "qkv");
    CHECK_FALSE(agree(Value::of_tensor(r.output.tensor), run_op("fused_qkv", in), kTight));
}

TEST_CASE("attention_scores variants: the scale and the orientation") {
    const int H = 3, T = 4, hd = 2;  // D = 6
    std::vector<Matrix> q, k;
    std::vector<TensorData> qs, ks;
    for (int h = 0; h < H; ++h) {
        q.push_back(random_matrix(T, hd, 10 + h));
        k.push_back(random_matrix(T, hd, 20 + h));
    }
    auto stacked = [](const std::vector<Matrix>& ms) {
        std::vector<float> data;
        for (const Matrix& m : ms)
            for (Eigen::Index i = 0; i < m.rows(); ++i)
                for (Eigen::Index j = 0; j < m.cols(); ++j) data.push_back(static_cast<float>(m(i, j)));
        return tensor({static_cast<int64_t>(ms.size()), ms[0].rows(), ms[0].cols()}, data);
    };
    const Inputs in{{"q", stacked(q)}, {"k", stacked(k)}};
    auto scores_divided_by = [&](double divisor, bool transposed) {
        std::vector<Matrix> s;
        for (int h = 0; h < H; ++h) {
            const Matrix m = q[static_cast<size_t>(h)] * k[static_cast<size_t>(h)].transpose() / divisor;
            s.push_back(transposed ? Matrix(m.transpose()) : m);
        }
        return stacked(s);
    };
    CHECK(agree(run_op("attention_scores", in), scores_divided_by(std::sqrt(2.0), false), kTight));
    CHECK(agree(run_mistake("attention_scores", "scale_sqrt_d", in), scores_divided_by(std::sqrt(6.0), false), kTight));
    CHECK(agree(run_mistake("attention_scores", "no_scale", in), scores_divided_by(1.0, false), kTight));
    CHECK(agree(run_mistake("attention_scores", "scale_by_hd", in), scores_divided_by(2.0, false), kTight));
    CHECK(agree(run_mistake("attention_scores", "scores_transposed", in), scores_divided_by(std::sqrt(2.0), true), kTight));
    // Mismatched q and k are refused like the op refuses them.
    const Inputs bad{{"q", stacked(q)}, {"k", tensor({3, 4, 3}, std::vector<float>(36, 1.0f))}};
    for (const Mistake& m : find_op("attention_scores")->mistakes) CHECK_THROWS_AS(m.run(bad), ReferenceError);
}

TEST_CASE("softmax_rows variant: over the second-to-last axis, NaN like float code where a column is all -inf") {
    // Rows [0, 0], [ln 3, -inf]: column 0 is softmax([0, ln 3]) = [0.25, 0.75],
    // column 1 is softmax([0, -inf]) = [1, 0].
    const float ln3 = std::log(3.0f);
    const Inputs in{{"x", tensor({1, 2, 2}, {0, 0, ln3, -kInf})}};
    CHECK(agree(run_mistake("softmax_rows", "softmax_wrong_axis", in), tensor({1, 2, 2}, {0.25f, 1, 0.75f, 0}), kTight));
    CHECK(agree(run_op("softmax_rows", in), tensor({1, 2, 2}, {0.5f, 0.5f, 1, 0}), kTight));
    // A rank-2 input works too; a column with no finite entry gives NaN.
    const Inputs flat{{"x", tensor({2, 2}, {1, -kInf, 1, -kInf})}};
    const Value columns = run_mistake("softmax_rows", "softmax_wrong_axis", flat);
    CHECK(columns.tensor.data[0] == doctest::Approx(0.5));
    CHECK(std::isnan(columns.tensor.data[1]));
    // Every column of a random (T, T) input sums to 1.
    const Inputs random_in{{"x", from(random_matrix(5, 5, 7) * 50.0)}};
    const TensorData w = run_mistake("softmax_rows", "softmax_wrong_axis", random_in).tensor;
    for (int j = 0; j < 5; ++j) {
        double column = 0;
        for (int i = 0; i < 5; ++i) column += w.data[static_cast<size_t>(i * 5 + j)];
        CHECK(column == doctest::Approx(1.0).epsilon(1e-5));
    }
    // A single axis has no other axis to get wrong.
    CHECK_THROWS_AS(run_mistake("softmax_rows", "softmax_wrong_axis", Inputs{{"x", tensor({3}, {1, 2, 3})}}), ReferenceError);
}

TEST_CASE("attend variant: weightsᵀ · V per head") {
    const Matrix w0 = random_matrix(3, 3, 31), w1 = random_matrix(3, 3, 32);
    const Matrix v0 = random_matrix(3, 2, 33), v1 = random_matrix(3, 2, 34);
    auto stack2 = [](const Matrix& a, const Matrix& b) {
        TensorData t = from(a).tensor;
        const TensorData u = from(b).tensor;
        t.data.insert(t.data.end(), u.data.begin(), u.data.end());
        t.shape.insert(t.shape.begin(), 2);
        return Value::of_tensor(t);
    };
    const Inputs in{{"weights", stack2(w0, w1)}, {"v", stack2(v0, v1)}};
    CHECK(agree(run_op("attend", in), stack2(w0 * v0, w1 * v1), kTight));
    CHECK(agree(run_mistake("attend", "weights_transposed", in), stack2(w0.transpose() * v0, w1.transpose() * v1), kTight));
    // Non-square weights have no transposed product with v.
    const Inputs wide{{"weights", tensor({1, 2, 3}, {1, 0, 0, 0.5f, 0.5f, 0})}, {"v", tensor({1, 3, 2}, {1, 2, 3, 4, 5, 6})}};
    CHECK_NOTHROW(run_op("attend", wide));
    CHECK_THROWS_AS(run_mistake("attend", "weights_transposed", wide), ReferenceError);
}
