// Wrong on purpose: always adds a tile, so a multiple of 16 gets one too many (64 -> 80).
#include <attnlab/tensor.hpp>

long long padded_head_dim(int head_dim) {
    return (head_dim / 16 + 1) * 16;
}
