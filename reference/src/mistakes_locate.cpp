// Locating the first stage that differs for a wrong answer no catalogued
// mistake explains (attnlab/reference/locate.hpp). The layer ends with two
// invertible steps, the merge (a reshuffle) and · W_O (a square matrix that is
// invertible in every case but a deliberately singular one), so the learner's
// concat can be recovered from their output, assuming their · W_O is right,
// and compared with the reference's; before that, causality pins one more
// fact: token 0 sees only itself, so each head's output row 0 is V's row 0.
// A wrong · W_O itself cannot be told from a wrong concat when T < D (any
// (T, D) output is some concat times W_O), so "out" is never claimed.
#include "attnlab/reference/locate.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "registry_support.hpp"

namespace attnlab::reference {

namespace {

using support::Index;

bool close(const Matrix& a, const Matrix& b, double rel_tol) {
    if (a.rows() != b.rows() || a.cols() != b.cols() || !a.allFinite()) return false;
    const double scale = std::max(1.0, b.cwiseAbs().maxCoeff());
    return (a - b).cwiseAbs().maxCoeff() <= rel_tol * scale;
}

// The same numbers, possibly in other places (a merge that moves them).
bool same_numbers(const Matrix& a, const Matrix& b, double rel_tol) {
    if (a.size() != b.size() || !a.allFinite()) return false;
    std::vector<double> x(a.data(), a.data() + a.size()), y(b.data(), b.data() + b.size());
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    const double scale = std::max(1.0, b.cwiseAbs().maxCoeff());
    for (size_t i = 0; i < x.size(); ++i)
        if (std::fabs(x[i] - y[i]) > rel_tol * scale) return false;
    return true;
}

// One sequence of causal MHSA: the learner's out against the reference's stages.
std::string locate_in_layer(const Matrix& out, const MhsaStages& ref, const Matrix& w_o, double rel_tol) {
    if (close(out, ref.out, rel_tol)) return "";
    // out = concat · W_O, so W_Oᵀ · concatᵀ = outᵀ.
    const Eigen::FullPivLU<Matrix> lu(w_o.transpose());
    if (!lu.isInvertible() || !out.allFinite()) return "";
    const Matrix concat = lu.solve(out.transpose()).transpose();
    if (!close(concat * w_o, out, rel_tol)) return "";
    if (same_numbers(concat, ref.concat, rel_tol)) return "concat";
    const Heads heads = split_heads(concat, static_cast<int>(ref.heads.size()));
    const Heads v = split_heads(ref.v, static_cast<int>(ref.heads.size()));
    for (size_t h = 0; h < heads.size(); ++h)
        if (!close(heads[h].row(0), v[h].row(0), rel_tol)) return "heads";
    return "weights";
}

}  // namespace

StageLocation locate_first_difference(const std::string& op_name, const Inputs& inputs, const Value& learner,
                                      double rel_tol) {
    StageLocation where;
    if (learner.kind != ValueKind::Tensor) return where;
    try {
        const support::Args a(inputs, find_op(op_name) ? find_op(op_name)->params : std::vector<Param>{});
        if (op_name == "causal_mhsa") {
            const TensorData& t = learner.tensor;
            if (t.ndim() != 2) return where;
            const MhsaStages ref = causal_mhsa(a.matrix("x"), a.matrix("w_q"), a.matrix("w_k"), a.matrix("w_v"),
                                               a.matrix("w_o"), a.integer("n_heads"));
            where.stage = locate_in_layer(support::read_matrix(t.data.data(), t.shape[0], t.shape[1]), ref,
                                          a.matrix("w_o"), rel_tol);
        } else if (op_name == "batched_causal_mhsa") {
            const TensorData& t = learner.tensor;
            const std::vector<Matrix> xs = a.matrices("x");
            if (t.ndim() != 3 || t.shape[0] != static_cast<int64_t>(xs.size())) return where;
            const std::vector<MhsaStages> ref = batched_causal_mhsa(xs, a.matrix("w_q"), a.matrix("w_k"), a.matrix("w_v"),
                                                                    a.matrix("w_o"), a.integer("n_heads"));
            const Index rows = t.shape[1], cols = t.shape[2];
            for (size_t b = 0; b < ref.size() && where.stage.empty(); ++b) {
                const Matrix out = support::read_matrix(t.data.data() + static_cast<Index>(b) * rows * cols, rows, cols);
                where.stage = locate_in_layer(out, ref[b], a.matrix("w_o"), rel_tol);
                where.sequence = static_cast<int>(b);
            }
        }
    } catch (const std::exception&) {
        return {};  // inputs or output that do not fit: nothing to say
    }
    return where;
}

}  // namespace attnlab::reference
