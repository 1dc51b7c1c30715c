#pragma once
// A check's cases split between learner programs that run side by side, one
// per core: most of a CUDA check's time is its emulated cases, each of which
// keeps one core busy (the emulator runs a program's blocks on one OS thread).
#include <cstdint>
#include <vector>

#include "attnlab/common/value.hpp"

namespace attnlab {

struct Case;

// The work of one case, for balancing: the floats it moves in and out.
int64_t case_work(const Case& c, const Value& expected);

// `work[k]` per case, split into at most `programs` groups: the heaviest case
// first, each to the group with the least work so far (ties: the lower
// group), every group non-empty and in ascending case order. One program, or
// fewer than two cases, keeps them all in one group.
std::vector<std::vector<uint32_t>> case_groups(const std::vector<int64_t>& work, unsigned programs);

}  // namespace attnlab
