// Head dimension and tensor-core tiles
//
// A tensor core takes the head dimension 16 columns at a time. Return the
// width a head of head_dim columns occupies in such 16-wide tiles: the
// smallest multiple of 16 that is >= head_dim (64 -> 64, 72 -> 80, 1 -> 16).
// head_dim is at least 1.
#include <attnlab/tensor.hpp>

using namespace attnlab;

long long padded_head_dim(int head_dim) {
    // TODO: the padded width of head_dim.
    (void)head_dim;
    return 0;  // TODO: replace with your result
}
