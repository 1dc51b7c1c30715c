#include "options.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace attnlab::sandbox {

bool env_flag(const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::strcmp(v, "0") != 0;
}

const char* usage_text() {
    return "usage: attnlab-sandbox [--cpu S] [--wall S] [--mem MB] [--tree-mem MB] [--fsize MB] [--nproc-margin N] [--nice N] [--status-fd N]\n"
           "                       [--isolate [--network] [--allow-missing-layers] [--no-input-map] [--unix-sockets] [--scratch-mb MB]\n"
           "                                  [--device GLOB]... [--readonly PATH]... [--hide PATH]... [--bind PATH]... [--bind-rw PATH]... [--env NAME]...]\n"
           "                       -- PROGRAM [ARGS...]\n";
}

namespace {

// A number option's value: all of `text` a finite number in [0, max];
// anything else (a typo, "1e400", "-5", "nan") refuses the command line, so no
// limit can wrap around when it becomes bytes or microseconds.
bool number_in_range(const char* text, double max, double& out) {
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(text, &end);
    if (end == text || *end != '\0' || errno == ERANGE || !std::isfinite(v) || v < 0 || v > max) return false;
    out = v;
    return true;
}

constexpr double kMaxSeconds = 1e6;           // eleven days
constexpr double kMaxMegabytes = 1u << 24;    // 16 TiB: << 20 stays far inside 64 bits
constexpr double kMaxCount = 1 << 22;

bool number_option(const std::string& a, const char* v, Options& o) {
    double x = 0;
    if (a == "--cpu" || a == "--wall") {
        if (!number_in_range(v, kMaxSeconds, x)) return false;
        (a == "--cpu" ? o.cpu_seconds : o.wall_seconds) = x;
        return true;
    }
    long* megabytes = a == "--mem" ? &o.mem_mb : a == "--tree-mem" ? &o.tree_mem_mb : a == "--fsize" ? &o.fsize_mb
                    : a == "--scratch-mb" ? &o.isolation.scratch_mb : nullptr;
    if (megabytes) {
        if (!number_in_range(v, kMaxMegabytes, x) || x != static_cast<double>(static_cast<long>(x))) return false;
        *megabytes = static_cast<long>(x);
        return true;
    }
    if (a == "--nproc-margin" || a == "--nice" || a == "--status-fd") {
        if (!number_in_range(v, kMaxCount, x) || x != static_cast<double>(static_cast<long>(x))) return false;
        if (a == "--nproc-margin") o.nproc_margin = static_cast<long>(x);
        else if (a == "--nice") o.nice = static_cast<int>(std::min(x, 19.0));
        else o.status_fd = static_cast<int>(x);
        return true;
    }
    return false;
}

bool is_number_option(const std::string& a) {
    for (const char* n : {"--cpu", "--wall", "--mem", "--tree-mem", "--fsize", "--scratch-mb", "--nproc-margin", "--nice", "--status-fd"})
        if (a == n) return true;
    return false;
}

}  // namespace

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
        if (a == "--unix-sockets") {
            o.isolation.unix_sockets = true;
            continue;
        }
        if (i + 1 >= argc) return false;
        const char* v = argv[++i];
        if (is_number_option(a)) {
            if (!number_option(a, v, o)) return false;
        } else if (a == "--device") o.isolation.devices.push_back(v);
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
