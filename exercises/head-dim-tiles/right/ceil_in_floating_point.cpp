// A correct alternative: divide in floating point, then round up. Exact here:
// head_dim / 16.0 is a double, which holds every int and every int / 16 exactly.
#include <attnlab/tensor.hpp>

#include <cmath>

long long padded_head_dim(int head_dim) {
    return static_cast<long long>(std::ceil(head_dim / 16.0)) * 16;
}
