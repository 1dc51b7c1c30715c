#include "attnlab/core/desk/version_history.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <chrono>
#include <optional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "attnlab/core/base/util.hpp"
#include "json_file.hpp"

namespace attnlab {

using nlohmann::json;

namespace {

constexpr size_t kMaxIndexBytes = 1u << 20;
constexpr int64_t kMaxNumber = 1000000000;
constexpr int64_t kMaxTime = int64_t{1} << 53;

const VersionReason kReasons[] = {VersionReason::Saved,         VersionReason::Autosaved, VersionReason::Checked, VersionReason::BeforeRestore,
                                  VersionReason::Restored,      VersionReason::BeforeReset, VersionReason::Recovered};

VersionReason reason_of(const std::string& code) {
    for (VersionReason r : kReasons)
        if (code == version_reason_code(r)) return r;
    return VersionReason::Recovered;
}

int count_lines(const std::string& text) {
    const auto breaks = std::count(text.begin(), text.end(), '\n');
    return static_cast<int>(breaks + (!text.empty() && text.back() != '\n' ? 1 : 0));
}


fs::path text_file(const fs::path& folder, const std::string& hash) { return folder / (hash + ".txt"); }

// Whether a version's text is on disk as it was kept.
bool text_intact(const fs::path& folder, const Version& v) {
    std::error_code ec;
    const auto size = fs::file_size(text_file(folder, v.hash), ec);
    return !ec && size == v.bytes;
}

struct Index {
    int next = 1;
    std::vector<Version> versions;
};

Index parse_index(const std::string& text) {
    const json root = desk_files::parse_bounded(text, kMaxIndexBytes);
    if (!root.is_object() || root.value("format", 0) != 1 || !root.contains("versions") || !root["versions"].is_array())
        throw KeyedError({msg::file_unexpected_structure, {}, {}});
    Index index;
    index.next = static_cast<int>(desk_files::bounded_integer(root, "next", kMaxNumber, 1));
    for (const json& e : root["versions"]) {
        if (!e.is_object()) throw KeyedError({msg::file_unexpected_structure, {}, {}});
        Version v;
        v.number = static_cast<int>(desk_files::bounded_integer(e, "number", kMaxNumber));
        v.time = desk_files::bounded_integer(e, "time", kMaxTime);
        v.reason = reason_of(desk_files::string_value(e, "reason"));
        v.restored_from = static_cast<int>(desk_files::bounded_integer(e, "restored_from", kMaxNumber));
        v.hash = desk_files::string_value(e, "hash");
        v.bytes = static_cast<size_t>(desk_files::bounded_integer(e, "bytes", kMaxTime));
        v.lines = static_cast<int>(desk_files::bounded_integer(e, "lines", kMaxNumber));
        // A hash is a file name here: nothing but hex digits may reach the path.
        if (v.hash.empty() || v.hash.size() > 16 || v.hash.find_first_not_of("0123456789abcdef") != std::string::npos)
            throw KeyedError({msg::file_unexpected_structure, {}, {}});
        index.next = std::max(index.next, v.number + 1);
        index.versions.push_back(std::move(v));
    }
    return index;
}

std::string dump_index(const Index& index) {
    json versions = json::array();
    for (const Version& v : index.versions)
        versions.push_back({{"number", v.number}, {"time", v.time}, {"reason", version_reason_code(v.reason)}, {"restored_from", v.restored_from},
                            {"hash", v.hash}, {"bytes", v.bytes}, {"lines", v.lines}});
    return json({{"format", 1}, {"next", index.next}, {"versions", versions}}).dump(1) + "\n";
}

// The versions found again from the texts in `folder`, oldest first by the
// time each text was written.
Index rebuild_index(const fs::path& folder) {
    std::vector<std::pair<fs::file_time_type, fs::path>> texts;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec))
        if (entry.path().extension() == ".txt" && entry.is_regular_file(ec)) texts.emplace_back(entry.last_write_time(ec), entry.path());
    std::sort(texts.begin(), texts.end());
    Index index;
    for (const auto& [time, path] : texts) {
        const std::optional<std::string> text = read_file(path);
        if (!text) continue;
        Version v;
        v.number = index.next++;
        v.time = std::chrono::duration_cast<std::chrono::seconds>(
                     (time - fs::file_time_type::clock::now() + std::chrono::system_clock::now()).time_since_epoch())
                     .count();
        v.reason = VersionReason::Recovered;
        v.hash = version_hash_of(*text);
        v.bytes = text->size();
        v.lines = count_lines(*text);
        if (path.stem() != v.hash) continue;  // not one of ours, or altered: left where it is
        index.versions.push_back(std::move(v));
    }
    return index;
}

// The index of `folder`: empty when there is none and no texts either;
// rebuilt from the texts when it is missing or unreadable (an unreadable one
// is kept aside first), with `warning` saying so.
Index load_index(const fs::path& folder, const std::string& id, KeyedMessage* warning) {
    const fs::path file = folder / "index.json";
    std::error_code ec;
    if (!fs::exists(folder, ec)) return {};
    const auto size = fs::file_size(file, ec);
    std::optional<std::string> text = !ec && size > kMaxIndexBytes ? std::string(kMaxIndexBytes + 1, ' ') : read_file(file);
    if (text) {
        try {
            return parse_index(*text);
        } catch (const std::exception& e) {
            const fs::path aside = desk_files::unused_path(fs::path(file.string() + ".corrupt-" + desk_files::timestamp()));
            fs::rename(file, aside, ec);
            Index rebuilt = rebuild_index(folder);
            if (warning)
                *warning = {msg::history_index_set_aside,
                            {{"id", id}, {"aside", ec ? file.string() : aside.string()}, {"count", std::to_string(rebuilt.versions.size())}},
                            {{"why", message_of(e)}}};
            return rebuilt;
        }
    }
    Index rebuilt = rebuild_index(folder);
    if (warning && !rebuilt.versions.empty())
        *warning = {msg::history_index_missing, {{"id", id}, {"count", std::to_string(rebuilt.versions.size())}}, {}};
    return rebuilt;
}

// One writer of an exercise's history at a time (the window and the CLI may both record).
class FolderLock {
public:
    explicit FolderLock(const fs::path& folder) : fd_(::open((folder / "index.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
        if (fd_ >= 0) ::flock(fd_, LOCK_EX);
    }
    ~FolderLock() {
        if (fd_ >= 0) ::close(fd_);  // closing releases the lock
    }
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

private:
    int fd_;
};

// Drops the oldest versions past the limits (never the newest), then the
// texts no version names any more.
void trim(Index& index, const fs::path& folder, const HistoryLimits& limits) {
    const auto distinct_bytes = [&] {
        std::map<std::string, size_t> sizes;
        for (const Version& v : index.versions) sizes[v.hash] = v.bytes;
        size_t total = 0;
        for (const auto& [hash, bytes] : sizes) total += bytes;
        return total;
    };
    while (index.versions.size() > 1 && (index.versions.size() > limits.max_versions || distinct_bytes() > limits.max_bytes))
        index.versions.erase(index.versions.begin());
    std::set<std::string> named;
    for (const Version& v : index.versions) named.insert(v.hash);
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(folder, ec))
        if (entry.path().extension() == ".txt" && !named.count(entry.path().stem().string())) fs::remove(entry.path(), ec);
}

}  // namespace

const char* version_reason_code(VersionReason r) {
    switch (r) {
        case VersionReason::Saved: return "saved";
        case VersionReason::Autosaved: return "autosaved";
        case VersionReason::Checked: return "checked";
        case VersionReason::BeforeRestore: return "before_restore";
        case VersionReason::Restored: return "restored";
        case VersionReason::BeforeReset: return "before_reset";
        case VersionReason::Recovered: return "recovered";
    }
    return "recovered";
}

std::string version_hash_of(const std::string& text) { return hex64(hash64(text)); }

std::string version_reason_words(const Version& v, Lang lang) {
    return tr(lang, built_key(std::string("history.reason.") + version_reason_code(v.reason)), {{"number", std::to_string(v.restored_from)}});
}

std::string version_time_words(int64_t unix_seconds) {
    const std::time_t t = static_cast<std::time_t>(unix_seconds);
    std::tm local{};
    localtime_r(&t, &local);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &local);
    return buf;
}

std::vector<Version> VersionHistory::list(const std::string& exercise_id, KeyedMessage* warning) const {
    const fs::path folder = this->folder(exercise_id);
    std::vector<Version> versions = load_index(folder, exercise_id, warning).versions;
    for (Version& v : versions) v.available = text_intact(folder, v);
    return versions;
}

Version VersionHistory::record(const std::string& exercise_id, const std::string& text, VersionReason reason, int restored_from, int64_t now) const {
    if (now == 0) now = unix_now();
    const fs::path folder = this->folder(exercise_id);
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) throw FileError(FileStep::CreateFolder, folder.string(), ec.value());
    const FolderLock lock(folder);
    KeyedMessage ignored;  // a rebuilt index is written back below; list() is where it is told
    Index index = load_index(folder, exercise_id, &ignored);
    const std::string hash = version_hash_of(text);
    if (!index.versions.empty() && index.versions.back().hash == hash && text_intact(folder, index.versions.back())) return index.versions.back();
    const fs::path file = text_file(folder, hash);
    if (fs::file_size(file, ec) != text.size() || ec) write_file_atomic(file, text);  // the text first, then the index that names it
    Version v;
    v.time = now;
    v.reason = reason;
    v.restored_from = restored_from;
    v.hash = hash;
    v.bytes = text.size();
    v.lines = count_lines(text);
    const Version* newest = index.versions.empty() ? nullptr : &index.versions.back();
    if (reason == VersionReason::Autosaved && newest && newest->reason == VersionReason::Autosaved && now - newest->time < limits_.autosave_stretch_s) {
        v.number = newest->number;  // the same stretch of editing: its autosave moves on
        index.versions.back() = v;
    } else {
        v.number = index.next++;
        index.versions.push_back(v);
    }
    trim(index, folder, limits_);
    write_file_atomic(folder / "index.json", dump_index(index));
    return v;
}

std::string VersionHistory::text(const std::string& exercise_id, int number) const {
    const fs::path folder = this->folder(exercise_id);
    for (const Version& v : load_index(folder, exercise_id, nullptr).versions) {
        if (v.number != number) continue;
        const std::optional<std::string> text = read_file(text_file(folder, v.hash));
        if (!text || text->size() != v.bytes || version_hash_of(*text) != v.hash)
            throw KeyedError({msg::history_text_missing, {{"id", exercise_id}, {"number", std::to_string(number)}, {"file", text_file(folder, v.hash).string()}}, {}});
        return *text;
    }
    throw KeyedError({msg::history_no_version, {{"id", exercise_id}, {"number", std::to_string(number)}}, {}});
}

}  // namespace attnlab
