// Correct alternative: one 2-D matmul per head, stacked. Same values; the
// batched matmul does the same work in one call.
#include <attnlab/tensor.hpp>

#include <vector>

using namespace attnlab;

Tensor attend(const Tensor& weights, const Tensor& v) {
    std::vector<Tensor> heads;
    for (int64_t h = 0; h < v.shape(0); ++h) heads.push_back(matmul(weights[h], v[h]));
    return stack(heads, 0);
}
