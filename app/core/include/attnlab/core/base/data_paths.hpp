#pragma once
// Where the learner's own things live (attnlab's files are install_layout's):
//
//   data   $ATTNLAB_HOME, else $XDG_DATA_HOME/attnlab, else ~/.local/share/attnlab
//            workspace/<exercise-id>.cpp     the learner's file (created from the starter)
//            workspace/<exercise-id>.cpp.bak-<time>   kept by `reset`
//            history/<exercise-id>/          versions of the learner's file (desk/version_history.hpp)
//            progress.json
//   cache  $ATTNLAB_HOME/cache, else $XDG_CACHE_HOME/attnlab, else ~/.cache/attnlab
//   config $ATTNLAB_HOME/config, else $XDG_CONFIG_HOME/attnlab, else ~/.config/attnlab
//            settings.json
#include <filesystem>

namespace attnlab {

namespace fs = std::filesystem;

struct Paths {
    fs::path data;
    fs::path cache;
    fs::path config;
    fs::path workspace() const { return data / "workspace"; }
    fs::path history() const { return data / "history"; }
    fs::path progress_file() const { return data / "progress.json"; }
    fs::path settings_file() const { return config / "settings.json"; }
    static Paths from_environment();
};

}  // namespace attnlab
