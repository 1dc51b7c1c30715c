#include "attnlab/core/base/data_paths.hpp"

#include <cstdlib>

namespace attnlab {
namespace {

fs::path xdg(const char* var, const char* fallback_under_home) {
    if (const char* v = std::getenv(var); v && *v == '/') return fs::path(v) / "attnlab";
    const char* home = std::getenv("HOME");
    return fs::path(home && *home ? home : "/tmp") / fallback_under_home / "attnlab";
}

}  // namespace

Paths Paths::from_environment() {
    Paths p;
    if (const char* home = std::getenv("ATTNLAB_HOME"); home && *home) {
        p.data = fs::absolute(home);
        p.cache = p.data / "cache";
        p.config = p.data / "config";
        return p;
    }
    p.data = xdg("XDG_DATA_HOME", ".local/share");
    p.cache = xdg("XDG_CACHE_HOME", ".cache");
    p.config = xdg("XDG_CONFIG_HOME", ".config");
    return p;
}

}  // namespace attnlab
