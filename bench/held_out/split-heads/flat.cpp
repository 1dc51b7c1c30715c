// expect: split_without_transpose
#include <attnlab/tensor.hpp>
using namespace attnlab;
Tensor split_heads(const Tensor& x, int n_heads) {
    const int64_t T = x.shape(0), D = x.shape(1);
    return x.reshape({n_heads, T, D / n_heads}).contiguous();
}
