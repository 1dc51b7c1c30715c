// Wrong on purpose: integer division drops the partial tile (72 -> 64).
#include <attnlab/tensor.hpp>

long long padded_head_dim(int head_dim) {
    return head_dim / 16 * 16;
}
