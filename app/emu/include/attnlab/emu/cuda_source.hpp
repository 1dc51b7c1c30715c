#pragma once
// A learner's .cu file made ready for the two compilers attnlab gives it,
// line for line (every diagnostic still points at the learner's own line):
//   for_emulator: `k<<<grid, block, smem>>>(args)` becomes a launch on
//                 attnlab's CPU emulator, each `[static] __shared__ T
//                 a[N * M], b[(N + 1)][M], *p;` a reference into the block's
//                 shared memory (same C++ type: `float (&a)[N * M]`), T any
//                 type (`Pair<float, int>`, a struct's body, named once by a
//                 typedef), also in a macro's body, and `extern __shared__ T
//                 s[];` a pointer to the launch's dynamic shared memory. The
//                 rest is the learner's plain CUDA, whose loads and stores the
//                 compiler instruments;
//   for_nvrtc:    only the launches change (into a stub that names the kernel,
//                 which instantiates a templated one), because NVRTC compiles
//                 device code and cannot launch.
// Comments, string (raw ones too) and character literals are never touched.
// A kernel launch is read with every bracket balanced: the kernel is any
// postfix expression (`k<(N > 2)>`, `(c ? k2 : k1)`, `pick(n)`), the
// configuration any expressions (`dim3(a, b)`, a lambda's call).
// attnlab's own kernels get the same rewrite when they are built for the
// emulator (kernels/CMakeLists.txt), so it lives below both: pure text, in
// the library attnlab_cuda_source.
#include <string>
#include <vector>

namespace attnlab {

// A construct of a learner's file that attnlab's rewrite for its runtime
// cannot read (CUDA: a kernel launch or a `__shared__` declaration). The check
// refuses the file on that line in attnlab's own words before compiling it:
// never the compiler's parse error on a rewrite, never a variable left unchecked.
enum class UnreadConstruct { Launch, SharedDeclaration, SharedInitialiser };
struct UnreadPart {
    UnreadConstruct construct = UnreadConstruct::Launch;
    int line = 0;  // 1-based, in the file as the learner wrote it
    bool operator==(const UnreadPart& o) const { return construct == o.construct && line == o.line; }
};

}  // namespace attnlab

namespace attnlab::cuda_source {

std::string for_emulator(const std::string& source);
std::string for_nvrtc(const std::string& source);

// What for_emulator cannot read, by line (at most 20): a `<<<` that starts no
// launch it reads, a `__shared__` declaration it cannot read (or one with an
// initialiser, which nvcc refuses too). The check refuses such a file on
// those lines in attnlab's words (runtime_profile.hpp: UnreadPart) instead of
// compiling it into a parse error of g++'s on the rewrite, or a `__shared__`
// variable compiled as a plain static that no check sees.
std::vector<UnreadPart> unread_parts(const std::string& source);

// The compiler's output about `rewritten`, with every quoted source line the
// rewrite changed shown as the learner wrote it (and its caret line, whose
// columns were the rewrite's, dropped): errors quote the learner's code only.
std::string restore_learner_lines(const std::string& output, const std::string& original, const std::string& rewritten);

}  // namespace attnlab::cuda_source
