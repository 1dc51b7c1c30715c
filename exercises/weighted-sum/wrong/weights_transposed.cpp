// Wrong on purpose: weights^T · V, which sums over the queries: output row i
// mixes the values by column i of the weights.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor attend(const Tensor& weights, const Tensor& v) {
    return matmul(weights.transpose(0, 2, 1), v);
}
