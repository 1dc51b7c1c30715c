// The causal-mhsa exercise written against Eigen (see split-heads.cpp).
#include <Eigen/Dense>
#include <cmath>
#include <limits>

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// x: (T, D), w_*: (D, D) -> (T, D)
Matrix causal_mhsa(const Matrix& x, const Matrix& w_q, const Matrix& w_k, const Matrix& w_v, const Matrix& w_o, int n_heads) {
    const Matrix q = x * w_q, k = x * w_k, v = x * w_v;
    const Eigen::Index T = x.rows(), D = x.cols(), hd = D / n_heads;
    Matrix concat(T, D);
    for (int h = 0; h < n_heads; ++h) {
        Matrix scores = q.middleCols(h * hd, hd) * k.middleCols(h * hd, hd).transpose() / std::sqrt(float(hd));
        for (Eigen::Index i = 0; i < T; ++i)
            for (Eigen::Index j = i + 1; j < T; ++j) scores(i, j) = -std::numeric_limits<float>::infinity();
        Eigen::VectorXf row_max = scores.rowwise().maxCoeff();
        Matrix weights = (scores.colwise() - row_max).array().exp().matrix();
        Eigen::VectorXf sums = weights.rowwise().sum();
        weights = sums.cwiseInverse().asDiagonal() * weights;
        concat.middleCols(h * hd, hd) = weights * v.middleCols(h * hd, hd);
    }
    return concat * w_o;
}
