// Tests for the learner Tensor API against numpy semantics. Expected values
// come from index arithmetic (x = arange(T*D).reshape(T, D) has x[t, c] =
// t*D + c) or are worked out by hand.
#include <attnlab/tensor.hpp>

#include <doctest/doctest.h>

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace attnlab;

namespace {

Tensor arange2(int64_t rows, int64_t cols) { return Tensor::arange(rows * cols).reshape({rows, cols}); }

// The message of the exception `f` throws as E; fails the test otherwise.
template <class E, class F>
std::string message_of(F&& f) {
    try {
        f();
    } catch (const E& e) {
        return e.what();
    } catch (...) {
        FAIL("threw an exception of the wrong type");
        return {};
    }
    FAIL("did not throw");
    return {};
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("construction, shape, strides, size") {
    Tensor e;
    CHECK(e.shape() == Shape{0});
    CHECK(e.size() == 0);
    CHECK(e.to_vector().empty());

    Tensor z = Tensor::zeros({2, 3, 4});
    CHECK(z.shape() == Shape{2, 3, 4});
    CHECK(z.strides() == Shape{12, 4, 1});
    CHECK(z.offset() == 0);
    CHECK(z.ndim() == 3);
    CHECK(z.size() == 24);
    CHECK(z.is_contiguous());
    CHECK(z.shape(0) == 2);
    CHECK(z.shape(-1) == 4);
    CHECK(z.shape(-3) == 2);
    CHECK_THROWS_AS(z.shape(3), std::out_of_range);
    CHECK_THROWS_AS(z.shape(-4), std::out_of_range);
    for (float v : z.to_vector()) CHECK(v == 0.0f);

    Tensor f = Tensor::full({2, 2}, 2.5f);
    CHECK(f.to_vector() == std::vector<float>{2.5f, 2.5f, 2.5f, 2.5f});
    Tensor g({3}, -1.0f);
    CHECK(g.to_vector() == std::vector<float>{-1, -1, -1});

    Tensor d = Tensor::from_data({2, 3}, {1, 2, 3, 4, 5, 6});
    CHECK(d(0, 0) == 1);
    CHECK(d(0, 2) == 3);
    CHECK(d(1, 0) == 4);
    CHECK(d(1, 2) == 6);
    const std::string msg =
        message_of<std::invalid_argument>([] { Tensor::from_data({2, 3}, {1, 2, 3, 4, 5}); });
    CHECK(contains(msg, "(2, 3)"));
    CHECK(contains(msg, "5"));

    Tensor i3 = Tensor::eye(3);
    CHECK(i3.to_vector() == std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1});

    Tensor r = Tensor::arange(5);
    CHECK(r.shape() == Shape{5});
    CHECK(r.to_vector() == std::vector<float>{0, 1, 2, 3, 4});

    CHECK_THROWS_AS(Tensor::zeros({2, -1}), std::invalid_argument);
}

TEST_CASE("element access and bounds errors") {
    Tensor x = arange2(2, 4);
    CHECK(x(1, 3) == 7);
    x(1, 3) = 70.0f;
    CHECK(x.at({1, 3}) == 70.0f);
    x.at({0, 1}) = -1.0f;
    CHECK(x(0, 1) == -1.0f);
    const Tensor& cx = x;
    CHECK(cx(1, 3) == 70.0f);
    CHECK(cx.at({0, 1}) == -1.0f);
    CHECK(*x.data() == 0.0f);

    std::string msg = message_of<std::out_of_range>([&] { (void)x(2, 5); });
    CHECK(contains(msg, "index (2, 5) out of range for shape (2, 4)"));
    msg = message_of<std::out_of_range>([&] { (void)x(1, 4); });
    CHECK(contains(msg, "index (1, 4) out of range for shape (2, 4)"));
    CHECK(contains(msg, "axis 1 has size 4"));
    msg = message_of<std::out_of_range>([&] { (void)x(0, -1); });
    CHECK(contains(msg, "(0, -1)"));
    CHECK(contains(msg, "negative"));
    msg = message_of<std::out_of_range>([&] { (void)x(1); });
    CHECK(contains(msg, "(1,)"));
    CHECK(contains(msg, "(2, 4)"));
    CHECK(contains(msg, "1 index"));
    msg = message_of<std::out_of_range>([&] { (void)x(0, 0, 0); });
    CHECK(contains(msg, "(0, 0, 0)"));
    CHECK(contains(msg, "3 indices"));
    CHECK(contains(msg, "2 axes"));
    CHECK_THROWS_AS(x.at({0, 4}), std::out_of_range);
    CHECK_THROWS_AS(cx.at({2, 0}), std::out_of_range);

    // Views are checked against their own shape.
    Tensor row = x.select(0, 1);
    CHECK_THROWS_AS((void)row(4), std::out_of_range);
    CHECK(row(3) == 70.0f);
}

TEST_CASE("copies share storage; clone does not") {
    Tensor a = Tensor::zeros({3});
    Tensor b = a;
    b(1) = 5.0f;
    CHECK(a(1) == 5.0f);
    Tensor c = a.clone();
    c(1) = 9.0f;
    CHECK(a(1) == 5.0f);
    CHECK(c.is_contiguous());
}

TEST_CASE("assignment and moves share storage too; a braced shape means what a Shape does") {
    // The copies, moves and braced-shape overloads live in the library (so a
    // learner's file instantiates none of their templates): same meaning.
    Tensor a = Tensor::zeros({2, 3});
    Tensor b;
    b = a;
    b(1, 2) = 4.0f;
    CHECK(a(1, 2) == 4.0f);
    Tensor moved = std::move(b);
    moved(0, 0) = 1.0f;
    CHECK(a(0, 0) == 1.0f);
    Tensor assigned;
    assigned = std::move(moved);
    CHECK(assigned.shape() == Shape{2, 3});
    CHECK(assigned(1, 2) == 4.0f);

    CHECK(Tensor::zeros({2, 3}).shape() == Tensor::zeros(Shape{2, 3}).shape());
    CHECK(Tensor::full({2, 2}, 7.0f).to_vector() == Tensor::full(Shape{2, 2}, 7.0f).to_vector());
    const Tensor x = Tensor::arange(24);
    const int64_t T = 4;
    const int heads = 2;  // an int beside int64_t, as learners write it
    CHECK(x.reshape({T, heads, -1}).shape() == x.reshape(Shape{4, 2, 3}).shape());
    CHECK(x.reshape({T, heads, -1}).to_vector() == x.reshape(Shape{4, 2, 3}).to_vector());
}

TEST_CASE("split heads: reshape (T, H, hd) then transpose(1, 0, 2)") {
    const int64_t T = 5, H = 3, hd = 4, D = H * hd;
    Tensor x = arange2(T, D);
    Tensor p = x.reshape({T, H, hd}).transpose(1, 0, 2);
    CHECK(p.shape() == Shape{H, T, hd});
    CHECK(p.strides() == Shape{hd, D, 1});
    CHECK_FALSE(p.is_contiguous());
    for (int64_t h = 0; h < H; ++h)
        for (int64_t t = 0; t < T; ++t)
            for (int64_t j = 0; j < hd; ++j) {
                CHECK(p(h, t, j) == x(t, h * hd + j));
                CHECK(p(h, t, j) == static_cast<float>(t * D + h * hd + j));
            }

    Tensor c = p.contiguous();
    CHECK(c.is_contiguous());
    CHECK(c.shape() == Shape{H, T, hd});
    CHECK(c.strides() == Shape{T * hd, hd, 1});
    for (int64_t h = 0; h < H; ++h)
        for (int64_t t = 0; t < T; ++t)
            for (int64_t j = 0; j < hd; ++j) CHECK(c(h, t, j) == p(h, t, j));
    // Laid out head-major in memory.
    const float* raw = c.data();
    CHECK(raw[0] == 0.0f);
    CHECK(raw[1] == 1.0f);
    CHECK(raw[hd] == static_cast<float>(D));          // head 0, t = 1
    CHECK(raw[T * hd] == static_cast<float>(hd));     // head 1, t = 0
    // to_vector walks logical order regardless of layout.
    CHECK(p.to_vector() == c.to_vector());

    // contiguous() of a contiguous tensor is the same view.
    Tensor cc = c.contiguous();
    cc(0, 0, 0) = -7.0f;
    CHECK(c(0, 0, 0) == -7.0f);

    // Merge heads back: (H, T, hd) -> (T, H, hd) -> (T, D) round-trips.
    Tensor back = c.transpose(1, 0, 2).reshape({T, D});
    CHECK(back.shape() == Shape{T, D});
    Tensor back2 = p.transpose(1, 0, 2).contiguous().reshape({T, D});
    for (int64_t t = 0; t < T; ++t)
        for (int64_t k = 0; k < D; ++k) {
            CHECK(back2(t, k) == static_cast<float>(t * D + k));
            if (!(t == 0 && k == 0)) CHECK(back(t, k) == static_cast<float>(t * D + k));
        }
    CHECK(back(0, 0) == -7.0f);
    CHECK(allclose(back2, x));
}

TEST_CASE("reshape: views when contiguous, copies otherwise, -1 inference") {
    Tensor x = arange2(4, 6);

    Tensor v = x.reshape({2, 12});
    CHECK(v.shape() == Shape{2, 12});
    CHECK(v.strides() == Shape{12, 1});
    v(1, 0) = 100.0f;  // element 12 = x(2, 0)
    CHECK(x(2, 0) == 100.0f);

    Tensor t = x.transpose();  // (6, 4), not contiguous
    CHECK(t.shape() == Shape{6, 4});
    CHECK(t.strides() == Shape{1, 6});
    Tensor r = t.reshape({24});
    CHECK(r.is_contiguous());
    // r is the transpose read row-major: r[i*4 + j] = x(j, i).
    for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 4; ++j) CHECK(r(i * 4 + j) == x(j, i));
    r(0) = -5.0f;  // writes to the copy do not reach x
    CHECK(x(0, 0) == 0.0f);

    CHECK(x.reshape({-1}).shape() == Shape{24});
    CHECK(x.reshape({3, -1}).shape() == Shape{3, 8});
    CHECK(x.reshape({-1, 2, 3}).shape() == Shape{4, 2, 3});
    CHECK(x.reshape({2, -1, 3}).shape() == Shape{2, 4, 3});
    CHECK(x.reshape({2, -1, 3})(1, 2, 1) == x(3, 1));  // flat index 19 = 3*6 + 1

    std::string msg = message_of<std::invalid_argument>([&] { (void)x.reshape({5, 5}); });
    CHECK(contains(msg, "(4, 6)"));
    CHECK(contains(msg, "(5, 5)"));
    msg = message_of<std::invalid_argument>([&] { (void)x.reshape({5, -1}); });
    CHECK(contains(msg, "(4, 6)"));
    CHECK(contains(msg, "(5, -1)"));
    CHECK_THROWS_AS((void)x.reshape({-1, -1}), std::invalid_argument);
    CHECK_THROWS_AS((void)x.reshape({-2, -12}), std::invalid_argument);

    // Reshape of a sliced (offset, contiguous) view keeps the offset.
    Tensor tail = x.slice(0, 2, 4);  // rows 2, 3: contiguous with offset 12
    CHECK(tail.is_contiguous());
    CHECK(tail.offset() == 12);
    Tensor tv = tail.reshape({12});
    CHECK(tv(0) == 100.0f);
    CHECK(tv(11) == 23.0f);
    tv(11) = 0.5f;
    CHECK(x(3, 5) == 0.5f);
}

TEST_CASE("transpose and permute follow numpy") {
    Tensor x = arange2(2, 3);
    Tensor t = x.transpose();
    CHECK(t.shape() == Shape{3, 2});
    CHECK(t.strides() == Shape{1, 3});
    CHECK(t.to_vector() == std::vector<float>{0, 3, 1, 4, 2, 5});
    CHECK(x.transpose(1, 0).to_vector() == t.to_vector());
    CHECK(x.transpose(-1, -2).to_vector() == t.to_vector());
    CHECK(x.transpose(0, 1).to_vector() == x.to_vector());
    CHECK_THROWS_AS((void)x.transpose(0, 0), std::invalid_argument);
    // Transpose of a transpose is the original.
    CHECK(t.transpose().strides() == Shape{3, 1});
    CHECK(t.transpose().is_contiguous());

    // 3-D: transpose() reverses the axes.
    Tensor y = Tensor::arange(24).reshape({2, 3, 4});
    Tensor yr = y.transpose();
    CHECK(yr.shape() == Shape{4, 3, 2});
    CHECK(yr.strides() == Shape{1, 4, 12});
    CHECK(yr(3, 2, 1) == y(1, 2, 3));

    // Permutation: result axis i is input axis axes[i] (numpy.transpose(axes)).
    Tensor pm = y.transpose(2, 0, 1);
    CHECK(pm.shape() == Shape{4, 2, 3});
    CHECK(pm.strides() == Shape{1, 12, 4});
    for (int64_t i = 0; i < 2; ++i)
        for (int64_t j = 0; j < 3; ++j)
            for (int64_t k = 0; k < 4; ++k) CHECK(pm(k, i, j) == y(i, j, k));
    CHECK(y.permute({2, 0, 1}).strides() == pm.strides());
    CHECK(y.transpose(-1, 0, 1).strides() == pm.strides());

    // On 3+ axes two indices swap those axes (torch.transpose).
    Tensor sw = y.transpose(0, 2);
    CHECK(sw.shape() == Shape{4, 3, 2});
    CHECK(sw.strides() == Shape{1, 4, 12});
    Tensor sw2 = y.transpose(-1, -2);
    CHECK(sw2.shape() == Shape{2, 4, 3});
    CHECK(sw2.strides() == Shape{12, 1, 4});
    CHECK(sw2(1, 3, 2) == y(1, 2, 3));

    // Invalid permutations.
    std::string msg = message_of<std::invalid_argument>([&] { (void)y.transpose(0, 0, 1); });
    CHECK(contains(msg, "(0, 0, 1)"));
    CHECK(contains(msg, "(2, 3, 4)"));
    msg = message_of<std::invalid_argument>([&] { (void)y.transpose(0, 1, 2, 3); });
    CHECK(contains(msg, "(2, 3, 4)"));
    CHECK_THROWS_AS((void)y.transpose(0, 1, 3), std::invalid_argument);
    CHECK_THROWS_AS((void)y.permute({0, 1}), std::invalid_argument);
    CHECK_THROWS_AS((void)x.transpose(0, 1, 2), std::invalid_argument);
    CHECK_THROWS_AS((void)Tensor::arange(3).transpose(0, 0), std::invalid_argument);
    CHECK(Tensor::arange(3).transpose().shape() == Shape{3});
}

TEST_CASE("4-D split heads: (B, T, H, hd) -> (B, H, T, hd) via transpose(0, 2, 1, 3)") {
    const int64_t B = 2, T = 3, H = 2, hd = 4, D = H * hd;
    Tensor x = Tensor::arange(B * T * D).reshape({B, T, D});
    Tensor q = x.reshape({B, T, H, hd}).transpose(0, 2, 1, 3);
    CHECK(q.shape() == Shape{B, H, T, hd});
    CHECK(q.strides() == Shape{T * D, hd, D, 1});
    CHECK_FALSE(q.is_contiguous());
    for (int64_t b = 0; b < B; ++b)
        for (int64_t h = 0; h < H; ++h)
            for (int64_t t = 0; t < T; ++t)
                for (int64_t j = 0; j < hd; ++j)
                    CHECK(q(b, h, t, j) == static_cast<float>(b * T * D + t * D + h * hd + j));
    Tensor qc = q.contiguous();
    CHECK(qc.strides() == Shape{H * T * hd, T * hd, hd, 1});
    // transpose(1, 2) on 4-D swaps the two middle axes (torch), same result.
    CHECK(x.reshape({B, T, H, hd}).transpose(1, 2).strides() == q.strides());
    Tensor merged = qc.transpose(0, 2, 1, 3).reshape({B, T, D});
    CHECK(allclose(merged, x));
    CHECK(merged.to_vector() == x.to_vector());
}

TEST_CASE("swapaxes") {
    Tensor y = Tensor::arange(24).reshape({2, 3, 4});
    Tensor s = y.swapaxes(0, 1);
    CHECK(s.shape() == Shape{3, 2, 4});
    CHECK(s.strides() == Shape{4, 12, 1});
    CHECK(s(2, 1, 3) == y(1, 2, 3));
    Tensor s2 = y.swapaxes(-1, -2);
    CHECK(s2.shape() == Shape{2, 4, 3});
    CHECK(s2(0, 3, 1) == y(0, 1, 3));
    CHECK(y.swapaxes(1, 1).strides() == y.strides());
    std::string msg = message_of<std::out_of_range>([&] { (void)y.swapaxes(0, 3); });
    CHECK(contains(msg, "axis 3"));
    CHECK(contains(msg, "(2, 3, 4)"));
}

TEST_CASE("select and slice are views") {
    Tensor x = arange2(3, 4);
    Tensor r1 = x.select(0, 1);
    CHECK(r1.shape() == Shape{4});
    CHECK(r1.to_vector() == std::vector<float>{4, 5, 6, 7});
    CHECK(x[2].to_vector() == std::vector<float>{8, 9, 10, 11});
    Tensor c2 = x.select(1, 2);
    CHECK(c2.shape() == Shape{3});
    CHECK(c2.strides() == Shape{4});
    CHECK(c2.offset() == 2);
    CHECK(c2.to_vector() == std::vector<float>{2, 6, 10});
    CHECK(x.select(-1, 3).to_vector() == std::vector<float>{3, 7, 11});
    c2(1) = -6.0f;
    CHECK(x(1, 2) == -6.0f);
    r1(0) = -4.0f;
    CHECK(x(1, 0) == -4.0f);

    Tensor s = x.slice(1, 1, 3);
    CHECK(s.shape() == Shape{3, 2});
    CHECK(s.strides() == Shape{4, 1});
    CHECK(s.offset() == 1);
    CHECK_FALSE(s.is_contiguous());
    CHECK(s.to_vector() == std::vector<float>{1, 2, 5, -6, 9, 10});
    s(2, 1) = 99.0f;
    CHECK(x(2, 2) == 99.0f);
    CHECK(x.slice(0, 1, 1).shape() == Shape{0, 4});
    CHECK(x.slice(-1, 0, 4).to_vector() == x.to_vector());

    // Head h of the split-heads view is a (T, hd) view into x.
    const int64_t T = 3, H = 2, hd = 2;
    Tensor heads = x.reshape({T, H, hd}).transpose(1, 0, 2);
    Tensor h1 = heads.select(0, 1);
    CHECK(h1.shape() == Shape{T, hd});
    CHECK(h1(2, 1) == x(2, 3));
    h1.fill(0.0f);
    CHECK(x(0, 2) == 0.0f);
    CHECK(x(2, 3) == 0.0f);
    CHECK(x(2, 1) == 9.0f);

    std::string msg = message_of<std::out_of_range>([&] { (void)x.select(0, 3); });
    CHECK(contains(msg, "(3, 4)"));
    msg = message_of<std::out_of_range>([&] { (void)x.slice(1, 2, 5); });
    CHECK(contains(msg, "(3, 4)"));
    CHECK_THROWS_AS((void)x.slice(1, 3, 2), std::out_of_range);
    CHECK_THROWS_AS((void)x.slice(2, 0, 1), std::out_of_range);
}

TEST_CASE("fill and assign through views") {
    Tensor x = Tensor::zeros({3, 3});
    x.transpose().select(0, 1).fill(2.0f);  // column 1
    CHECK(x.to_vector() == std::vector<float>{0, 2, 0, 0, 2, 0, 0, 2, 0});
    x.slice(0, 0, 2).slice(1, 1, 3).assign(Tensor::from_data({2, 2}, {1, 2, 3, 4}));
    CHECK(x.to_vector() == std::vector<float>{0, 1, 2, 0, 3, 4, 0, 2, 0});
    std::string msg = message_of<std::invalid_argument>([&] { x.assign(Tensor::zeros({3, 2})); });
    CHECK(contains(msg, "(3, 2)"));
    CHECK(contains(msg, "(3, 3)"));

    // Overlapping self-assignment behaves as if the source were copied first.
    Tensor y = arange2(3, 3);
    y.assign(y.transpose());
    CHECK(y.to_vector() == std::vector<float>{0, 3, 6, 1, 4, 7, 2, 5, 8});
}

TEST_CASE("matmul: 2-D against hand results") {
    Tensor a = Tensor::from_data({2, 3}, {1, 2, 3, 4, 5, 6});
    Tensor b = Tensor::from_data({3, 2}, {7, 8, 9, 10, 11, 12});
    Tensor c = matmul(a, b);
    CHECK(c.shape() == Shape{2, 2});
    CHECK(c.to_vector() == std::vector<float>{58, 64, 139, 154});
    CHECK(matmul(b, a).to_vector() == std::vector<float>{39, 54, 69, 49, 68, 87, 59, 82, 105});
    CHECK(matmul(a, Tensor::eye(3)).to_vector() == a.to_vector());

    // a @ a.T with the transpose as a non-contiguous operand.
    CHECK(matmul(a, a.transpose()).to_vector() == std::vector<float>{14, 32, 32, 77});
    CHECK(matmul(a.transpose(), a).to_vector() ==
          std::vector<float>{17, 22, 27, 22, 29, 36, 27, 36, 45});
    // Column slice as operand: a[:, 1:3] = [[2, 3], [5, 6]].
    CHECK(matmul(a.slice(1, 1, 3), Tensor::eye(2)).to_vector() == std::vector<float>{2, 3, 5, 6});
    CHECK(matmul(a.slice(1, 1, 3), a.slice(1, 0, 2)).to_vector() ==
          std::vector<float>{14, 19, 29, 40});

    std::string msg = message_of<std::invalid_argument>([&] { (void)matmul(a, a); });
    CHECK(contains(msg, "(2, 3)"));
    CHECK_THROWS_AS((void)matmul(Tensor::arange(3), a), std::invalid_argument);
}

TEST_CASE("matmul: larger sizes agree with a naive triple loop") {
    // Sizes that exercise the 4-row and 8-column blocks and their remainders.
    const int64_t m = 13, k = 7, n = 21;
    std::vector<float> av, bv;
    for (int64_t i = 0; i < m * k; ++i) av.push_back(static_cast<float>((i * 7) % 11) - 5.0f);
    for (int64_t i = 0; i < k * n; ++i) bv.push_back(static_cast<float>((i * 5) % 13) - 6.0f);
    Tensor a = Tensor::from_data({m, k}, av);
    Tensor b = Tensor::from_data({k, n}, bv);
    Tensor c = matmul(a, b);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            float s = 0.0f;
            for (int64_t p = 0; p < k; ++p) s += av[static_cast<size_t>(i * k + p)] * bv[static_cast<size_t>(p * n + j)];
            CHECK(c(i, j) == s);  // small integers: exact in float
        }
    // (b.T @ a.T) == (a @ b).T
    CHECK(matmul(b.transpose(), a.transpose()).to_vector() == c.transpose().to_vector());
    // Column blocks beyond 512 wide.
    Tensor ones = Tensor::full({3, 600}, 1.0f);
    Tensor w = matmul(Tensor::full({2, 3}, 2.0f), ones);
    CHECK(w.shape() == Shape{2, 600});
    for (float v : w.to_vector()) CHECK(v == 6.0f);
}

TEST_CASE("matmul: batched and broadcast") {
    // Two 2x2 batches: [[1,2],[3,4]] and [[5,6],[7,8]].
    Tensor a = Tensor::from_data({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    Tensor b = Tensor::from_data({2, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0});
    Tensor c = matmul(a, b);
    CHECK(c.shape() == Shape{2, 2, 2});
    // batch 0: a0 @ I = a0; batch 1: a1 @ swap = columns swapped.
    CHECK(c.to_vector() == std::vector<float>{1, 2, 3, 4, 6, 5, 8, 7});

    // Right operand 2-D: used for every batch.
    Tensor w = Tensor::from_data({2, 3}, {1, 0, 1, 0, 1, 1});
    Tensor cw = matmul(a, w);
    CHECK(cw.shape() == Shape{2, 2, 3});
    CHECK(cw.to_vector() == std::vector<float>{1, 2, 3, 3, 4, 7, 5, 6, 11, 7, 8, 15});

    // Left operand 2-D: used for every batch.
    Tensor l = Tensor::from_data({1, 2}, {1, 1});
    Tensor cl = matmul(l, a);
    CHECK(cl.shape() == Shape{2, 1, 2});
    CHECK(cl.to_vector() == std::vector<float>{4, 6, 12, 14});

    // Attention-shaped: q @ k^T per head with non-contiguous operands.
    const int64_t T = 3, H = 2, hd = 2, D = H * hd;
    Tensor x = arange2(T, D);
    Tensor q = x.reshape({T, H, hd}).transpose(1, 0, 2);  // (H, T, hd), not contiguous
    Tensor kt = q.transpose(-1, -2);                      // (H, hd, T)
    CHECK(kt.shape() == Shape{H, hd, T});
    Tensor s = matmul(q, kt);
    CHECK(s.shape() == Shape{H, T, T});
    for (int64_t h = 0; h < H; ++h)
        for (int64_t i = 0; i < T; ++i)
            for (int64_t j = 0; j < T; ++j) {
                float dot = 0.0f;
                for (int64_t e = 0; e < hd; ++e) dot += x(i, h * hd + e) * x(j, h * hd + e);
                CHECK(s(h, i, j) == dot);
            }
    // Head 0 by hand: rows [0,1], [4,5], [8,9] -> dot products.
    CHECK(s.select(0, 0).to_vector() == std::vector<float>{1, 5, 9, 5, 41, 77, 9, 77, 145});

    // 4-D batch axes.
    Tensor a4 = Tensor::arange(2 * 2 * 2 * 3).reshape({2, 2, 2, 3});
    Tensor c4 = matmul(a4, Tensor::eye(3));
    CHECK(c4.shape() == Shape{2, 2, 2, 3});
    CHECK(c4.to_vector() == a4.to_vector());

    std::string msg = message_of<std::invalid_argument>(
        [&] { (void)matmul(Tensor::zeros({2, 2, 3}), Tensor::zeros({3, 3, 4})); });
    CHECK(contains(msg, "(2, 2, 3)"));
    CHECK(contains(msg, "(3, 3, 4)"));
    CHECK_THROWS_AS((void)matmul(Tensor::zeros({2, 2, 3}), Tensor::zeros({2, 4, 4})),
                    std::invalid_argument);
}

TEST_CASE("concat and stack") {
    Tensor a = arange2(2, 2);                              // [[0,1],[2,3]]
    Tensor b = Tensor::from_data({1, 2}, {10, 11});
    Tensor r = concat({a, b}, 0);
    CHECK(r.shape() == Shape{3, 2});
    CHECK(r.to_vector() == std::vector<float>{0, 1, 2, 3, 10, 11});
    Tensor c = concat({a, a.transpose()}, 1);
    CHECK(c.shape() == Shape{2, 4});
    CHECK(c.to_vector() == std::vector<float>{0, 1, 0, 2, 2, 3, 1, 3});
    CHECK(concat({a, a}, -1).to_vector() == std::vector<float>{0, 1, 0, 1, 2, 3, 2, 3});
    // Result is independent of its parts.
    r(0, 0) = 50.0f;
    CHECK(a(0, 0) == 0.0f);

    std::string msg = message_of<std::invalid_argument>([&] { (void)concat({a, b}, 1); });
    CHECK(contains(msg, "(1, 2)"));
    CHECK(contains(msg, "(2, 2)"));
    CHECK_THROWS_AS((void)concat({}, 0), std::invalid_argument);
    CHECK_THROWS_AS((void)concat({a, Tensor::arange(2)}, 0), std::invalid_argument);

    // Merging heads by concat along the last axis: (T, hd) x H -> (T, D).
    const int64_t T = 3, H = 2, hd = 2, D = H * hd;
    Tensor x = arange2(T, D);
    Tensor heads = x.reshape({T, H, hd}).transpose(1, 0, 2);
    CHECK(allclose(concat({heads[0], heads[1]}, 1), x));
    // A std::vector of parts (built in a loop) gives what the braced list gives.
    std::vector<Tensor> parts;
    for (int64_t h = 0; h < H; ++h) parts.push_back(heads[h]);
    CHECK(allclose(concat(parts, 1), x));
    CHECK(allclose(stack(parts, 0), stack({heads[0], heads[1]}, 0)));

    Tensor s0 = stack({a, a * 2.0f}, 0);
    CHECK(s0.shape() == Shape{2, 2, 2});
    CHECK(s0.to_vector() == std::vector<float>{0, 1, 2, 3, 0, 2, 4, 6});
    Tensor s1 = stack({a, a * 2.0f}, 1);
    CHECK(s1.shape() == Shape{2, 2, 2});
    CHECK(s1.to_vector() == std::vector<float>{0, 1, 0, 2, 2, 3, 4, 6});
    Tensor s2 = stack({a, a * 2.0f}, -1);
    CHECK(s2.shape() == Shape{2, 2, 2});
    CHECK(s2.to_vector() == std::vector<float>{0, 0, 1, 2, 2, 4, 3, 6});
    CHECK(stack({heads[0], heads[1]}).shape() == Shape{H, T, hd});
    CHECK(stack({heads[0], heads[1]}).to_vector() == heads.to_vector());
    msg = message_of<std::invalid_argument>([&] { (void)stack({a, b}); });
    CHECK(contains(msg, "(1, 2)"));
    CHECK(contains(msg, "(2, 2)"));
    CHECK_THROWS_AS((void)stack({a, a}, 3), std::out_of_range);
}

TEST_CASE("elementwise arithmetic") {
    Tensor a = Tensor::from_data({2, 2}, {1, 2, 3, 4});
    Tensor b = Tensor::from_data({2, 2}, {10, 20, 30, 40});
    CHECK((a + b).to_vector() == std::vector<float>{11, 22, 33, 44});
    CHECK((b - a).to_vector() == std::vector<float>{9, 18, 27, 36});
    CHECK((a * b).to_vector() == std::vector<float>{10, 40, 90, 160});
    CHECK((a * 0.5f).to_vector() == std::vector<float>{0.5f, 1, 1.5f, 2});
    CHECK((3.0f * a).to_vector() == std::vector<float>{3, 6, 9, 12});
    CHECK((b / 4.0f).to_vector() == std::vector<float>{2.5f, 5, 7.5f, 10});
    // Non-contiguous operands follow logical order.
    CHECK((a + a.transpose()).to_vector() == std::vector<float>{2, 5, 5, 8});
    // Results are new tensors.
    Tensor s = a + b;
    s(0, 0) = 0.0f;
    CHECK(a(0, 0) == 1.0f);

    std::string msg = message_of<std::invalid_argument>([&] { (void)(a + Tensor::zeros({2, 3})); });
    CHECK(contains(msg, "(2, 2)"));
    CHECK(contains(msg, "(2, 3)"));
    CHECK_THROWS_AS((void)(a - Tensor::zeros({4})), std::invalid_argument);
    CHECK_THROWS_AS((void)(a * Tensor::zeros({2, 2, 1})), std::invalid_argument);
}

TEST_CASE("allclose") {
    Tensor a = Tensor::from_data({3}, {1.0f, kNegInf, 0.0f});
    Tensor b = Tensor::from_data({3}, {1.0f + 1e-6f, kNegInf, 1e-7f});
    CHECK(allclose(a, b));
    CHECK(allclose(a, a));
    CHECK_FALSE(allclose(a, Tensor::from_data({3}, {1.0f, 0.0f, 0.0f})));
    CHECK_FALSE(allclose(a, Tensor::from_data({3}, {1.0f, -kNegInf, 0.0f})));
    CHECK_FALSE(allclose(a, Tensor::from_data({3}, {1.1f, kNegInf, 0.0f})));
    CHECK(allclose(a, Tensor::from_data({3}, {1.1f, kNegInf, 0.0f}), 0.2f, 0.0f));
    CHECK_FALSE(allclose(a, a.reshape({1, 3})));
    CHECK_FALSE(allclose(Tensor::from_data({1}, {std::nanf("")}), Tensor::from_data({1}, {std::nanf("")})));
    // Non-contiguous views compare by logical order.
    Tensor x = arange2(2, 3);
    CHECK(allclose(x.transpose(), Tensor::from_data({3, 2}, {0, 3, 1, 4, 2, 5})));
}

TEST_CASE("str and operator<<") {
    CHECK(shape_str({2, 4, 8}) == "(2, 4, 8)");
    CHECK(shape_str({4}) == "(4,)");
    CHECK(shape_str({}) == "()");

    Tensor x = arange2(2, 3);
    const std::string s = x.str();
    CHECK(s == "Tensor(shape=(2, 3), strides=(3, 1))\n[[0, 1, 2],\n [3, 4, 5]]");
    std::ostringstream os;
    os << x;
    CHECK(os.str() == s);

    const std::string t = x.transpose().str();
    CHECK(t == "Tensor(shape=(3, 2), strides=(1, 3))\n[[0, 3],\n [1, 4],\n [2, 5]]");
    CHECK(contains(x.select(1, 1).str(), "offset=1"));

    Tensor f = Tensor::from_data({3}, {0.5f, kNegInf, -1.25f});
    CHECK(f.str() == "Tensor(shape=(3,), strides=(1,))\n[ 0.5000,    -inf, -1.2500]");

    Tensor y = Tensor::arange(12).reshape({2, 2, 3});
    CHECK(y.str() ==
          "Tensor(shape=(2, 2, 3), strides=(6, 3, 1))\n"
          "[[[ 0,  1,  2],\n  [ 3,  4,  5]],\n\n [[ 6,  7,  8],\n  [ 9, 10, 11]]]");

    // Large tensors are summarised like numpy: first/last 3 per axis.
    Tensor big = Tensor::arange(64 * 64).reshape({64, 64});
    const std::string bs = big.str();
    CHECK(contains(bs, "[[   0,    1,    2, ..., 61, 62, 63]") == false);  // widths are common
    CHECK(contains(bs, "[[   0,    1,    2, ...,   61,   62,   63],"));
    CHECK(contains(bs, " ...,\n"));
    CHECK(contains(bs, "[4032, 4033, 4034, ..., 4093, 4094, 4095]]"));
    CHECK(bs.size() < 400);
    // Small enough tensors are printed in full.
    CHECK_FALSE(contains(Tensor::arange(1000).str(), "..."));
    CHECK(contains(Tensor::arange(1001).str(), "..."));

    CHECK(Tensor().str() == "Tensor(shape=(0,), strides=(1,))\n[]");
}
