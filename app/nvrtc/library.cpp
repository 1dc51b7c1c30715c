#include "attnlab/nvrtc/library.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <utility>

namespace attnlab::nvrtc {
namespace {

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : std::string();
}

// The library behind a dlopen() handle, by its path.
std::string loaded_path(void* handle) {
    link_map* map = nullptr;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) return map->l_name;
    return "";
}

}  // namespace

std::vector<std::string> library_candidates() {
    if (std::string forced = env("ATTNLAB_NVRTC_LIB"); !forced.empty()) return {forced};
    std::vector<std::string> candidates = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2"};
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (std::string home = env(var); !home.empty()) candidates.push_back(home + "/lib64/libnvrtc.so");
    candidates.push_back("/usr/local/cuda/lib64/libnvrtc.so");
    return candidates;
}

Library Library::open() {
    Library lib;
    for (const std::string& name : library_candidates()) {
        // RTLD_LOCAL: NVRTC's symbols stay out of everything loaded later.
        void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            const char* why = dlerror();
            lib.problem_ += (lib.problem_.empty() ? "" : "\n") + std::string(why ? why : name + ": cannot open");
            continue;
        }
        using VersionFn = int (*)(int*, int*);
        auto version = reinterpret_cast<VersionFn>(dlsym(handle, "nvrtcVersion"));
        int major = 0, minor = 0;
        if (!version || version(&major, &minor) != 0) {
            lib.problem_ += (lib.problem_.empty() ? "" : "\n") + name + ": no usable nvrtcVersion";
            dlclose(handle);
            continue;
        }
        lib.handle_ = handle;
        lib.path_ = loaded_path(handle);
        if (lib.path_.empty()) lib.path_ = name;
        lib.version_ = std::to_string(major) + "." + std::to_string(minor);
        lib.problem_.clear();
        return lib;
    }
    if (lib.problem_.empty()) lib.problem_ = "no candidate for libnvrtc";
    return lib;
}

Library::Library(Library&& other) noexcept { *this = std::move(other); }

Library& Library::operator=(Library&& other) noexcept {
    if (this != &other) {
        if (handle_) dlclose(handle_);
        handle_ = std::exchange(other.handle_, nullptr);
        path_ = std::move(other.path_);
        version_ = std::move(other.version_);
        problem_ = std::move(other.problem_);
    }
    return *this;
}

Library::~Library() {
    if (handle_) dlclose(handle_);
}

void* Library::symbol(const char* name) const { return handle_ ? dlsym(handle_, name) : nullptr; }

}  // namespace attnlab::nvrtc
