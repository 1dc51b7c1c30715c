#include "attnlab/core/check/learner_object_check.hpp"

#include <link.h>

#include <map>
#include <memory>
#include <mutex>

#include "attnlab/core/base/util.hpp"
#include "attnlab/core/check/elf_symbols.hpp"

namespace attnlab {
namespace {

// The shared libraries every learner program loads, whatever the exercise:
// the C library, libm, the C++ runtime and the unwinder, the dynamic loader.
bool is_language_runtime(const std::string& file_name) {
    for (const char* prefix : {"libc.so", "libm.so", "libstdc++.so", "libgcc_s.so", "ld-linux", "libpthread.so", "libdl.so", "librt.so"})
        if (file_name.rfind(prefix, 0) == 0) return true;
    return false;
}

// Where this process found them: the same files a learner program built by
// the same g++ on this machine loads.
std::vector<std::string> language_runtimes() {
    std::vector<std::string> paths;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* out) {
            const std::string path = info->dlpi_name ? info->dlpi_name : "";
            if (!path.empty() && is_language_runtime(fs::path(path).filename().string()))
                static_cast<std::vector<std::string>*>(out)->push_back(path);
            return 0;
        },
        &paths);
    return paths;
}

void add_names_of(const std::string& path, LibraryNames& names) {
    const std::optional<std::string> bytes = read_file(path);
    if (!bytes) return;
    std::string error;
    const std::string owner = fs::path(path).filename().string();
    const bool archive = bytes->compare(0, 8, "!<arch>\n") == 0;
    const auto found = archive ? elf::read_archive_index(*bytes, error) : elf::read_exported_names(*bytes, error);
    if (!found) return;
    for (const std::string& name : *found) names.emplace(name, owner);
}

std::vector<fs::path> existing_files(const std::vector<std::string>& paths) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const std::string& p : paths)
        if (!p.empty() && p[0] == '/' && fs::is_regular_file(p, ec)) out.emplace_back(p);
    return out;
}

}  // namespace

const LibraryNames& library_names(const std::vector<std::string>& paths) {
    static std::mutex mu;
    static std::map<std::string, std::unique_ptr<LibraryNames>> cache;
    std::vector<std::string> all = paths;
    static const std::vector<std::string> runtimes = language_runtimes();
    all.insert(all.end(), runtimes.begin(), runtimes.end());
    const std::vector<fs::path> files = existing_files(all);
    std::string key;
    for (const fs::path& f : files) key += file_stamp(f) + "|";
    std::lock_guard<std::mutex> lock(mu);
    std::unique_ptr<LibraryNames>& names = cache[key];
    if (!names) {
        names = std::make_unique<LibraryNames>();
        for (const fs::path& f : files) add_names_of(f.string(), *names);
    }
    return *names;
}

LearnerObjectCheck check_learner_object(const fs::path& object, const std::vector<std::string>& link_inputs, bool require_instrumented,
                                        const std::vector<fs::path>& tree_dumps) {
    LearnerObjectCheck out;
    const std::optional<std::string> bytes = read_file(object);
    if (!bytes) {
        out.error = "cannot read the compiled object " + object.string();
        return out;
    }
    std::string error;
    const std::optional<elf::ObjectFile> parsed = elf::read_object(*bytes, error);
    if (!parsed) {
        out.error = "cannot read the compiled object " + object.string() + ": " + error;
        return out;
    }
    ObjectRules rules;
    rules.library_names = &library_names(link_inputs);
    rules.require_instrumented = require_instrumented;
    if (require_instrumented) {
        bool any_dump = false;
        for (const fs::path& dump : tree_dumps) {
            const std::optional<std::string> text = read_file(dump);
            if (!text) continue;
            any_dump = true;
            for (const std::string& name : functions_in_tree_dump(*text)) rules.instrumented.insert(name);
        }
        if (!any_dump) {
            out.error = "the compiler wrote no report of the functions it instrumented (-fdump-tree-tsan)";
            return out;
        }
    }
    out.problems = learner_object_problems(*parsed, rules);
    return out;
}

}  // namespace attnlab
