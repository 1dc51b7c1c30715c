// The width a head takes in 16-wide tensor-core tiles: head_dim rounded up to
// the next multiple of 16.
#include <attnlab/tensor.hpp>

#include <stdexcept>

using namespace attnlab;

long long padded_head_dim(int head_dim) {
    if (head_dim < 1) throw std::invalid_argument("padded_head_dim: head_dim must be at least 1");
    const long long tile = 16;
    // Integer division rounds down, so add tile - 1 first: every head_dim
    // that is not a multiple of 16 is pushed past the next multiple, and a
    // multiple of 16 stays where it is.
    const long long tiles = (head_dim + tile - 1) / tile;
    return tiles * tile;
}
