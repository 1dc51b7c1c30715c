// A correct alternative: add 16-wide tiles until they cover the head.
#include <attnlab/tensor.hpp>

long long padded_head_dim(int head_dim) {
    long long width = 0;
    while (width < head_dim) width += 16;
    return width;
}
