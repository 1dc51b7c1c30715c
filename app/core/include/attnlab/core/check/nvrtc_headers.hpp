#pragma once
// The headers NVRTC sees in a resource compile: the prelude attnlab/cuda.hpp
// (the learner's own header, app/learner/include, whose NVRTC part
// __CUDACC_RTC__ selects) and the files of app/core/nvrtc_headers/ (the C
// headers NVRTC has none of), embedded as they are by app/core/CMakeLists.txt.
#include <string>

namespace attnlab {

// The text of <file> ("attnlab/cuda.hpp", "float.h"...);
// empty for a file that is not there.
const std::string& embedded_nvrtc_header(const std::string& file);

// The header NVRTC sees as <attnlab/cuda.hpp>: the learner's own (its NVRTC
// part: DeviceTensor's members do nothing, host calls are no-ops, and the
// launch stub cuda_source::for_nvrtc calls).
inline const std::string& nvrtc_prelude() { return embedded_nvrtc_header("attnlab/cuda.hpp"); }

}  // namespace attnlab
