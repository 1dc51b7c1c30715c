#include "attnlab/core/compare.hpp"

#include <cmath>

namespace attnlab {

Comparison compare_values(const Value& actual, const Value& expected, const Tolerance& tol, size_t max_reported) {
    Comparison c;
    if (actual.kind != expected.kind) {
        c.verdict = Verdict::WrongShape;
        return c;
    }
    if (actual.kind == ValueKind::Int) {
        if (actual.int_value != expected.int_value) {
            c.verdict = Verdict::WrongAnswer;
            c.mismatch_count = 1;
            c.max_abs_error = std::fabs(static_cast<double>(actual.int_value - expected.int_value));
            c.mismatches.push_back({{}, static_cast<double>(actual.int_value), static_cast<double>(expected.int_value), false});
        }
        return c;
    }
    if (actual.kind == ValueKind::Float) {
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

    const TensorData& a = actual.tensor;
    const TensorData& r = expected.tensor;
    if (a.shape != r.shape || a.data.size() != r.data.size()) {
        c.verdict = Verdict::WrongShape;
        return c;
    }
    bool nonfinite = false;
    for (size_t i = 0; i < r.data.size(); ++i) {
        const double av = a.data[i], rv = r.data[i];
        // The reference never holds NaN, but a catalogued mistake's variant
        // can (a row masked entirely): NaN where the variant has NaN matches it.
        if (std::isnan(rv)) {
            if (!std::isnan(av)) {
                if (c.mismatches.size() < max_reported) c.mismatches.push_back({r.unravel(static_cast<int64_t>(i)), av, rv, false});
                ++c.mismatch_count;
                ++c.one_sided_count;
            }
            continue;
        }
        if (std::isinf(rv)) {
            // A masked (or otherwise infinite) reference entry must match exactly:
            // -1e9 "almost" masks, but it is not what the exercise asks for.
            if (av != rv) {
                if (std::isnan(av) && !nonfinite) {
                    nonfinite = true;
                    c.nonfinite_index = r.unravel(static_cast<int64_t>(i));
                    c.nonfinite_value = av;
                    c.nonfinite_expected = rv;
                }
                if (c.mismatches.size() < max_reported) c.mismatches.push_back({r.unravel(static_cast<int64_t>(i)), av, rv, true});
                ++c.mismatch_count;
                ++c.one_sided_count;
            }
            continue;
        }
        if (!std::isfinite(av)) {
            if (!nonfinite) {
                nonfinite = true;
                c.nonfinite_index = r.unravel(static_cast<int64_t>(i));
                c.nonfinite_value = av;
                c.nonfinite_expected = rv;
            }
            ++c.mismatch_count;
            ++c.one_sided_count;
            continue;
        }
        const double err = std::fabs(av - rv);
        if (err > c.max_abs_error) c.max_abs_error = err;
        if (!within(av, rv, tol)) {
            if (c.mismatches.size() < max_reported) c.mismatches.push_back({r.unravel(static_cast<int64_t>(i)), av, rv, false});
            ++c.mismatch_count;
        }
    }
    if (nonfinite) c.verdict = Verdict::NonFinite;
    else if (c.mismatch_count > 0) c.verdict = Verdict::WrongAnswer;
    return c;
}

}  // namespace attnlab
