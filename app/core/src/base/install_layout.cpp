#include "attnlab/core/base/install_layout.hpp"

#include <cstdlib>

#include "attnlab/core/build_config.hpp"

namespace attnlab {
namespace {

fs::path env_path(const char* name) {
    const char* v = std::getenv(name);
    return (v && *v) ? fs::path(v) : fs::path();
}

// System folders where Debian (fonts-dejavu-core) and other distributions
// put DejaVu; the window falls back to ImGui's built-in font without them.
const char* const kSystemFontDirs[] = {"/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu", "/usr/local/share/fonts"};

// The prefix an executable in `exe_dir` was installed under: exe_dir with the
// install bin dir ("bin") taken off its end; empty when exe_dir does not end
// with it.
fs::path prefix_of(fs::path exe_dir) {
    const fs::path bindir = ATTNLAB_INSTALL_BINDIR;
    std::vector<fs::path> parts(bindir.begin(), bindir.end());
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        if (it->empty() || *it == ".") continue;
        if (exe_dir.filename() != *it) return {};
        exe_dir = exe_dir.parent_path();
    }
    return exe_dir;
}

}  // namespace

InstallLayout InstallLayout::for_executable(const fs::path& exe) {
    InstallLayout layout;
    const fs::path prefix = exe.is_absolute() ? prefix_of(exe.parent_path()) : fs::path();
    std::error_code ec;
    if (!prefix.empty() && fs::is_directory(prefix / ATTNLAB_INSTALL_DATADIR / "exercises", ec)) {
        layout.installed = true;
        layout.prefix = prefix;
        layout.course_dir = prefix / ATTNLAB_INSTALL_DATADIR / "exercises";
        layout.learner_include_dir = prefix / ATTNLAB_INSTALL_PKGLIBDIR / "include";
        layout.learner_library = prefix / ATTNLAB_INSTALL_PKGLIBDIR / "libattnlab_learner.a";
        if (fs::exists(prefix / ATTNLAB_INSTALL_PKGLIBDIR / "libattnlab_learner_cuda.a", ec))
            layout.learner_cuda_library = prefix / ATTNLAB_INSTALL_PKGLIBDIR / "libattnlab_learner_cuda.a";
        layout.emu_include_dir = layout.learner_include_dir;
        layout.launch_report_include_dir = layout.learner_include_dir;
        layout.cuda_include_dir = prefix / ATTNLAB_INSTALL_PKGLIBDIR / "cuda_include";
        if (fs::exists(prefix / ATTNLAB_INSTALL_PKGLIBDIR / "libattnlab_learner_gpu.a", ec))
            layout.learner_gpu_library = prefix / ATTNLAB_INSTALL_PKGLIBDIR / "libattnlab_learner_gpu.a";
        layout.sandbox = prefix / ATTNLAB_INSTALL_LIBEXECDIR / "attnlab-sandbox";
        layout.nvrtc_tool = prefix / ATTNLAB_INSTALL_LIBEXECDIR / "attnlab-nvrtc";
        // A prefix other than /usr may carry its own copy of the fonts.
        if (prefix != "/usr") layout.font_dirs.push_back(prefix / "share" / "fonts" / "truetype" / "dejavu");
    } else {
        layout.course_dir = ATTNLAB_EXERCISES_DIR;
        layout.learner_include_dir = ATTNLAB_LEARNER_INCLUDE_DIR;
        layout.learner_library = ATTNLAB_LEARNER_LIBRARY;
        layout.learner_cuda_library = ATTNLAB_LEARNER_CUDA_LIBRARY;
        layout.emu_include_dir = ATTNLAB_EMU_INCLUDE_DIR;
        layout.launch_report_include_dir = ATTNLAB_COMMON_INCLUDE_DIR;
        layout.cuda_include_dir = ATTNLAB_LEARNER_CUDA_INCLUDE_DIR;
        layout.learner_gpu_library = ATTNLAB_LEARNER_GPU_LIBRARY;
        layout.sandbox = ATTNLAB_SANDBOX_PATH;
        layout.nvrtc_tool = ATTNLAB_NVRTC_TOOL_PATH;
    }
    for (const char* dir : kSystemFontDirs) layout.font_dirs.emplace_back(dir);
    return layout;
}

const InstallLayout& InstallLayout::current() {
    static const InstallLayout layout = [] {
        std::error_code ec;
        const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
        return for_executable(ec ? fs::path() : exe);  // no /proc: the build tree's paths
    }();
    return layout;
}

fs::path resolve_course_dir(const fs::path& flag) {
    if (!flag.empty()) return flag;
    if (fs::path env = env_path("ATTNLAB_COURSE"); !env.empty()) return env;
    return InstallLayout::current().course_dir;
}

fs::path resolve_learner_include_dir() {
    fs::path env = env_path("ATTNLAB_LEARNER_INCLUDE");
    return env.empty() ? InstallLayout::current().learner_include_dir : env;
}

fs::path resolve_learner_library() {
    fs::path env = env_path("ATTNLAB_LEARNER_LIB");
    return env.empty() ? InstallLayout::current().learner_library : env;
}

fs::path resolve_sandbox() {
    fs::path env = env_path("ATTNLAB_SANDBOX");
    return env.empty() ? InstallLayout::current().sandbox : env;
}

fs::path resolve_nvrtc_tool() {
    fs::path env = env_path("ATTNLAB_NVRTC_TOOL");
    return env.empty() ? InstallLayout::current().nvrtc_tool : env;
}

fs::path find_font_file(const std::string& file) {
    std::error_code ec;
    for (const fs::path& dir : InstallLayout::current().font_dirs)
        if (fs::is_regular_file(dir / file, ec)) return dir / file;
    return {};
}

}  // namespace attnlab
