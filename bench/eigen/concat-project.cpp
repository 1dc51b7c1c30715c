// The concat-project exercise written against Eigen (see split-heads.cpp).
#include <Eigen/Dense>
#include <vector>

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// heads: H matrices of (T, hd), w_o: (D, D) -> (T, D)
Matrix merge_project(const std::vector<Matrix>& heads, const Matrix& w_o) {
    const Eigen::Index T = heads[0].rows(), hd = heads[0].cols();
    Matrix concat(T, hd * static_cast<Eigen::Index>(heads.size()));
    for (size_t h = 0; h < heads.size(); ++h) concat.middleCols(static_cast<Eigen::Index>(h) * hd, hd) = heads[h];
    return concat * w_o;
}
