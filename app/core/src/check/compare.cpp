#include "attnlab/core/check/compare.hpp"

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

// int and float results: one value each.
Comparison compare_scalars(const Value& actual, const Value& expected, const Tolerance& tol) {
    Comparison c;
    if (actual.kind == ValueKind::Int) {
        if (actual.int_value != expected.int_value) {
            c.verdict = Verdict::WrongAnswer;
            c.mismatch_count = 1;
            c.max_abs_error = std::fabs(static_cast<double>(actual.int_value - expected.int_value));
            c.mismatches.push_back({{}, static_cast<double>(actual.int_value), static_cast<double>(expected.int_value), false});
        }
        return c;
    }
    if (actual.float_value == expected.float_value) return c;  // also the same infinity
    if (!std::isfinite(actual.float_value) && std::isfinite(expected.float_value)) {
        c.verdict = Verdict::NonFinite;
        c.nonfinite_value = actual.float_value;
        c.nonfinite_expected = expected.float_value;
    } else if (!within(actual.float_value, expected.float_value, tol)) {
        c.verdict = Verdict::WrongAnswer;
        c.mismatch_count = 1;
        c.max_abs_error = std::fabs(actual.float_value - expected.float_value);
        c.mismatches.push_back({{}, actual.float_value, expected.float_value, false});
    }
    return c;
}

// Tensors of the same shape, element by element.
class ElementComparison {
public:
    ElementComparison(const TensorData& reference, const Tolerance& tol, size_t max_reported)
        : r_(reference), tol_(tol), max_reported_(max_reported) {}

    // Whether it matches is element_matches'; this sorts what does not.
    void element(size_t i, double av, double rv) {
        const bool finite = std::isfinite(av) && std::isfinite(rv);
        if (finite) c_.max_abs_error = std::max(c_.max_abs_error, std::fabs(av - rv));
        if (element_matches(av, rv, tol_)) return;
        if (std::isnan(rv)) {
            mismatch(i, av, rv, false, true);
        } else if (std::isinf(rv)) {
            if (std::isnan(av)) note_nonfinite(i, av, rv);
            mismatch(i, av, rv, true, true);
        } else if (!std::isfinite(av)) {
            note_nonfinite(i, av, rv);
            ++c_.mismatch_count;
            ++c_.one_sided_count;
        } else {
            mismatch(i, av, rv, false, false);
        }
    }

    Comparison result() {
        if (nonfinite_) c_.verdict = Verdict::NonFinite;
        else if (c_.mismatch_count > 0) c_.verdict = Verdict::WrongAnswer;
        return std::move(c_);
    }

private:
    void mismatch(size_t i, double av, double rv, bool masked, bool one_sided) {
        if (c_.mismatches.size() < max_reported_) c_.mismatches.push_back({r_.unravel(static_cast<int64_t>(i)), av, rv, masked});
        ++c_.mismatch_count;
        if (one_sided) ++c_.one_sided_count;
    }
    void note_nonfinite(size_t i, double av, double rv) {
        if (nonfinite_) return;
        nonfinite_ = true;
        c_.nonfinite_index = r_.unravel(static_cast<int64_t>(i));
        c_.nonfinite_value = av;
        c_.nonfinite_expected = rv;
    }

    const TensorData& r_;
    const Tolerance& tol_;
    size_t max_reported_;
    Comparison c_;
    bool nonfinite_ = false;
};

}  // namespace

bool element_matches(double a, double r, const Tolerance& tol) {
    // The reference never holds NaN, but a catalogued mistake's variant
    // can (a row masked entirely): NaN where the variant has NaN matches it.
    if (std::isnan(r)) return std::isnan(a);
    // A masked (or otherwise infinite) reference entry must match exactly:
    // -1e9 "almost" masks, but it is not what the exercise asks for.
    if (std::isinf(r)) return a == r;
    return std::isfinite(a) && within(a, r, tol);
}

bool tensors_match(const TensorData& actual, const TensorData& expected, const Tolerance& tol) {
    if (actual.shape != expected.shape || actual.data.size() != expected.data.size()) return false;
    for (size_t i = 0; i < expected.data.size(); ++i)
        if (!element_matches(actual.data[i], expected.data[i], tol)) return false;
    return true;
}

Comparison compare_values(const Value& actual, const Value& expected, const Tolerance& tol, size_t max_reported) {
    if (actual.kind != expected.kind) {
        Comparison c;
        c.verdict = Verdict::WrongShape;
        return c;
    }
    if (actual.kind != ValueKind::Tensor) return compare_scalars(actual, expected, tol);
    const TensorData& a = actual.tensor;
    const TensorData& r = expected.tensor;
    if (a.shape != r.shape || a.data.size() != r.data.size()) {
        Comparison c;
        c.verdict = Verdict::WrongShape;
        return c;
    }
    ElementComparison cmp(r, tol, max_reported);
    for (size_t i = 0; i < r.data.size(); ++i) cmp.element(i, a.data[i], r.data[i]);
    return cmp.result();
}

}  // namespace attnlab
