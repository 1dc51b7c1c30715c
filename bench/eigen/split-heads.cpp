// The split-heads exercise written against Eigen, for bench/check_latency:
// how long a learner would wait for the compiler if attnlab used Eigen.
#include <Eigen/Dense>
#include <vector>

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// x: (T, D) -> H matrices of (T, hd)
std::vector<Matrix> split_heads(const Matrix& x, int n_heads) {
    const Eigen::Index hd = x.cols() / n_heads;
    std::vector<Matrix> heads;
    for (int h = 0; h < n_heads; ++h) heads.push_back(x.middleCols(h * hd, hd));
    return heads;
}
