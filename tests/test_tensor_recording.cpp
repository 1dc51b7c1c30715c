// Automatic stages, the learner runtime's side (app/learner/src/recorder.cpp):
// what a function's Tensor operations and element writes leave behind, with
// the caller's lines, between begin_recording and end_recording — as the
// harness calls them around the learner's function.
#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "attnlab/common/protocol.hpp"
#include "recorder.hpp"

using namespace attnlab;

namespace {

// Recording around `f`, as the harness does around the learner's function.
template <class F>
detail::Recording record(F&& f) {
    detail::begin_recording();
    f();
    return detail::end_recording();
}

std::string describe(const detail::Recording& r) {
    std::string s;
    for (const RecordedTensor& t : r.tensors)
        s += std::to_string(t.line) + " " + tensor_op_code(t.op) + " " + shape_to_string(t.tensor.shape) + "\n";
    return s;
}

// Records at `line` with operation `op`.
std::vector<const RecordedTensor*> at(const detail::Recording& r, int line, TensorOp op) {
    std::vector<const RecordedTensor*> out;
    for (const RecordedTensor& t : r.tensors)
        if (t.line == line && t.op == op) out.push_back(&t);
    return out;
}

Tensor arange2(int64_t rows, int64_t cols) {
    Tensor t({rows, cols});
    for (int64_t i = 0; i < rows * cols; ++i) t.data()[i] = static_cast<float>(i);
    return t;
}

}  // namespace

TEST_CASE("recording: each operation's result, with the caller's line and its values") {
    const Tensor a = arange2(2, 3), b = arange2(3, 2);
    int matmul_line = 0, scale_line = 0, add_line = 0, transpose_line = 0;
    const detail::Recording r = record([&] {
        matmul_line = __LINE__ + 1;
        const Tensor c = matmul(a, b);
        scale_line = __LINE__ + 1;
        const Tensor d = c * 0.5f;
        add_line = __LINE__ + 1;
        const Tensor e = d + c;
        transpose_line = __LINE__ + 1;
        const Tensor f = e.transpose();
        (void)f;
    });
    INFO(describe(r));
    REQUIRE(r.tensors.size() == 4);
    CHECK(r.dropped == 0);
    const std::vector<std::pair<int, TensorOp>> expected = {
        {matmul_line, TensorOp::Matmul}, {scale_line, TensorOp::Multiply}, {add_line, TensorOp::Add}, {transpose_line, TensorOp::Transpose}};
    for (size_t i = 0; i < expected.size(); ++i) {
        CHECK(r.tensors[i].line == expected[i].first);
        CHECK(r.tensors[i].op == expected[i].second);
    }
    // [[0 1 2] [3 4 5]] @ [[0 1] [2 3] [4 5]] = [[10 13] [28 40]]
    CHECK(r.tensors[0].tensor.shape == Shape{2, 2});
    CHECK(r.tensors[0].tensor.data == std::vector<float>{10, 13, 28, 40});
    CHECK(r.tensors[2].tensor.data == std::vector<float>{15, 19.5f, 42, 60});
    // A view is recorded as the values it shows, in its own row-major order.
    CHECK(r.tensors[3].tensor.shape == Shape{2, 2});
    CHECK(r.tensors[3].tensor.data == std::vector<float>{15, 42, 19.5f, 60});
}

TEST_CASE("recording: a scalar on the left, a division, reshape, concat and stack carry their lines") {
    const Tensor a = arange2(2, 2);
    int lines[5] = {};
    const detail::Recording r = record([&] {
        lines[0] = __LINE__ + 1;
        const Tensor b = 2.0 * a;
        lines[1] = __LINE__ + 1;
        const Tensor c = b / 4;
        lines[2] = __LINE__ + 1;
        const Tensor d = c.reshape({4});
        lines[3] = __LINE__ + 1;
        const Tensor e = concat({a, b}, 0);
        lines[4] = __LINE__ + 1;
        const Tensor f = stack({a, b});
        (void)d, (void)e, (void)f;
    });
    INFO(describe(r));
    REQUIRE(r.tensors.size() == 5);
    const TensorOp ops[5] = {TensorOp::Multiply, TensorOp::Divide, TensorOp::Reshape, TensorOp::Concat, TensorOp::Stack};
    for (int i = 0; i < 5; ++i) {
        CHECK(r.tensors[static_cast<size_t>(i)].line == lines[i]);
        CHECK(r.tensors[static_cast<size_t>(i)].op == ops[i]);
    }
    CHECK(r.tensors[3].tensor.shape == Shape{4, 2});  // concat's own work (its assign()s) is not recorded
    CHECK(r.tensors[4].tensor.shape == Shape{2, 2, 2});
}

TEST_CASE("recording: a loop's element writes are one tensor per line, not one per element") {
    int write_line = 0;
    Tensor kept;
    const detail::Recording r = record([&] {
        Tensor s({4, 8, 8});
        for (int h = 0; h < 4; ++h)
            for (int i = 0; i < 8; ++i)
                for (int j = 0; j < 8; ++j) {
                    write_line = __LINE__ + 1;
                    s(h, i, j) = static_cast<float>(h * 100 + i * 10 + j);
                }
        kept = s;
    });
    INFO(describe(r));
    REQUIRE(r.tensors.size() == 1);  // at the end of the call, the buffer as the loop left it
    CHECK(r.tensors[0].line == write_line);
    CHECK(r.tensors[0].op == TensorOp::Writes);
    CHECK(r.tensors[0].tensor.shape == Shape{4, 8, 8});
    CHECK(r.tensors[0].tensor.data == kept.to_vector());
}

TEST_CASE("recording: a tensor rewritten in place is recorded at each stage it held: scores, masked, weights") {
    // The learner's loops turn one buffer into the masked scores, then into the
    // weights, in place: each stage is recorded before the next loop overwrites
    // it, and the softmax's per-row lines (max, exp, divide) leave no half-done snapshot.
    int score_line = 0, mask_line = 0, divide_line = 0;
    std::vector<float> scores, masked, weights;
    const detail::Recording r = record([&] {
        const int T = 3;
        Tensor s({T, T});
        for (int i = 0; i < T; ++i)
            for (int j = 0; j < T; ++j) {
                score_line = __LINE__ + 1;
                s(i, j) = static_cast<float>(i + 2 * j);
            }
        scores = s.to_vector();
        for (int i = 0; i < T; ++i)
            for (int j = i + 1; j < T; ++j) {
                mask_line = __LINE__ + 1;
                s(i, j) = kNegInf;
            }
        masked = s.to_vector();
        for (int i = 0; i < T; ++i) {
            float m = s(i, 0);
            for (int j = 1; j < T; ++j) m = std::fmax(m, s(i, j));
            float sum = 0;
            for (int j = 0; j < T; ++j) {
                const float e = std::exp(s(i, j) - m);
                s(i, j) = e;
                sum += e;
            }
            for (int j = 0; j < T; ++j) {
                divide_line = __LINE__ + 1;
                s(i, j) /= sum;
            }
        }
        weights = s.to_vector();
        const Tensor used = matmul(s, Tensor::eye(T));  // the next use: the weights are done
        (void)used;
    });
    INFO(describe(r));
    REQUIRE(at(r, score_line, TensorOp::Writes).size() == 1);
    CHECK(at(r, score_line, TensorOp::Writes)[0]->tensor.data == scores);
    REQUIRE(at(r, mask_line, TensorOp::Writes).size() == 1);
    CHECK(at(r, mask_line, TensorOp::Writes)[0]->tensor.data == masked);
    REQUIRE(at(r, divide_line, TensorOp::Writes).size() == 1);
    CHECK(at(r, divide_line, TensorOp::Writes)[0]->tensor.data == weights);
    // Those three and the matmul, nothing in between.
    CHECK(r.tensors.size() == 4);
}

TEST_CASE("recording: a buffer written in a helper is recorded when it is next used, or when it goes") {
    int helper_line = 0;
    auto fill_helper = [&](Tensor& t) {
        for (int64_t i = 0; i < t.size(); ++i) {
            helper_line = __LINE__ + 1;
            t.at({i}) = 1.0f + static_cast<float>(i);
        }
    };
    const detail::Recording r = record([&] {
        Tensor temporary({3});
        fill_helper(temporary);
    });  // destroyed inside the call: recorded as it went
    REQUIRE(r.tensors.size() == 1);
    CHECK(r.tensors[0].line == helper_line);
    CHECK(r.tensors[0].tensor.data == std::vector<float>{1, 2, 3});
}

TEST_CASE("recording: reads, clones and unchanged buffers add nothing; outside a recording nothing is kept") {
    const Tensor a = arange2(2, 2);
    Tensor readable = arange2(2, 2);
    const detail::Recording r = record([&] {
        float sum = 0;
        for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j) sum += readable(i, j);  // a mutable view, only read
        const Tensor copy = a.clone();
        const Tensor same = a.contiguous();  // already contiguous: the same tensor
        CHECK(sum == 6.0f);
        (void)copy, (void)same;
    });
    INFO(describe(r));
    CHECK(r.tensors.empty());
    // Not recording: operations run as before and leave nothing for the next recording.
    const Tensor outside = matmul(a, a);
    CHECK(outside.to_vector() == std::vector<float>{2, 3, 6, 11});
    CHECK(record([] {}).tensors.empty());
}

TEST_CASE("recording is bounded: a loop's first iterations per line, and the case's budget") {
    using Limits = protocol::ProtocolLimits;
    const Tensor a = arange2(4, 4);
    int loop_line = 0;
    const detail::Recording r = record([&] {
        for (int k = 0; k < 50; ++k) {
            loop_line = __LINE__ + 1;
            const Tensor c = matmul(a, a);
            (void)c;
        }
    });
    CHECK(at(r, loop_line, TensorOp::Matmul).size() == Limits::max_recorded_per_site);
    CHECK(r.dropped == 0);  // left out by design, not for lack of room

    // 5 MB tensors: three fit the 16 MB budget, the rest are dropped and counted.
    const Tensor big = Tensor::zeros({1280, 1024});
    const detail::Recording full = record([&] {
        const Tensor x1 = big * 1.0f;
        const Tensor x2 = big * 2.0f;
        const Tensor x3 = big * 3.0f;
        const Tensor x4 = big * 4.0f;
        const Tensor x5 = big * 5.0f;
        (void)x1, (void)x2, (void)x3, (void)x4, (void)x5;
    });
    size_t bytes = 0;
    for (const RecordedTensor& t : full.tensors) bytes += t.tensor.data.size() * sizeof(float);
    CHECK(full.tensors.size() == 3);
    CHECK(full.dropped == 2);
    CHECK(bytes <= Limits::max_recorded_bytes);
}

TEST_CASE("recording: element access takes any integer type and stays bounds-checked") {
    Tensor t({2, 3});
    const size_t i = 1;
    const long long j = 2;
    t(i, j) = 5.0f;
    const Tensor& c = t;
    CHECK(c(1, 2) == 5.0f);
    CHECK(t.at({1, 2}) == 5.0f);
    CHECK_THROWS_AS(t(2, 0), std::out_of_range);
    CHECK_THROWS_AS(t(0), std::out_of_range);
}
