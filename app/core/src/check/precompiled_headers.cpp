#include "attnlab/core/check/precompiled_headers.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <sstream>

#include "attnlab/core/base/util.hpp"

namespace attnlab {
namespace {

// g++ finds a precompiled header beside the header `-include` names, by this suffix.
constexpr const char* kSuffix = ".gch";

// What identifies a header's version on disk: its size and modification time.
std::string disk_stamp(const fs::path& p) {
    std::error_code ec;
    const auto size = fs::file_size(p, ec);
    if (ec) return "missing";
    const auto time = fs::last_write_time(p, ec);
    return std::to_string(size) + " " + std::to_string(ec ? 0 : time.time_since_epoch().count());
}

// One line per file the header was built from: "<stamp>\t<path>".
std::string stamps_of(const std::vector<std::string>& files) {
    std::string out;
    for (const std::string& f : files) out += disk_stamp(f) + "\t" + f + "\n";
    return out;
}

}  // namespace

std::vector<std::string> dependency_list_files(const std::string& text) {
    std::vector<std::string> files;
    const size_t colon = text.find(": ");
    if (colon == std::string::npos) return files;
    std::string word;
    auto flush = [&] {
        if (!word.empty()) files.push_back(word);
        word.clear();
    };
    for (size_t i = colon + 2; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') {  // an escaped space belongs to the name
            word += ' ';
            ++i;
        } else if (c == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {  // a continued line
            ++i;
            flush();
        } else if (c == ' ' || c == '\n' || c == '\t') {
            flush();
        } else {
            word += c;
        }
    }
    flush();
    return files;
}

PrecompiledHeaders::PrecompiledHeaders(fs::path dir) : dir_(std::move(dir)) {}

// Built, and every file it was built from is as it was then.
bool PrecompiledHeaders::usable(const fs::path& header, const fs::path& stamps) const {
    fs::path pch = header;
    pch += kSuffix;
    std::error_code ec;
    if (!fs::exists(pch, ec)) return false;
    const std::optional<std::string> recorded = read_file(stamps);
    if (!recorded || recorded->empty()) return false;
    std::istringstream in(*recorded);
    for (std::string line; std::getline(in, line);) {
        const size_t tab = line.find('\t');
        if (tab == std::string::npos || disk_stamp(line.substr(tab + 1)) != line.substr(0, tab)) return false;
    }
    fs::last_write_time(stamps, fs::file_time_type::clock::now(), ec);  // used now: pruned last
    return true;
}

fs::path PrecompiledHeaders::header_for(const std::string& stem, const std::vector<std::string>& prelude, const std::string& entry_header,
                                        const std::vector<std::string>& library_headers, const Build& build) {
    std::string text = "// Precompiled by attnlab: the learner header and the library headers a learner's file includes first.\n";
    for (const std::string& line : prelude) text += line + "\n";
    text += "#include <" + entry_header + ">\n";
    for (const std::string& h : library_headers) text += "#include <" + h + ">\n";
    const fs::path header = dir_ / (stem + "-" + hex64(hash64(text)) + ".hpp");
    fs::path stamps = header;
    stamps += ".inputs";
    std::lock_guard<std::mutex> lock(mu_);
    if (usable(header, stamps)) return header;
    if (refused_.count(header.string())) return {};
    std::error_code ec;
    fs::create_directories(dir_, ec);
    prune();
    const std::string tag = std::to_string(::getpid()) + "-" + hex64(hash64(header.string()));
    const fs::path tmp = dir_ / ("build-" + tag + kSuffix);
    const fs::path deps = dir_ / ("build-" + tag + ".d");
    fs::path pch = header;
    pch += kSuffix;
    fs::remove(pch, ec);  // a stale one: the compiler must not find it while rebuilding
    // Written once: another compile may be reading it now.
    if (read_file(header) != text) write_file_atomic(header, text);
    bool refused = false;
    const bool built = build(header, tmp, deps, refused);
    const std::optional<std::string> deps_text = read_file(deps);
    fs::remove(deps, ec);
    if (built && deps_text) {
        // The inputs first: a header whose inputs are missing is rebuilt, one
        // whose inputs are recorded but that is not there yet is just built.
        write_file_atomic(stamps, stamps_of(dependency_list_files(*deps_text)));
        fs::rename(tmp, pch, ec);
        if (!ec) return header;
    }
    fs::remove(tmp, ec);
    if (refused) refused_.insert(header.string());
    return {};
}

// Keeps kKept headers; older ones go unless used in the last ten minutes.
void PrecompiledHeaders::prune() const {
    std::error_code ec;
    std::vector<std::pair<fs::file_time_type, fs::path>> used;  // (last use, the .inputs file)
    for (const auto& e : fs::directory_iterator(dir_, ec))
        if (e.path().extension() == ".inputs") used.emplace_back(e.last_write_time(ec), e.path());
    if (used.size() < kKept) return;
    std::sort(used.begin(), used.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const auto recent = fs::file_time_type::clock::now() - std::chrono::minutes(10);
    for (size_t i = kKept - 1; i < used.size(); ++i) {
        if (used[i].first > recent) continue;
        const fs::path header = fs::path(used[i].second).replace_extension();  // x.hpp.inputs -> x.hpp
        fs::path pch = header;
        pch += kSuffix;
        for (const fs::path& p : {used[i].second, pch, header}) fs::remove(p, ec);
    }
}

}  // namespace attnlab
