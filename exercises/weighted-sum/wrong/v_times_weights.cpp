// Wrong on purpose: V · weights; (T, hd) · (T, T) does not line up when hd != T,
// so matmul throws with the two shapes.
#include <attnlab/tensor.hpp>

using namespace attnlab;

Tensor attend(const Tensor& weights, const Tensor& v) {
    return matmul(v, weights);
}
