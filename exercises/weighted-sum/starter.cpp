// Weighted sum of the values
//
//   out(h, i, c) = sum over j of weights(h, i, j) * v(h, j, c)
//
// Row i of a head's weights says how much token i takes from each token j.
#include <attnlab/tensor.hpp>

using namespace attnlab;

// weights: (H, T, T), v: (H, T, hd)  ->  (H, T, hd)
Tensor attend(const Tensor& weights, const Tensor& v) {
    // TODO: every token's output in every head, as the formula above says.

    (void)weights;
    return Tensor::zeros(v.shape());  // TODO: replace with your result
}
