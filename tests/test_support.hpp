#pragma once
// Small helpers shared by the test suites.
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::testing {

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// The 1-based number of the last line of `file` that contains `part`; 0 when none does.
inline int line_containing(const std::filesystem::path& file, const std::string& part) {
    std::ifstream in(file);
    std::string line;
    int found = 0;
    for (int n = 1; std::getline(in, line); ++n)
        if (contains(line, part)) found = n;
    return found;
}

// The lines of causal-mhsa/wrong/scale_sqrt_d.cpp (no probe() in it) that compute each
// stage: what automatic stages must name, found by what the code on them does.
inline const std::vector<std::pair<std::string, std::string>>& causal_mhsa_stage_code() {
    static const std::vector<std::pair<std::string, std::string>> code = {
        {"Q", "matmul(x, w_q)"}, {"K", "matmul(x, w_k)"},       {"V", "matmul(x, w_v)"},
        {"scores", "matmul(q, k.transpose"},                     {"masked", "out(h, i, j) = kNegInf"},
        {"weights", "/= sum"},   {"heads", "matmul(weights, v)"}, {"concat", ".reshape({T, D})"},
        {"out", "return matmul(from_heads(heads), w_o)"}};
    return code;
}

// A fresh temporary directory, removed again when the object goes away.
class TempDir {
public:
    explicit TempDir(const std::string& tag = "test") {
        std::string tmpl = (std::filesystem::temp_directory_path() / ("attnlab-" + tag + "-XXXXXX")).string();
        if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
        path_ = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

// Processes whose executable is one of the files under `dir` (compiled
// learner programs in a cache). Matched by inode, not by path: a program in
// its private root shows as /input/... in /proc/PID/exe, whatever the host path.
inline std::vector<pid_t> processes_running_files_in(const std::filesystem::path& dir) {
    std::vector<std::pair<dev_t, ino_t>> files;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        struct stat st;
        if (::stat(it->path().c_str(), &st) == 0 && S_ISREG(st.st_mode)) files.emplace_back(st.st_dev, st.st_ino);
    }
    std::vector<pid_t> found;
    DIR* d = opendir("/proc");
    if (!d) return found;
    while (dirent* e = readdir(d)) {
        char* end = nullptr;
        const long pid = std::strtol(e->d_name, &end, 10);
        struct stat st;
        if (*end || pid <= 0 || ::stat(("/proc/" + std::string(e->d_name) + "/exe").c_str(), &st) != 0) continue;
        for (const auto& [dev, ino] : files)
            if (st.st_dev == dev && st.st_ino == ino) found.push_back(static_cast<pid_t>(pid));
    }
    closedir(d);
    return found;
}

}  // namespace attnlab::testing
