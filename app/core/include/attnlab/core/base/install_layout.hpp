#pragma once
// Where attnlab finds its own files: the built-in course, the learner runtime
// (headers + libattnlab_learner.a), attnlab-sandbox and the window's fonts.
// Every "where is X" question is answered here and nowhere else.
//
// Two layouts, told apart by where the running executable is:
//  - installed: the executable is <prefix>/bin/attnlab and everything else is
//    found relative to it (<prefix>/share/attnlab/exercises,
//    <prefix>/lib/attnlab/{include,libattnlab_learner.a},
//    <prefix>/libexec/attnlab/{attnlab-sandbox,attnlab-nvrtc}), so a prefix keeps working
//    when it is moved as a whole;
//  - build tree: the absolute paths CMake wrote into build_config.hpp (the
//    source tree's exercises/ and headers, the build folder's targets).
// A prefix counts as installed when <prefix>/share/attnlab/exercises exists.
#include <filesystem>
#include <string>
#include <vector>

namespace attnlab {

namespace fs = std::filesystem;

struct InstallLayout {
    bool installed = false;      // false: the build tree
    fs::path prefix;             // the installation prefix (installed only)
    fs::path course_dir;         // the built-in course (exercises/)
    fs::path learner_include_dir;  // holds attnlab/tensor.hpp and attnlab/entry.hpp
    fs::path learner_library;    // libattnlab_learner.a
    fs::path learner_cuda_library;  // libattnlab_learner_cuda.a ("" when built without the emulator)
    fs::path emu_include_dir;    // holds attnlab/emu_device.hpp and attnlab/emu/ (the emulator's device surface)
    fs::path launch_report_include_dir;  // holds attnlab/common/launch_report.hpp, which the emulator's headers include
    fs::path cuda_include_dir;   // CUDA's headers for a learner's .cu on the emulator (<cuda_runtime.h>, <cuda_fp16.h>...)
    fs::path learner_gpu_library;  // libattnlab_learner_gpu.a ("" when built without nvcc); nvcc reads learner_include_dir's attnlab/cuda.hpp too
    fs::path sandbox;            // attnlab-sandbox
    fs::path nvrtc_tool;         // attnlab-nvrtc (the resource panel's NVRTC compile), beside the sandbox
    std::vector<fs::path> font_dirs;  // searched in order for the window's fonts

    // The layout an executable at `exe` (an absolute path) belongs to.
    static InstallLayout for_executable(const fs::path& exe);
    // This process's layout, from /proc/self/exe (computed once).
    static const InstallLayout& current();
};

// The course folder, first that applies: `flag` (--course DIR),
// $ATTNLAB_COURSE, the layout's built-in course.
fs::path resolve_course_dir(const fs::path& flag = {});

// The learner runtime and the sandbox: $ATTNLAB_LEARNER_INCLUDE,
// $ATTNLAB_LEARNER_LIB and $ATTNLAB_SANDBOX override the layout.
fs::path resolve_learner_include_dir();
fs::path resolve_learner_library();
fs::path resolve_sandbox();
// attnlab-nvrtc: $ATTNLAB_NVRTC_TOOL overrides the layout.
fs::path resolve_nvrtc_tool();

// The first of the layout's font folders holding `file` (e.g.
// "DejaVuSans.ttf"); empty when none does.
fs::path find_font_file(const std::string& file);

}  // namespace attnlab
