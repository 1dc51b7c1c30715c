// Weighted sum of the values: one batched matmul over the head axis.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// weights: (H, T, T), v: (H, T, hd)  ->  (H, T, hd)
Tensor attend(const Tensor& weights, const Tensor& v) {
    // Row i of the product combines the rows of v with the coefficients in
    // row i of the weights: token i's weighted average of the values. The
    // weights go on the left; weights^T would sum over the queries instead.
    Tensor out = matmul(weights, v);  // (H, T, T) · (H, T, hd) -> (H, T, hd)
    probe("heads", out);
    return out;
}
