#pragma once
// The learner's launches joined with NVRTC's kernels: what occupancy is
// worked out from, in the report's words and in its JSON.
#include <map>
#include <string>

#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/check/gpu_resources.hpp"

namespace attnlab {

// The block size and dynamic shared memory each of the learner's kernels was
// launched with (and the case it was launched in): the largest launch of each name over the cases, under the
// launch's own name and, for a kernel NVRTC names otherwise (`tile<16>` for a
// launch of `tile<TILE>`), under NVRTC's name too.
std::map<std::string, LaunchShape> learner_launch_shapes(const CheckResult& result);

}  // namespace attnlab
