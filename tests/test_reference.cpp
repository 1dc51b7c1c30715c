// The Eigen reference: hand-computed cases, properties of attention, and the
// registry contract the runner relies on.
#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "attnlab/reference/ops.hpp"
#include "attnlab/reference/registry.hpp"

using namespace attnlab;
using namespace attnlab::reference;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Matrix mat(Eigen::Index rows, Eigen::Index cols, std::initializer_list<double> values) {
    REQUIRE(static_cast<Eigen::Index>(values.size()) == rows * cols);
    Matrix m(rows, cols);
    auto it = values.begin();
    for (Eigen::Index i = 0; i < rows; ++i)
        for (Eigen::Index j = 0; j < cols; ++j)
            m(i, j) = *it++;
    return m;
}

// Reproducible values in [-1, 1].
Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, unsigned seed) {
    std::srand(seed);
    return Matrix::Random(rows, cols);
}

// Values are stored as float: build them from double matrices through float.
Value tensor_value(const Matrix& m) {
    TensorData t = TensorData::zeros({m.rows(), m.cols()});
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            t.data[static_cast<size_t>(i * m.cols() + j)] = static_cast<float>(m(i, j));
    return Value::of_tensor(t);
}

// The float matrix a Value holds, back in double, for comparing with Eigen.
Matrix as_float(const Matrix& m) { return m.cast<float>().cast<double>(); }

Result run(const std::string& op_name, const Inputs& inputs) {
    const Op* op = find_op(op_name);
    REQUIRE(op != nullptr);
    return op->run(inputs);
}

std::string error_of(const std::string& op_name, const Inputs& inputs) {
    try {
        run(op_name, inputs);
    } catch (const ReferenceError& e) {
        return e.what();
    }
    return "(no ReferenceError)";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

Shape shape(std::initializer_list<int64_t> dims) { return Shape(dims); }

Matrix identity2() { return Matrix::Identity(2, 2); }

}  // namespace

// ------------------------------------------------------------------ projections

TEST_CASE("linear multiplies every row by w") {
    const Matrix x = mat(2, 2, {1, 2, 3, 4});
    const Matrix w = mat(2, 3, {1, 0, 1, 0, 1, 1});
    CHECK(linear(x, w) == mat(2, 3, {1, 2, 3, 3, 4, 7}));
}

TEST_CASE("linear rejects a weight whose rows do not match x's columns") {
    CHECK_THROWS_WITH_AS(linear(Matrix::Zero(2, 3), Matrix::Zero(4, 2)),
                         "w: expected shape (3, Dout) to match the 3 columns of x, got (4, 2)",
                         ReferenceError);
}

TEST_CASE("qkv_projection projects x three times") {
    const Matrix x = mat(2, 2, {1, 2, 3, 4});
    const Matrix swap = mat(2, 2, {0, 1, 1, 0});
    const QKV qkv = qkv_projection(x, identity2(), swap, 2 * identity2());
    CHECK(qkv.q == x);
    CHECK(qkv.k == mat(2, 2, {2, 1, 4, 3}));
    CHECK(qkv.v == 2 * x);
    CHECK_THROWS_WITH_AS(qkv_projection(x, identity2(), Matrix::Zero(2, 3), identity2()),
                         "w_k: expected shape (2, 2), got (2, 3)", ReferenceError);
}

TEST_CASE("fused QKV equals three projections when w_qkv = [w_q | w_k | w_v]") {
    const Matrix x = random_matrix(5, 8, 1);
    const Matrix w_q = random_matrix(8, 8, 2), w_k = random_matrix(8, 8, 3),
                 w_v = random_matrix(8, 8, 4);
    Matrix w_qkv(8, 24);
    w_qkv << w_q, w_k, w_v;
    const FusedQKV fused = fused_qkv_projection(x, w_qkv);
    const QKV separate = qkv_projection(x, w_q, w_k, w_v);
    CHECK(fused.qkv.rows() == 5);
    CHECK(fused.qkv.cols() == 24);
    CHECK(fused.split.q.isApprox(separate.q, 1e-12));
    CHECK(fused.split.k.isApprox(separate.k, 1e-12));
    CHECK(fused.split.v.isApprox(separate.v, 1e-12));
    CHECK_THROWS_WITH_AS(fused_qkv_projection(x, w_q), "w_qkv: expected shape (8, 24), got (8, 8)",
                         ReferenceError);
}

// ------------------------------------------------------------------------ heads

TEST_CASE("split_heads gives head h the columns h*hd .. (h+1)*hd-1") {
    const Matrix x = mat(2, 6, {0, 1, 2, 3, 4, 5, 10, 11, 12, 13, 14, 15});
    const Heads heads = split_heads(x, 3);
    REQUIRE(heads.size() == 3);
    CHECK(heads[0] == mat(2, 2, {0, 1, 10, 11}));
    CHECK(heads[1] == mat(2, 2, {2, 3, 12, 13}));
    CHECK(heads[2] == mat(2, 2, {4, 5, 14, 15}));
}

TEST_CASE("merge_heads(split_heads(x)) == x") {
    const Matrix x = random_matrix(4, 12, 7);
    for (int h : {1, 2, 3, 4, 6, 12})
        CHECK(merge_heads(split_heads(x, h)) == x);
}

TEST_CASE("split_heads rejects D not divisible by n_heads, and n_heads < 1") {
    CHECK_THROWS_WITH_AS(split_heads(Matrix::Zero(2, 6), 4),
                         "n_heads: D = 6 is not divisible by n_heads = 4", ReferenceError);
    CHECK_THROWS_WITH_AS(split_heads(Matrix::Zero(2, 6), 0), "n_heads: expected at least 1, got 0",
                         ReferenceError);
    CHECK_THROWS_AS(merge_heads(Heads{}), ReferenceError);
    CHECK_THROWS_WITH_AS(merge_heads(Heads{Matrix::Zero(2, 2), Matrix::Zero(2, 3)}),
                         "heads[1]: expected shape (2, 2) like heads[0], got (2, 3)",
                         ReferenceError);
}

// -------------------------------------------------------------------- attention

TEST_CASE("scaled_scores is Q K^T / sqrt(hd)") {
    const Matrix q = mat(2, 2, {1, 0, 0, 1});
    const Matrix k = mat(2, 2, {1, 1, 2, 0});
    const double s = 1.0 / std::sqrt(2.0);
    CHECK(scaled_scores(q, k).isApprox(mat(2, 2, {1 * s, 2 * s, 1 * s, 0}), 1e-15));
    CHECK_THROWS_WITH_AS(scaled_scores(q, Matrix::Zero(2, 3)),
                         "k: expected shape (2, 2), got (2, 3)", ReferenceError);
}

TEST_CASE("causal_mask sets exactly the entries with j > i to -inf") {
    const Matrix scores = random_matrix(4, 4, 11);
    const Matrix masked = causal_mask(scores);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            if (j > i)
                CHECK(masked(i, j) == -kInf);
            else
                CHECK(masked(i, j) == scores(i, j));
        }
    CHECK_THROWS_WITH_AS(causal_mask(Matrix::Zero(2, 3)),
                         "scores: expected a square (T, T) matrix, got (2, 3)", ReferenceError);
}

TEST_CASE("softmax_rows: hand values, -inf gives exactly 0, stable for large inputs") {
    const Matrix x = mat(3, 2, {0, std::log(3.0), 5, -kInf, 1000, 1001});
    const Matrix w = softmax_rows(x);
    CHECK(w(0, 0) == doctest::Approx(0.25).epsilon(1e-15));
    CHECK(w(0, 1) == doctest::Approx(0.75).epsilon(1e-15));
    CHECK(w(1, 0) == 1.0);
    CHECK(w(1, 1) == 0.0);
    // exp(1000) overflows; subtracting the row max avoids it.
    CHECK(std::isfinite(w(2, 0)));
    CHECK(w(2, 1) == doctest::Approx(std::exp(1.0) / (1.0 + std::exp(1.0))));
    // Adding a constant to a row does not change its softmax.
    CHECK(softmax_rows(mat(1, 3, {1, 2, 3}))
              .isApprox(softmax_rows(mat(1, 3, {101, 102, 103})), 1e-14));
}

TEST_CASE("softmax_rows: every row sums to 1") {
    const Matrix w = softmax_rows(10 * random_matrix(6, 9, 5));
    for (Eigen::Index i = 0; i < w.rows(); ++i) {
        CHECK(w.row(i).sum() == doctest::Approx(1.0).epsilon(1e-14));
        CHECK(w.row(i).minCoeff() > 0.0);
    }
}

// softmax_rows walks whole columns (Matrix is column-major); it must give, bit
// for bit, what the row-at-a-time definition gives, masked entries included.
TEST_CASE("softmax_rows: bit for bit the row-at-a-time softmax, -inf entries included") {
    Matrix x = 30 * random_matrix(37, 70, 11);
    for (Eigen::Index i = 0; i < x.rows(); ++i)
        for (Eigen::Index j = i + 1; j < x.cols(); ++j) x(i, j) = -kInf;
    Matrix by_rows(x.rows(), x.cols());
    for (Eigen::Index i = 0; i < x.rows(); ++i) {
        double row_max = -kInf;
        for (Eigen::Index j = 0; j < x.cols(); ++j) row_max = std::max(row_max, x(i, j));
        double sum = 0;
        for (Eigen::Index j = 0; j < x.cols(); ++j) sum += by_rows(i, j) = std::exp(x(i, j) - row_max);
        for (Eigen::Index j = 0; j < x.cols(); ++j) by_rows(i, j) /= sum;
    }
    const Matrix w = softmax_rows(x);
    CHECK(w.cwiseEqual(by_rows).all());
}

TEST_CASE("softmax_rows names the first row without a softmax, scanning rows in order") {
    // Row 1 holds NaN, rows 2 and 3 are entirely -inf: row 1 is named.
    CHECK_THROWS_WITH_AS(softmax_rows(mat(4, 2, {0, 1, 2, std::nan(""), -kInf, -kInf, -kInf, -kInf})),
                         "x: row 1 contains NaN; its softmax is undefined", ReferenceError);
    CHECK_THROWS_WITH_AS(softmax_rows(mat(3, 2, {0, 1, -kInf, -kInf, kInf, 0})),
                         "x: row 1 is entirely -inf; its softmax is undefined (0/0)", ReferenceError);
}

TEST_CASE("softmax_rows refuses to produce NaN silently") {
    CHECK_THROWS_WITH_AS(softmax_rows(mat(2, 2, {0, 0, -kInf, -kInf})),
                         "x: row 1 is entirely -inf; its softmax is undefined (0/0)",
                         ReferenceError);
    CHECK_THROWS_WITH_AS(softmax_rows(mat(1, 2, {0, std::nan("")})),
                         "x: row 0 contains NaN; its softmax is undefined", ReferenceError);
    CHECK_THROWS_WITH_AS(softmax_rows(mat(1, 2, {0, kInf})),
                         "x: row 0 contains +inf; its softmax is undefined", ReferenceError);
    CHECK_THROWS_AS(softmax_rows(Matrix::Zero(2, 0)), ReferenceError);
}

TEST_CASE("attend averages value rows with the weights") {
    const Matrix weights = mat(2, 2, {1, 0, 0.5, 0.5});
    const Matrix v = mat(2, 1, {2, 4});
    CHECK(attend(weights, v) == mat(2, 1, {2, 3}));
    CHECK_THROWS_WITH_AS(attend(weights, Matrix::Zero(3, 1)),
                         "v: expected shape (2, hd) to match the 2 columns of weights, got (3, 1)",
                         ReferenceError);
}

TEST_CASE("causal_attention_weights: masked weights are exactly 0, rows sum to 1") {
    const Heads q = split_heads(random_matrix(5, 8, 21), 2);
    const Heads k = split_heads(random_matrix(5, 8, 22), 2);
    const AttentionWeights aw = causal_attention_weights(q, k);
    REQUIRE(aw.weights.size() == 2);
    for (size_t h = 0; h < 2; ++h) {
        CHECK(aw.scores[h].isApprox(scaled_scores(q[h], k[h])));
        CHECK(aw.masked[h] == causal_mask(aw.scores[h]));
        for (int i = 0; i < 5; ++i) {
            CHECK(aw.weights[h].row(i).sum() == doctest::Approx(1.0).epsilon(1e-14));
            for (int j = 0; j < 5; ++j) {
                if (j > i)
                    CHECK(aw.weights[h](i, j) == 0.0);
                else
                    CHECK(aw.weights[h](i, j) > 0.0);
            }
        }
        CHECK(aw.weights[h](0, 0) == 1.0);  // the first token can only see itself
    }
    CHECK_THROWS_WITH_AS(causal_attention_weights(q, split_heads(random_matrix(5, 8, 23), 4)),
                         "k: expected shape (2, 5, 4) like q, got (4, 5, 2)", ReferenceError);
}

// ----------------------------------------------------------------- full layer

TEST_CASE("worked case: X = I, all weights I, two heads") {
    // hd = 1. Head 0 sees column 0: q = k = v = [1, 0].
    //   row 1 scores [0, 0] -> weights [1/2, 1/2] -> 0.5
    // Head 1 sees column 1: q = k = v = [0, 1].
    //   row 1 scores [0, 1] -> weights [1, e] / (1 + e) -> e / (1 + e) = 0.731
    // Row 0 sees only itself: its output is x's row 0 = [1, 0].
    const MhsaStages s =
        causal_mhsa(identity2(), identity2(), identity2(), identity2(), identity2(), 2);
    const double e = std::exp(1.0);
    CHECK(s.out(0, 0) == doctest::Approx(1.0));
    CHECK(s.out(0, 1) == doctest::Approx(0.0));
    CHECK(s.out(1, 0) == doctest::Approx(0.5));
    CHECK(s.out(1, 1) == doctest::Approx(e / (1 + e)).epsilon(1e-14));
    CHECK(std::round(s.out(1, 1) * 1000) / 1000 == doctest::Approx(0.731));
}

TEST_CASE("worked case: X = I, all weights I, one head") {
    // hd = 2. scores = I / sqrt(2); row 1 after the mask is [0, 1/sqrt(2)]
    // -> weights [1, a] / (1 + a) with a = e^(1/sqrt(2)) = 2.028
    // -> [0.330, 0.670]; V = I so the output row is the weight row.
    const MhsaStages s =
        causal_mhsa(identity2(), identity2(), identity2(), identity2(), identity2(), 1);
    const double a = std::exp(1.0 / std::sqrt(2.0));
    CHECK(s.out(0, 0) == doctest::Approx(1.0));
    CHECK(s.out(0, 1) == doctest::Approx(0.0));
    CHECK(s.out(1, 0) == doctest::Approx(1 / (1 + a)).epsilon(1e-14));
    CHECK(s.out(1, 1) == doctest::Approx(a / (1 + a)).epsilon(1e-14));
    CHECK(std::round(s.out(1, 0) * 1000) / 1000 == doctest::Approx(0.330));
    CHECK(std::round(s.out(1, 1) * 1000) / 1000 == doctest::Approx(0.670));
}

TEST_CASE("causal_mhsa stages fit together") {
    const Matrix x = random_matrix(5, 8, 31);
    const Matrix w_q = random_matrix(8, 8, 32), w_k = random_matrix(8, 8, 33),
                 w_v = random_matrix(8, 8, 34), w_o = random_matrix(8, 8, 35);
    const MhsaStages s = causal_mhsa(x, w_q, w_k, w_v, w_o, 4);
    CHECK(s.q.isApprox(x * w_q));
    CHECK(s.scores.size() == 4);
    CHECK(s.heads.size() == 4);
    CHECK(s.heads[3].rows() == 5);
    CHECK(s.heads[3].cols() == 2);
    CHECK(s.heads[2].isApprox(s.weights[2] * split_heads(s.v, 4)[2]));
    CHECK(s.concat == merge_heads(s.heads));
    CHECK(s.out.isApprox(s.concat * w_o));
}

TEST_CASE("causal: output row t does not depend on tokens after t") {
    const Matrix x = random_matrix(6, 8, 41);
    const Matrix w_q = random_matrix(8, 8, 42), w_k = random_matrix(8, 8, 43),
                 w_v = random_matrix(8, 8, 44), w_o = random_matrix(8, 8, 45);
    Matrix changed = x;
    changed.bottomRows(3) = random_matrix(3, 8, 46);  // tokens 3, 4, 5
    const Matrix out = causal_mhsa(x, w_q, w_k, w_v, w_o, 2).out;
    const Matrix out_changed = causal_mhsa(changed, w_q, w_k, w_v, w_o, 2).out;
    CHECK(out.topRows(3) == out_changed.topRows(3));
    CHECK_FALSE(out.bottomRows(3).isApprox(out_changed.bottomRows(3)));
}

TEST_CASE("fused_causal_mhsa equals causal_mhsa with w_qkv = [w_q | w_k | w_v]") {
    const Matrix x = random_matrix(4, 6, 51);
    const Matrix w_q = random_matrix(6, 6, 52), w_k = random_matrix(6, 6, 53),
                 w_v = random_matrix(6, 6, 54), w_o = random_matrix(6, 6, 55);
    Matrix w_qkv(6, 18);
    w_qkv << w_q, w_k, w_v;
    const MhsaStages fused = fused_causal_mhsa(x, w_qkv, w_o, 3);
    const MhsaStages separate = causal_mhsa(x, w_q, w_k, w_v, w_o, 3);
    CHECK(fused.out.isApprox(separate.out, 1e-12));
    CHECK(fused.weights[1].isApprox(separate.weights[1], 1e-12));
}

TEST_CASE("causal_mhsa validates its inputs") {
    const Matrix x = Matrix::Zero(3, 4), w = Matrix::Zero(4, 4);
    CHECK_THROWS_WITH_AS(causal_mhsa(x, w, w, w, Matrix::Zero(4, 3), 2),
                         "w_o: expected shape (4, 4), got (4, 3)", ReferenceError);
    CHECK_THROWS_WITH_AS(causal_mhsa(x, w, w, w, w, 3),
                         "n_heads: D = 4 is not divisible by n_heads = 3", ReferenceError);
    CHECK_THROWS_WITH_AS(causal_mhsa(x, Matrix::Zero(3, 4), w, w, w, 2),
                         "w_q: expected shape (4, 4), got (3, 4)", ReferenceError);
}

// ------------------------------------------------------------------ batches

TEST_CASE("batched layout: element (b, h, t, j) == x(b, t, h*hd + j)") {
    const Batch x = {random_matrix(3, 6, 61), random_matrix(3, 6, 62)};
    const std::vector<Heads> split = batched_split_heads(x, 3);
    REQUIRE(split.size() == 2);
    for (int b = 0; b < 2; ++b) {
        REQUIRE(split[b].size() == 3);
        for (int h = 0; h < 3; ++h)
            for (int t = 0; t < 3; ++t)
                for (int j = 0; j < 2; ++j)
                    CHECK(split[b][h](t, j) == x[b](t, h * 2 + j));
    }
    CHECK_THROWS_WITH_AS(batched_split_heads({Matrix::Zero(3, 6), Matrix::Zero(2, 6)}, 3),
                         "x[1]: expected shape (3, 6) like x[0], got (2, 6)", ReferenceError);
    CHECK_THROWS_AS(batched_split_heads(Batch{}, 3), ReferenceError);
}

TEST_CASE("batched_causal_mhsa runs each sequence on its own") {
    const Batch x = {random_matrix(4, 4, 71), random_matrix(4, 4, 72)};
    const Matrix w_q = random_matrix(4, 4, 73), w_k = random_matrix(4, 4, 74),
                 w_v = random_matrix(4, 4, 75), w_o = random_matrix(4, 4, 76);
    const std::vector<MhsaStages> batch = batched_causal_mhsa(x, w_q, w_k, w_v, w_o, 2);
    REQUIRE(batch.size() == 2);
    for (int b = 0; b < 2; ++b)
        CHECK(batch[b].out == causal_mhsa(x[b], w_q, w_k, w_v, w_o, 2).out);
    CHECK_FALSE(batch[0].out.isApprox(batch[1].out));
}

// ------------------------------------------------------------------ counting

TEST_CASE("attention_params: 4 * d_model^2 per layer") {
    CHECK(attention_params(2, 1) == 16);
    // ANDREA-120M: d_model 768, 12 heads of 64, 12 layers.
    CHECK(attention_params(768, 1) == 2359296);
    CHECK(attention_params(768, 12) == 28311552);
    CHECK_THROWS_WITH_AS(attention_params(0, 1), "d_model: expected at least 1, got 0",
                         ReferenceError);
    CHECK_THROWS_WITH_AS(attention_params(768, -1), "n_layers: expected at least 1, got -1",
                         ReferenceError);
    CHECK_THROWS_AS(attention_params(int64_t{1} << 31, int64_t{1} << 20), ReferenceError);
}

// ------------------------------------------------------------------ registry

// Every op, enumerated: adding one needs no edit here. That an exercise's
// entry point takes its reference op's parameters (by name and kind) and
// returns its kind is the course loader's check (load_reference in
// course.cpp), held to the shipped course by test_course's "the real course
// loads without problems"; `attnlab dev ops` names the exercises that use each op.

namespace {

// What the runner and exercise.json name ops, parameters and mistakes by: a
// C++ identifier (a parameter is one in the learner's entry point too).
bool is_identifier(const std::string& s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

bool has_tensor_param(const Op& op, const std::string& name) {
    return std::any_of(op.params.begin(), op.params.end(),
                       [&](const Param& p) { return p.name == name && p.kind == ValueKind::Tensor; });
}

// An op's signature as `attnlab dev ops` shows it.
std::string signature(const Op& op) {
    std::string s = op.name + "(";
    for (size_t i = 0; i < op.params.size(); ++i)
        s += (i ? ", " : "") + op.params[i].name + ": " + value_kind_name(op.params[i].kind) +
             (op.params[i].shape.empty() ? "" : " " + op.params[i].shape);
    return s + ") -> " + value_kind_name(op.returns) + (op.returns_shape.empty() ? "" : " " + op.returns_shape);
}

}  // namespace

TEST_CASE("registry: every op has a unique name and is found by it") {
    REQUIRE_FALSE(all_ops().empty());
    std::set<std::string> names;
    for (const Op& op : all_ops()) {
        CAPTURE(op.name);
        CHECK(is_identifier(op.name));
        CHECK(names.insert(op.name).second);
        CHECK(find_op(op.name) == &op);
    }
    CHECK(find_op("no_such_op") == nullptr);
    CHECK(find_op("") == nullptr);
}

TEST_CASE("registry: every op says what it does in one line, runs, and documents each tensor's shape") {
    for (const Op& op : all_ops()) {
        CAPTURE(op.name);
        CHECK_FALSE(op.summary.empty());
        CHECK(op.summary.find('\n') == std::string::npos);
        CHECK(static_cast<bool>(op.run));
        CHECK(op.returns_shape.empty() == (op.returns != ValueKind::Tensor));
        std::set<std::string> params;
        for (const Param& p : op.params) {
            CAPTURE(p.name);
            CHECK(is_identifier(p.name));
            CHECK(params.insert(p.name).second);
            CHECK(p.shape.empty() == (p.kind != ValueKind::Tensor));
        }
        // Inputs are checked against the params before any math: an empty
        // call names the first one, with its kind and documented shape.
        if (op.params.empty()) continue;
        const Param& first = op.params.front();
        CHECK_THROWS_WITH_AS(op.run({}), (first.name + ": missing input, expected " + value_kind_name(first.kind) +
                                          (first.shape.empty() ? "" : " " + first.shape)).c_str(),
                             ReferenceError);
    }
}

TEST_CASE("registry: every mistake has an id the course can name and runs on checked inputs") {
    for (const Op& op : all_ops()) {
        CAPTURE(op.name);
        for (const Mistake& m : op.mistakes) {
            CAPTURE(m.id);
            CHECK(is_identifier(m.id));
            CHECK(find_mistake(op.name, m.id) != nullptr);
            REQUIRE(static_cast<bool>(m.run));
            if (!op.params.empty()) CHECK_THROWS_AS(m.run({}), ReferenceError);
        }
    }
    CHECK(find_mistake("causal_mhsa", "no_such_mistake") == nullptr);
    CHECK(find_mistake("no_such_op", "scale_sqrt_d") == nullptr);
}

TEST_CASE("registry: a FLOP count comes with its formula, a partial read names a tensor input") {
    for (const Op& op : all_ops()) {
        CAPTURE(op.name);
        CHECK(op.flops_formula.empty() == !op.flops);
        for (const PartialRead& r : op.partial_reads) {
            CAPTURE(r.input);
            CHECK(has_tensor_param(op, r.input));
            CHECK_FALSE(r.formula.empty());
            CHECK(static_cast<bool>(r.elements));
        }
    }
}

// The exact contract of a few representative ops: what exercise files and
// the runner rely on, shapes as `attnlab dev ops` documents them.
TEST_CASE("registry: representative signatures") {
    const std::pair<const char*, const char*> expected[] = {
        {"causal_mhsa", "causal_mhsa(x: tensor (T, D), w_q: tensor (D, D), w_k: tensor (D, D), w_v: tensor (D, D), "
                        "w_o: tensor (D, D), n_heads: int) -> tensor (T, D)"},
        {"causal_mask", "causal_mask(scores: tensor (H, T, T) or (T, T)) -> tensor same as scores"},
        {"attention_params", "attention_params(d_model: int, n_layers: int) -> int"},
        {"batched_causal_attention",
         "batched_causal_attention(q: tensor (B, H, T, hd), k: tensor (B, H, T, hd), v: tensor (B, H, T, hd)) -> tensor (B, H, T, hd)"},
    };
    for (const auto& [name, sig] : expected) {
        CAPTURE(name);
        const Op* op = find_op(name);
        REQUIRE(op != nullptr);
        CHECK(signature(*op) == sig);
    }
}

TEST_CASE("registry: causal_mhsa returns every stage, in order, with its shape") {
    const Matrix x = random_matrix(5, 8, 81);
    const Matrix w_q = random_matrix(8, 8, 82), w_k = random_matrix(8, 8, 83),
                 w_v = random_matrix(8, 8, 84), w_o = random_matrix(8, 8, 85);
    const Result r = run("causal_mhsa", {{"x", tensor_value(x)},
                                         {"w_q", tensor_value(w_q)},
                                         {"w_k", tensor_value(w_k)},
                                         {"w_v", tensor_value(w_v)},
                                         {"w_o", tensor_value(w_o)},
                                         {"n_heads", Value::of_int(2)}});
    const std::vector<std::pair<std::string, Shape>> expected = {
        {"Q", shape({5, 8})},         {"K", shape({5, 8})},         {"V", shape({5, 8})},
        {"scores", shape({2, 5, 5})}, {"masked", shape({2, 5, 5})}, {"weights", shape({2, 5, 5})},
        {"heads", shape({2, 5, 4})},  {"concat", shape({5, 8})},    {"out", shape({5, 8})},
    };
    REQUIRE(r.stages.size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        CHECK(r.stages[i].name == expected[i].first);
        CHECK(r.stages[i].tensor.shape == expected[i].second);
        CHECK(r.stages[i].tensor.data.size() == static_cast<size_t>(r.stages[i].tensor.numel()));
    }
    REQUIRE(r.output.kind == ValueKind::Tensor);
    CHECK(r.output.tensor.shape == shape({5, 8}));
    CHECK(r.output.tensor.data == r.stages.back().tensor.data);

    // The registry computes in double from the float inputs, then rounds to float.
    const MhsaStages s =
        causal_mhsa(as_float(x), as_float(w_q), as_float(w_k), as_float(w_v), as_float(w_o), 2);
    for (int t = 0; t < 5; ++t)
        for (int d = 0; d < 8; ++d)
            CHECK(r.output.tensor.data[t * 8 + d] == static_cast<float>(s.out(t, d)));
    // masked stage: (h, i, j) with j > i is -inf; weights there are exactly 0.
    const TensorData& masked = r.stages[4].tensor;
    const TensorData& weights = r.stages[5].tensor;
    CHECK(masked.data[masked.offset({1, 0, 4})] == -std::numeric_limits<float>::infinity());
    CHECK(weights.data[weights.offset({1, 0, 4})] == 0.0f);
    CHECK(weights.data[weights.offset({1, 4, 0})] > 0.0f);
}

TEST_CASE("registry: the worked case through Values") {
    const Value i2 = tensor_value(identity2());
    const Result r = run("causal_mhsa", {{"x", i2},
                                         {"w_q", i2},
                                         {"w_k", i2},
                                         {"w_v", i2},
                                         {"w_o", i2},
                                         {"n_heads", Value::of_int(2)}});
    CHECK(r.output.tensor.data[0] == doctest::Approx(1.0));
    CHECK(r.output.tensor.data[1] == doctest::Approx(0.0));
    CHECK(r.output.tensor.data[2] == doctest::Approx(0.5));
    CHECK(r.output.tensor.data[3] == doctest::Approx(0.731).epsilon(1e-3));
}

TEST_CASE("registry: fused_causal_mhsa has the same stages as causal_mhsa") {
    const Matrix x = random_matrix(3, 4, 91), w = random_matrix(4, 4, 92);
    Matrix w_qkv(4, 12);
    w_qkv << w, w, w;
    const Result fused = run("fused_causal_mhsa", {{"x", tensor_value(x)},
                                                   {"w_qkv", tensor_value(w_qkv)},
                                                   {"w_o", tensor_value(w)},
                                                   {"n_heads", Value::of_int(2)}});
    const Result separate = run("causal_mhsa", {{"x", tensor_value(x)},
                                                {"w_q", tensor_value(w)},
                                                {"w_k", tensor_value(w)},
                                                {"w_v", tensor_value(w)},
                                                {"w_o", tensor_value(w)},
                                                {"n_heads", Value::of_int(2)}});
    REQUIRE(fused.stages.size() == separate.stages.size());
    for (size_t i = 0; i < fused.stages.size(); ++i) {
        CHECK(fused.stages[i].name == separate.stages[i].name);
        CHECK(fused.stages[i].tensor.shape == separate.stages[i].tensor.shape);
    }
    for (size_t i = 0; i < fused.output.tensor.data.size(); ++i)
        CHECK(fused.output.tensor.data[i] ==
              doctest::Approx(separate.output.tensor.data[i]).epsilon(1e-6));
}

TEST_CASE("registry: projections stack Q, K, V as (3, T, D)") {
    const Matrix x = mat(2, 2, {1, 2, 3, 4});
    const Matrix swap = mat(2, 2, {0, 1, 1, 0});
    const Result r = run("qkv_projection", {{"x", tensor_value(x)},
                                            {"w_q", tensor_value(identity2())},
                                            {"w_k", tensor_value(swap)},
                                            {"w_v", tensor_value(Matrix(2 * identity2()))}});
    CHECK(r.output.tensor.shape == shape({3, 2, 2}));
    CHECK(r.output.tensor.data == std::vector<float>{1, 2, 3, 4, 2, 1, 4, 3, 2, 4, 6, 8});
    REQUIRE(r.stages.size() == 3);
    CHECK(r.stages[0].name == "Q");
    CHECK(r.stages[1].name == "K");
    CHECK(r.stages[2].name == "V");
    CHECK(r.stages[1].tensor.data == std::vector<float>{2, 1, 4, 3});

    Matrix w_qkv(2, 6);
    w_qkv << identity2(), swap, 2 * identity2();
    const Result f = run("fused_qkv", {{"x", tensor_value(x)}, {"w_qkv", tensor_value(w_qkv)}});
    CHECK(f.output.tensor.data == r.output.tensor.data);
    REQUIRE(f.stages.size() == 4);
    CHECK(f.stages[0].name == "qkv");
    CHECK(f.stages[0].tensor.shape == shape({2, 6}));
    CHECK(f.stages[0].tensor.data == std::vector<float>{1, 2, 2, 1, 2, 4, 3, 4, 4, 3, 6, 8});
    CHECK(f.stages[3].name == "V");

    const Result l =
        run("linear", {{"x", tensor_value(x)}, {"w", tensor_value(mat(2, 1, {1, 1}))}});
    CHECK(l.output.tensor.shape == shape({2, 1}));
    CHECK(l.output.tensor.data == std::vector<float>{3, 7});
    CHECK(l.stages.empty());
}

TEST_CASE("registry: head ops and the attention steps") {
    const Matrix x = mat(2, 4, {1, 2, 3, 4, 5, 6, 7, 8});
    const Result split =
        run("split_heads", {{"x", tensor_value(x)}, {"n_heads", Value::of_int(2)}});
    CHECK(split.output.tensor.shape == shape({2, 2, 2}));
    CHECK(split.output.tensor.data == std::vector<float>{1, 2, 5, 6, 3, 4, 7, 8});
    const Result merged = run("merge_heads", {{"heads", split.output}});
    CHECK(merged.output.tensor.shape == shape({2, 4}));
    CHECK(merged.output.tensor.data == tensor_value(x).tensor.data);

    // q = k = heads of x; scores, mask and softmax one op at a time equal the fused op.
    const Value heads = split.output;
    const Result scores = run("attention_scores", {{"q", heads}, {"k", heads}});
    CHECK(scores.output.tensor.shape == shape({2, 2, 2}));
    // head 0, row 1: q = [5, 6], k_0 = [1, 2] -> (5 + 12) / sqrt(2)
    CHECK(scores.output.tensor.data[2] == doctest::Approx(17 / std::sqrt(2.0)));
    const Result masked = run("causal_mask", {{"scores", scores.output}});
    CHECK(masked.output.tensor.data[1] == -std::numeric_limits<float>::infinity());
    const Result weights = run("softmax_rows", {{"x", masked.output}});
    const Result fused = run("causal_attention_weights", {{"q", heads}, {"k", heads}});
    // Step by step rounds to float between ops; the fused op stays in double.
    REQUIRE(fused.output.tensor.data.size() == weights.output.tensor.data.size());
    for (size_t i = 0; i < weights.output.tensor.data.size(); ++i)
        CHECK(fused.output.tensor.data[i] ==
              doctest::Approx(weights.output.tensor.data[i]).epsilon(1e-6));
    REQUIRE(fused.stages.size() == 3);
    CHECK(fused.stages[0].name == "scores");
    CHECK(fused.stages[1].name == "masked");
    CHECK(fused.stages[2].name == "weights");
    CHECK(fused.stages[1].tensor.data == masked.output.tensor.data);

    const Result attended = run("attend", {{"weights", weights.output}, {"v", heads}});
    CHECK(attended.output.tensor.shape == shape({2, 2, 2}));
    CHECK(attended.output.tensor.data[0] == 1.0f);  // row 0 of head 0 only sees itself
    CHECK(attended.output.tensor.data[1] == 2.0f);

    const Result projected =
        run("merge_project",
            {{"heads", attended.output}, {"w_o", tensor_value(Matrix(Matrix::Identity(4, 4)))}});
    REQUIRE(projected.stages.size() == 2);
    CHECK(projected.stages[0].name == "concat");
    CHECK(projected.stages[1].name == "out");
    CHECK(projected.output.tensor.shape == shape({2, 4}));
    CHECK(projected.output.tensor.data == projected.stages[0].tensor.data);
}

TEST_CASE("registry: causal_mask and softmax_rows accept other ranks") {
    const Result mask2 = run("causal_mask", {{"scores", tensor_value(Matrix(Matrix::Zero(2, 2)))}});
    CHECK(mask2.output.tensor.shape == shape({2, 2}));
    CHECK(mask2.output.tensor.data[1] == -std::numeric_limits<float>::infinity());
    CHECK(mask2.output.tensor.data[2] == 0.0f);

    // softmax over the last axis of a (2, 1, 2) tensor: rows [0, 0] and [0, -inf].
    const float inf = std::numeric_limits<float>::infinity();
    const Result sm =
        run("softmax_rows", {{"x", Value::of_tensor(TensorData({2, 1, 2}, {0, 0, 0, -inf}))}});
    CHECK(sm.output.tensor.shape == shape({2, 1, 2}));
    CHECK(sm.output.tensor.data == std::vector<float>{0.5f, 0.5f, 1.0f, 0.0f});
    const Result sm1 = run("softmax_rows", {{"x", Value::of_tensor(TensorData({3}, {1, 1, 1}))}});
    CHECK(sm1.output.tensor.data[2] == doctest::Approx(1.0 / 3));

    CHECK(error_of("softmax_rows", {{"x", Value::of_tensor(TensorData({2, 0}, {}))}}) ==
          "x: expected a tensor (..., N) with N >= 1, got shape (2, 0)");
    CHECK(error_of("softmax_rows", {{"x", Value::of_tensor(TensorData({1, 2}, {-inf, -inf}))}}) ==
          "x: row 0 is entirely -inf; its softmax is undefined (0/0)");
    CHECK(contains(
        error_of("causal_mask", {{"scores", Value::of_tensor(TensorData({4}, {0, 0, 0, 0}))}}),
        "scores: expected a rank-3 tensor"));
}

TEST_CASE("registry: batched ops add a leading B axis") {
    // x (2, 3, 4): value at (b, t, d) = 100 b + 10 t + d
    TensorData x = TensorData::zeros({2, 3, 4});
    for (int64_t i = 0; i < x.numel(); ++i) {
        const auto idx = x.unravel(i);
        x.data[i] = static_cast<float>(100 * idx[0] + 10 * idx[1] + idx[2]);
    }
    const Result split =
        run("batched_split_heads", {{"x", Value::of_tensor(x)}, {"n_heads", Value::of_int(2)}});
    const TensorData& y = split.output.tensor;
    CHECK(y.shape == shape({2, 2, 3, 2}));
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t h = 0; h < 2; ++h)
            for (int64_t t = 0; t < 3; ++t)
                for (int64_t j = 0; j < 2; ++j)
                    CHECK(y.data[y.offset({b, h, t, j})] == x.data[x.offset({b, t, h * 2 + j})]);

    const Value w = tensor_value(random_matrix(4, 4, 101));
    const Result r = run("batched_causal_mhsa", {{"x", Value::of_tensor(x)},
                                                 {"w_q", w},
                                                 {"w_k", w},
                                                 {"w_v", w},
                                                 {"w_o", w},
                                                 {"n_heads", Value::of_int(2)}});
    const std::vector<std::pair<std::string, Shape>> expected = {
        {"Q", shape({2, 3, 4})},         {"K", shape({2, 3, 4})},
        {"V", shape({2, 3, 4})},         {"scores", shape({2, 2, 3, 3})},
        {"masked", shape({2, 2, 3, 3})}, {"weights", shape({2, 2, 3, 3})},
        {"heads", shape({2, 2, 3, 2})},  {"concat", shape({2, 3, 4})},
        {"out", shape({2, 3, 4})},
    };
    REQUIRE(r.stages.size() == expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
        CHECK(r.stages[i].name == expected[i].first);
        CHECK(r.stages[i].tensor.shape == expected[i].second);
    }
    CHECK(r.output.tensor.shape == shape({2, 3, 4}));

    // Sequence 1 of the batch equals causal_mhsa on that sequence alone.
    TensorData second({3, 4}, std::vector<float>(x.data.begin() + 12, x.data.end()));
    const Result one = run("causal_mhsa", {{"x", Value::of_tensor(second)},
                                           {"w_q", w},
                                           {"w_k", w},
                                           {"w_v", w},
                                           {"w_o", w},
                                           {"n_heads", Value::of_int(2)}});
    CHECK(std::vector<float>(r.output.tensor.data.begin() + 12, r.output.tensor.data.end()) ==
          one.output.tensor.data);
}

TEST_CASE("registry: attention_params returns an int") {
    const Result r =
        run("attention_params", {{"d_model", Value::of_int(768)}, {"n_layers", Value::of_int(12)}});
    CHECK(r.output.kind == ValueKind::Int);
    CHECK(r.output.int_value == 28311552);
    CHECK(r.stages.empty());
}

TEST_CASE("registry: errors name the input") {
    const Value x = tensor_value(Matrix(Matrix::Zero(3, 4)));
    const Value w = tensor_value(Matrix(Matrix::Zero(4, 4)));
    Inputs good = {{"x", x},   {"w_q", w}, {"w_k", w},
                   {"w_v", w}, {"w_o", w}, {"n_heads", Value::of_int(2)}};
    CHECK_NOTHROW(run("causal_mhsa", good));

    Inputs bad_heads = good;
    bad_heads["n_heads"] = Value::of_int(3);
    CHECK(error_of("causal_mhsa", bad_heads) == "n_heads: D = 4 is not divisible by n_heads = 3");

    Inputs bad_w_o = good;
    bad_w_o["w_o"] = tensor_value(Matrix(Matrix::Zero(4, 3)));
    CHECK(error_of("causal_mhsa", bad_w_o) == "w_o: expected shape (4, 4), got (4, 3)");

    Inputs bad_rank = good;
    bad_rank["x"] = Value::of_tensor(TensorData::zeros({1, 3, 4}));
    CHECK(error_of("causal_mhsa", bad_rank) ==
          "x: expected a rank-2 tensor (T, D), got shape (1, 3, 4)");

    Inputs missing = good;
    missing.erase("w_k");
    CHECK(error_of("causal_mhsa", missing) == "w_k: missing input, expected tensor (D, D)");

    Inputs wrong_kind = good;
    wrong_kind["n_heads"] = Value::of_float(2.0);
    CHECK(error_of("causal_mhsa", wrong_kind) == "n_heads: expected int, got float");

    Inputs short_data = good;
    short_data["x"].tensor.data.pop_back();
    CHECK(error_of("causal_mhsa", short_data) == "x: shape (3, 4) needs 12 values, got 11");

    CHECK(error_of("merge_heads", {{"heads", Value::of_tensor(TensorData::zeros({0, 2, 2}))}}) ==
          "heads: expected a non-empty leading axis (H, T, hd), got shape (0, 2, 2)");
    CHECK(error_of("attention_scores", {{"q", Value::of_tensor(TensorData::zeros({2, 3, 2}))},
                                        {"k", Value::of_tensor(TensorData::zeros({2, 3, 4}))}}) ==
          "k: expected shape (2, 3, 2) like q, got (2, 3, 4)");
    CHECK(error_of("attention_params", {{"d_model", Value::of_int(768)}}) ==
          "n_layers: missing input, expected int");
}
