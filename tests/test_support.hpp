#pragma once
// Small helpers shared by the test suites.
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace attnlab::testing {

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

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

}  // namespace attnlab::testing
