#pragma once
// The learner's compiled object against learner_object.hpp's rules, read from
// disk: the object, g++'s tree dumps of the sanitizer's pass, and the names
// every library of the program's link defines (attnlab's archives on the
// command line; the C and C++ runtimes this process itself runs on, which
// the learner's program loads too).
#include <filesystem>
#include <string>
#include <vector>

#include "attnlab/core/check/learner_object.hpp"

namespace attnlab {

namespace fs = std::filesystem;

struct LearnerObjectCheck {
    std::vector<ObjectProblem> problems;
    std::string error;  // the object or a dump could not be read: attnlab's problem, not the learner's
};

// `link_inputs`: the link's own inputs besides the object (archives, shared
// libraries; flags such as "-lbacktrace" are skipped). `tree_dumps`: the files
// -fdump-tree-tsan[0]=FILE wrote, read when `require_instrumented`.
LearnerObjectCheck check_learner_object(const fs::path& object, const std::vector<std::string>& link_inputs, bool require_instrumented,
                                        const std::vector<fs::path>& tree_dumps);

// The names the libraries in `paths` define (archives by their index, shared
// libraries by .dynsym), plus the C and C++ runtimes'; cached by the files'
// sizes and times. Unreadable entries are skipped.
const LibraryNames& library_names(const std::vector<std::string>& paths);

}  // namespace attnlab
