#pragma once
// cg::reduce on attnlab's emulator: a butterfly of shfl_xor over the tile, so
// every thread of the tile gets the result (as CUDA's does).
#include "../cooperative_groups.h"

namespace cooperative_groups {

template <unsigned N, class T, class Op> T reduce(const thread_block_tile<N>& tile, T value, Op op) {
    for (unsigned offset = N / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, int(offset)));
    return value;
}

}  // namespace cooperative_groups
