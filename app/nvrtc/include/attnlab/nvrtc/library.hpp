#pragma once
// Finding and opening libnvrtc, the CUDA toolkit's runtime compiler, with
// dlopen(): attnlab never links it, so it builds and runs without the CUDA
// toolkit. One search shared by `attnlab doctor` (is it there?) and
// attnlab-nvrtc (compile with it), so the two never disagree.
#include <string>
#include <vector>

namespace attnlab::nvrtc {

// Where libnvrtc is looked for, in this order:
//  - $ATTNLAB_NVRTC_LIB when set, and then nothing else: an override that
//    silently fell back to another copy would hide a wrong setting (and
//    setting it to a missing file is how a test says "no NVRTC here");
//  - the names the dynamic loader resolves: libnvrtc.so, libnvrtc.so.13,
//    libnvrtc.so.12, libnvrtc.so.11.2 (every NVRTC since 11.2 has the C API
//    attnlab-nvrtc uses);
//  - $CUDA_HOME/lib64/libnvrtc.so, $CUDA_PATH/lib64/libnvrtc.so and
//    /usr/local/cuda/lib64/libnvrtc.so (a toolkit the loader does not know).
std::vector<std::string> library_candidates();

// An opened libnvrtc (dlclose()d when it goes away), or why none could be.
class Library {
public:
    // The first candidate that loads and exports nvrtcVersion.
    static Library open();

    Library() = default;
    Library(Library&& other) noexcept;
    Library& operator=(Library&& other) noexcept;
    Library(const Library&) = delete;
    Library& operator=(const Library&) = delete;
    ~Library();

    bool loaded() const { return handle_ != nullptr; }
    // dlsym(); nullptr when absent or nothing is loaded.
    void* symbol(const char* name) const;
    const std::string& path() const { return path_; }        // the file the loader opened
    const std::string& version() const { return version_; }  // nvrtcVersion(): "13.0"
    const std::string& problem() const { return problem_; }  // why nothing loaded: one line per candidate (dlerror())

private:
    void* handle_ = nullptr;
    std::string path_;
    std::string version_;
    std::string problem_;
};

}  // namespace attnlab::nvrtc
