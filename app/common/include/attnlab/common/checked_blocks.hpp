#pragma once
// Which blocks of a sampled launch run the checked kernel: shared by the
// emulator's scheduler (app/emu/src/block_runner.cpp), which runs them, and
// the Kernel tab (app/core/src/views/kernel_views.cpp), which labels the
// others, without the emulator's device headers.
#include <cstdint>

namespace attnlab::emu {

// Which blocks of a launch run the checked (instrumented) kernel when the
// program also holds an unchecked copy of it (a second, uninstrumented build
// of the same file, for large cases): every block, or the grid's first and
// last (the last holds the tails: of T, of the heads, of the batch). An
// unchecked block computes every value it writes, at native speed, but no
// check, counter or trace sees its accesses (see README "Sampled cases").
enum class CheckedBlocks : uint8_t { All, FirstAndLast };

// Whether block `b` (linear id) of a launch of `nblocks` blocks is in the
// checked sample: the one place that says so, for the scheduler that runs it
// and the Kernel tab that labels the others unchecked.
constexpr bool block_in_sample(CheckedBlocks checked, uint64_t b, uint64_t nblocks) {
    return checked == CheckedBlocks::All || b == 0 || b + 1 == nblocks;
}

}  // namespace attnlab::emu
