#include "cgroup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace attnlab::sandbox {
namespace {

std::string read_small(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

bool write_small(const std::string& path, const std::string& text) {
    const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    const int err = errno;
    close(fd);
    errno = err;
    return ok;
}

bool has_word(const std::string& list, const char* word) {
    std::istringstream in(list);
    for (std::string w; in >> w;)
        if (w == word) return true;
    return false;
}

// The cgroup v2 mount point ("" when there is none).
std::string cgroup2_mount() {
    std::ifstream in("/proc/self/mountinfo");
    for (std::string line; std::getline(in, line);) {
        const auto dash = line.find(" - ");
        if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
        std::istringstream fields(line);
        std::string id, parent, dev, root, mount_point;
        fields >> id >> parent >> dev >> root >> mount_point;
        if (root == "/") return mount_point;
    }
    return "";
}

// Our own cgroup v2 folder ("" when unknown).
std::string own_cgroup() {
    const std::string mount = cgroup2_mount();
    if (mount.empty()) return "";
    std::ifstream in("/proc/self/cgroup");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("0::", 0) == 0) {
            std::string path = line.substr(3);
            if (path == "/") path.clear();
            return mount + path;
        }
    return "";
}

// Folders a run's cgroup can be made in: our own cgroup when it already
// hands memory to its children (the root of a container), then its parent
// (a systemd slice our cgroup sits in; moving a process needs write access
// to the common ancestor's cgroup.procs, which a delegated slice gives).
std::vector<std::string> candidates(int& error) {
    std::vector<std::string> dirs;
    const std::string own = own_cgroup();
    if (own.empty()) {
        error = ENOENT;
        return dirs;
    }
    dirs.push_back(own);
    const auto slash = own.rfind('/');
    const std::string mount = cgroup2_mount();
    if (slash != std::string::npos && own.size() > mount.size()) dirs.push_back(own.substr(0, slash));
    error = ENOENT;
    return dirs;
}

}  // namespace

std::string scope_parent(int* error) {
    int err = 0;
    for (const std::string& dir : candidates(err)) {
        if (!has_word(read_small(dir + "/cgroup.subtree_control"), "memory")) continue;
        if (access((dir + "/cgroup.procs").c_str(), W_OK) != 0 || access(dir.c_str(), W_OK) != 0) {
            err = errno;
            continue;
        }
        return dir;
    }
    if (error) *error = err ? err : ENOENT;
    return "";
}

CgroupScope create_scope(long memory_mb, long max_pids) {
    CgroupScope scope;
    if (std::getenv("ATTNLAB_NO_CGROUP")) {
        scope.error = EPERM;
        return scope;
    }
    int err = ENOENT;
    for (const std::string& dir : candidates(err)) {
        if (!has_word(read_small(dir + "/cgroup.subtree_control"), "memory")) continue;
        const std::string path = dir + "/attnlab-" + std::to_string(getpid());
        if (mkdir(path.c_str(), 0755) != 0) {
            err = errno;
            continue;
        }
        const bool limited = memory_mb <= 0 || write_small(path + "/memory.max", std::to_string(memory_mb << 20));
        if (!limited) {
            err = errno;
            rmdir(path.c_str());
            continue;
        }
        write_small(path + "/memory.swap.max", "0");
        write_small(path + "/memory.oom.group", "1");  // one process over the limit ends them all
        scope.has_pids = max_pids > 0 && write_small(path + "/pids.max", std::to_string(max_pids));
        scope.path = path;
        return scope;
    }
    scope.error = err;
    return scope;
}

bool move_into_scope(const CgroupScope& scope, pid_t pid) {
    return !scope.path.empty() && write_small(scope.path + "/cgroup.procs", std::to_string(pid));
}

void kill_scope(const CgroupScope& scope) {
    if (scope.path.empty()) return;
    if (write_small(scope.path + "/cgroup.kill", "1")) return;
    std::istringstream pids(read_small(scope.path + "/cgroup.procs"));
    for (long pid; pids >> pid;) kill(static_cast<pid_t>(pid), SIGKILL);
}

ScopeUsage end_scope(const CgroupScope& scope) {
    ScopeUsage u;
    if (scope.path.empty()) return u;
    std::istringstream events(read_small(scope.path + "/memory.events"));
    for (std::string key; events >> key;) {
        long n = 0;
        events >> n;
        if (key == "oom_kill") u.oom_kills = n;
    }
    u.peak_kb = std::atol(read_small(scope.path + "/memory.peak").c_str()) / 1024;
    for (int i = 0; i < 200 && rmdir(scope.path.c_str()) != 0 && errno == EBUSY; ++i) {
        kill_scope(scope);
        usleep(5000);  // the last processes are still being torn down
    }
    return u;
}

}  // namespace attnlab::sandbox
