#include "process_tree.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace attnlab::sandbox {

std::vector<pid_t> direct_children() {
    std::vector<pid_t> kids;
    const pid_t self = getpid();
    DIR* d = opendir("/proc");
    if (!d) return kids;
    while (dirent* e = readdir(d)) {
        char* end = nullptr;
        long pid = std::strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0) continue;
        char path[64];
        std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE* f = std::fopen(path, "r");
        if (!f) continue;
        char buf[512];
        size_t n = std::fread(buf, 1, sizeof buf - 1, f);
        std::fclose(f);
        buf[n] = '\0';
        // Format: pid (comm) state ppid ... ; comm may contain spaces and ')'.
        char* close = std::strrchr(buf, ')');
        if (!close) continue;
        char state = 0;
        long ppid = 0;
        if (std::sscanf(close + 1, " %c %ld", &state, &ppid) == 2 && ppid == self) kids.push_back(static_cast<pid_t>(pid));
    }
    closedir(d);
    return kids;
}

size_t count_user_threads(uid_t uid) {
    size_t n = 0;
    DIR* d = opendir("/proc");
    if (!d) return 0;
    while (dirent* e = readdir(d)) {
        char* end = nullptr;
        long pid = std::strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0) continue;
        const std::string path = std::string("/proc/") + e->d_name + "/status";
        FILE* f = std::fopen(path.c_str(), "r");
        if (!f) continue;
        char line[256];
        long owner = -1, threads = 0;
        while (std::fgets(line, sizeof line, f)) {
            if (std::strncmp(line, "Uid:", 4) == 0) owner = std::strtol(line + 4, nullptr, 10);
            else if (std::strncmp(line, "Threads:", 8) == 0) threads = std::strtol(line + 8, nullptr, 10);
        }
        std::fclose(f);
        if (owner == static_cast<long>(uid)) n += static_cast<size_t>(std::max(threads, 1L));
    }
    closedir(d);
    return n;
}

namespace {

// RssAnon + RssShmem of one process, from /proc/PID/status.
long process_rss_kb(long pid) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE* f = std::fopen(path, "r");
    if (!f) return 0;
    char line[256];
    long kb = 0;
    while (std::fgets(line, sizeof line, f))
        if (std::strncmp(line, "RssAnon:", 8) == 0 || std::strncmp(line, "RssShmem:", 9) == 0)
            kb += std::strtol(std::strchr(line, ':') + 1, nullptr, 10);
    std::fclose(f);
    return kb;
}

// The children of every thread of `pid` (/proc/PID/task/TID/children).
bool children_of(long pid, std::vector<long>& out) {
    const std::string dir = "/proc/" + std::to_string(pid) + "/task";
    DIR* d = opendir(dir.c_str());
    if (!d) return false;
    bool any = false;
    while (dirent* e = readdir(d)) {
        if (e->d_name[0] == '.') continue;
        FILE* f = std::fopen((dir + "/" + e->d_name + "/children").c_str(), "r");
        if (!f) continue;
        any = true;
        for (long child; std::fscanf(f, "%ld", &child) == 1;) out.push_back(child);
        std::fclose(f);
    }
    closedir(d);
    return any;
}

}  // namespace

long descendants_rss_kb() {
    std::vector<long> todo;
    if (!children_of(getpid(), todo)) {
        for (pid_t p : direct_children()) todo.push_back(p);  // no children files: our direct children only
    }
    long kb = 0;
    for (size_t i = 0; i < todo.size() && i < 100000; ++i) {
        kb += process_rss_kb(todo[i]);
        children_of(todo[i], todo);
    }
    return kb;
}

void kill_all_descendants(pid_t group) {
    if (group > 0) kill(-group, SIGKILL);
    for (int round = 0; round < 10000; ++round) {
        int st;
        while (waitpid(-1, &st, WNOHANG) > 0) {
        }
        std::vector<pid_t> kids = direct_children();
        if (kids.empty()) {
            if (waitpid(-1, &st, WNOHANG) < 0 && errno == ECHILD) return;
            usleep(1000);
            continue;
        }
        for (pid_t k : kids) kill(k, SIGKILL);
        usleep(200);
    }
}

}  // namespace attnlab::sandbox
