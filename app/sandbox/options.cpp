#include "options.hpp"

#include <cstdlib>
#include <cstring>

namespace attnlab::sandbox {

bool env_flag(const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::strcmp(v, "0") != 0;
}

const char* usage_text() {
    return "usage: attnlab-sandbox [--cpu S] [--wall S] [--mem MB] [--tree-mem MB] [--fsize MB] [--nproc-margin N] [--nice N] [--status-fd N]\n"
           "                       [--isolate [--network] [--allow-missing-layers] [--no-input-map] [--scratch-mb MB]\n"
           "                                  [--device GLOB]... [--readonly PATH]... [--hide PATH]... [--bind PATH]... [--bind-rw PATH]... [--env NAME]...]\n"
           "                       -- PROGRAM [ARGS...]\n";
}

bool parse_options(int argc, char** argv, Options& o) {
    int i = 1;
    for (; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (a == "--isolate") {
            o.isolation.enabled = true;
            continue;
        }
        if (a == "--network") {
            o.isolation.network = true;
            continue;
        }
        if (a == "--allow-missing-layers") {
            o.isolation.allow_missing = true;
            continue;
        }
        if (a == "--no-input-map") {
            o.isolation.map_inputs = false;
            continue;
        }
        if (i + 1 >= argc) return false;
        const char* v = argv[++i];
        if (a == "--cpu") o.cpu_seconds = std::atof(v);
        else if (a == "--wall") o.wall_seconds = std::atof(v);
        else if (a == "--mem") o.mem_mb = std::atol(v);
        else if (a == "--tree-mem") o.tree_mem_mb = std::atol(v);
        else if (a == "--fsize") o.fsize_mb = std::atol(v);
        else if (a == "--nproc-margin") o.nproc_margin = std::atol(v);
        else if (a == "--nice") o.nice = std::atoi(v);
        else if (a == "--status-fd") o.status_fd = std::atoi(v);
        else if (a == "--scratch-mb") o.isolation.scratch_mb = std::atol(v);
        else if (a == "--device") o.isolation.devices.push_back(v);
        else if (a == "--readonly") o.isolation.readonly.push_back(v);
        else if (a == "--hide") o.isolation.hidden.push_back(v);
        else if (a == "--bind" && v[0] == '/') o.isolation.binds.push_back(v);
        else if (a == "--bind-rw" && v[0] == '/') o.isolation.writable.push_back(v);
        else if (a == "--env") o.isolation.env.push_back(v);
        else return false;
    }
    for (; i < argc; ++i) o.argv.push_back(argv[i]);
    o.argv.push_back(nullptr);
    return o.argv.size() > 1 && o.isolation.scratch_mb > 0;
}

}  // namespace attnlab::sandbox
