// Wrong on purpose: std::ceil comes too late, head_dim / 16 is already an
// integer division that rounded down, so this also gives 72 -> 64.
#include <attnlab/tensor.hpp>

#include <cmath>

long long padded_head_dim(int head_dim) {
    return static_cast<long long>(std::ceil(head_dim / 16)) * 16;
}
