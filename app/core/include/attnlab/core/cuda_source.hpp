#pragma once
// A learner's .cu file made ready for the two compilers attnlab gives it,
// line for line (every diagnostic still points at the learner's own line):
//   for_emulator: `k<<<grid, block, smem>>>(args)` becomes a checked launch on
//                 attnlab's CPU emulator, each array of `[static] __shared__
//                 float a[N * M], b[(N + 1)][M];` a checked shared array,
//                 `extern __shared__ float s[];` the launch's dynamic shared
//                 memory (looked up at each use when declared at file scope);
//                 the host compiler sees plain C++;
//   for_nvrtc:    only the launches change (into a stub that names the kernel,
//                 which instantiates a templated one), because NVRTC compiles
//                 device code and cannot launch.
// Comments, string (raw ones too) and character literals are never touched.
// What the rewrite does not recognise stays as written (a scalar
// `__shared__ float x;` compiles and runs, unchecked).
#include <string>

namespace attnlab::cuda_source {

std::string for_emulator(const std::string& source);
std::string for_nvrtc(const std::string& source);

// The header NVRTC sees as <attnlab/cuda.hpp>: dev_ptr<T> is T*, DeviceTensor
// a stub with the same members, and the launch stub for_nvrtc calls.
const std::string& nvrtc_prelude();

}  // namespace attnlab::cuda_source
