#pragma once
// The precompiled headers of one toolchain's learner compiles. Each holds a
// runtime's learner header and the library headers a learner's file includes
// before its code (learner_includes.hpp), so the file parses only itself, and
// never sees a header it did not ask for. Each is built the first time a file
// needs it, by the same compiler and flags as the compiles that use it, and
// is rebuilt when a header it was built from has changed since (a system
// update: g++ would read a stale one without a word).
#include <filesystem>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace attnlab {

namespace fs = std::filesystem;

class PrecompiledHeaders {
public:
    // Builds `header` into `output`, writing its make-style dependency list to
    // `deps`; false when it could not, with `refused` set when the compiler
    // itself said no (a retry would say no again).
    using Build = std::function<bool(const fs::path& header, const fs::path& output, const fs::path& deps, bool& refused)>;

    // `dir`: this toolchain's folder, which nothing else writes.
    explicit PrecompiledHeaders(fs::path dir);

    // The header to name in the first -include of a compile, holding
    // `entry_header` and `library_headers` (<name> each); "" when none can be
    // had, and the compile then parses those headers itself.
    // `prelude` lines (macros) come first.
    fs::path header_for(const std::string& stem, const std::vector<std::string>& prelude, const std::string& entry_header,
                        const std::vector<std::string>& library_headers, const Build& build);

    // How many are kept: the least recently used go first, and none used in
    // the last ten minutes (another attnlab may be compiling with it).
    static constexpr size_t kKept = 8;

private:
    bool usable(const fs::path& header, const fs::path& stamps) const;
    void prune() const;
    fs::path dir_;
    std::mutex mu_;                 // checks of different exercises may compile at once
    std::set<std::string> refused_;  // headers the compiler refused: not tried again
};

// The files a make-style dependency list (-MD) names after its target's colon.
std::vector<std::string> dependency_list_files(const std::string& text);

}  // namespace attnlab
