#include "attnlab/core/desk/workspace.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "attnlab/common/sandbox_status.hpp"
#include "attnlab/core/text/messages.hpp"
#include "attnlab/core/base/util.hpp"
#include "json_file.hpp"

namespace attnlab {

using nlohmann::json;
using desk_files::bounded_integer;
using desk_files::parse_bounded;
using desk_files::string_value;
using desk_files::timestamp;
using desk_files::unused_path;

// The learner's own copy: <id>.cpp, or <id>.cu for a CUDA exercise (so their
// editor and compile tools know what it is).
fs::path Workspace::learner_file(const Exercise& exercise) const {
    return paths_.workspace() / (exercise.id + exercise.source_extension());
}

fs::path Workspace::starter_for(const Exercise& exercise, Lang lang) {
    const fs::path localized = exercise.dir / (std::string("starter.") + lang_code(lang) + exercise.source_extension());
    std::error_code ec;
    return lang != Lang::En && fs::is_regular_file(localized, ec) ? localized : exercise.starter_path();
}

std::optional<std::string> Workspace::own_work(const Exercise& exercise) const {
    std::optional<std::string> text = read_file(learner_file(exercise));
    if (!text) return std::nullopt;
    for (Lang lang : {Lang::En, Lang::Id})
        if (read_file(starter_for(exercise, lang)) == text) return std::nullopt;
    return text;
}

fs::path Workspace::ensure_learner_file(const Exercise& exercise, Lang lang) const {
    fs::path p = learner_file(exercise);
    if (!fs::exists(p)) {
        const fs::path from = starter_for(exercise, lang);
        auto starter = read_file(from);
        if (!starter) throw KeyedError({msg::workspace_starter_unreadable, {{"path", from.string()}}, {}});
        write_file_atomic(p, *starter);
    }
    return p;
}

fs::path Workspace::keep_copy(const Exercise& exercise, const std::string& kind, const std::string& text) const {
    fs::path backup = learner_file(exercise);
    backup += "." + kind + "-" + timestamp();
    backup = unused_path(backup);
    write_file_atomic(backup, text);
    return backup;
}

fs::path Workspace::reset(const Exercise& exercise, Lang lang) const {
    fs::path p = learner_file(exercise);
    fs::path backup;
    if (auto current = read_file(p)) {
        backup = keep_copy(exercise, "bak", *current);
        history_.record(exercise.id, *current, VersionReason::BeforeReset);
    }
    const fs::path from = starter_for(exercise, lang);
    auto starter = read_file(from);
    if (!starter) throw KeyedError({msg::workspace_starter_unreadable, {{"path", from.string()}}, {}});
    write_file_atomic(p, *starter);
    return backup;
}

void Workspace::save(const Exercise& exercise, const std::string& text) const { write_file_atomic(learner_file(exercise), text); }

int Workspace::restore(const Exercise& exercise, int number) const {
    const std::string text = history_.text(exercise.id, number);  // first: an unknown number changes nothing
    int kept = 0;
    if (const std::optional<std::string> current = read_file(learner_file(exercise)); current && *current != text)
        kept = history_.record(exercise.id, *current, VersionReason::BeforeRestore).number;
    save(exercise, text);
    history_.record(exercise.id, text, VersionReason::Restored, number);
    return kept;
}

const char* status_code(ExerciseStatus s) {
    switch (s) {
        case ExerciseStatus::NotStarted: return "not_started";
        case ExerciseStatus::Attempted: return "attempted";
        case ExerciseStatus::Passed: return "passed";
    }
    return "?";
}

namespace {

constexpr int64_t kMaxCount = 1000000000;         // attempts, hints
constexpr int64_t kMaxTime = int64_t{1} << 53;     // unix seconds

const char* const kExerciseKeys[] = {"status", "attempts", "hints_revealed", "last_verdict", "last_check", "passed_at"};
const char* const kTopKeys[] = {"version", "exercises", "last_exercise"};

// Everything of `object` but `known`, as JSON text.
template <size_t N>
std::string unknown_keys(const json& object, const char* const (&known)[N]) {
    json rest = json::object();
    for (const auto& [key, value] : object.items()) {
        bool is_known = false;
        for (const char* k : known) is_known |= key == k;
        if (!is_known) rest[key] = value;
    }
    return rest.dump();
}

struct ProgressFile {
    std::map<std::string, ExerciseProgress> items;
    std::string last_exercise;
    std::string extra_json = "{}";
};

// Parses progress.json; throws std::runtime_error on anything unexpected.
ProgressFile parse_progress(const std::string& text) {
    const json root = parse_bounded(text, kMaxProgressBytes);
    if (!root.is_object() || !root.contains("version") || root["version"] != 1 || !root.contains("exercises") ||
        !root["exercises"].is_object())
        throw KeyedError({msg::file_unexpected_structure, {}, {}});
    ProgressFile f;
    for (const auto& [id, e] : root["exercises"].items()) {
        if (!e.is_object()) throw KeyedError({msg::file_entry_not_object, {{"id", id}}, {}});
        ExerciseProgress p;
        const std::string status = string_value(e, "status");
        p.status = status == "passed" ? ExerciseStatus::Passed : status == "attempted" ? ExerciseStatus::Attempted : ExerciseStatus::NotStarted;
        p.attempts = static_cast<int>(bounded_integer(e, "attempts", kMaxCount));
        p.hints_revealed = static_cast<int>(bounded_integer(e, "hints_revealed", kMaxCount));
        p.last_verdict = string_value(e, "last_verdict");
        p.last_check = bounded_integer(e, "last_check", kMaxTime);
        p.passed_at = bounded_integer(e, "passed_at", kMaxTime);
        p.extra_json = unknown_keys(e, kExerciseKeys);
        f.items[id] = p;
    }
    f.last_exercise = string_value(root, "last_exercise");
    f.extra_json = unknown_keys(root, kTopKeys);
    return f;
}

// What two attnlab processes (the window and `attnlab watch`, say) recorded,
// combined into `theirs` (the file as it is now): a pass stays a pass, the
// attempts made here since `synced` are added to theirs, hints keep their
// maximum, the latest check wins.
ExerciseProgress merged(const ExerciseProgress& mine, const ExerciseProgress& synced, const ExerciseProgress& theirs) {
    ExerciseProgress m = theirs;
    m.status = std::max(mine.status, theirs.status);
    const int64_t added = std::max(0, mine.attempts - synced.attempts);
    m.attempts = static_cast<int>(std::min<int64_t>(kMaxCount, theirs.attempts + added));
    m.hints_revealed = std::max(mine.hints_revealed, theirs.hints_revealed);
    if (mine.last_check >= theirs.last_check) {  // ours, unless theirs is newer
        m.last_check = mine.last_check;
        m.last_verdict = mine.last_verdict;
    }
    if (mine.passed_at && (!m.passed_at || mine.passed_at < m.passed_at)) m.passed_at = mine.passed_at;
    if (theirs.extra_json == "{}") m.extra_json = mine.extra_json;
    return m;
}


}  // namespace

KeyedMessage ProgressStore::load() {
    items_.clear();
    readonly_ = false;
    last_exercise_.clear();
    synced_.clear();
    extra_json_ = "{}";
    std::error_code size_ec;
    const auto size = fs::file_size(file_, size_ec);
    std::optional<std::string> text;
    if (!size_ec && size > kMaxProgressBytes) text = std::string(kMaxProgressBytes + 1, ' ');  // not read: too large
    else text = read_file(file_);
    if (!text) return {};  // no progress yet
    try {
        ProgressFile f = parse_progress(*text);
        items_ = f.items;
        synced_ = std::move(f.items);
        last_exercise_ = std::move(f.last_exercise);
        extra_json_ = std::move(f.extra_json);
        return {};
    } catch (const std::exception& e) {
        items_.clear();
        last_exercise_.clear();
        fs::path aside = file_;
        aside += ".corrupt-" + timestamp();
        aside = unused_path(aside);
        std::error_code ec;
        fs::rename(file_, aside, ec);
        if (ec) {
            // Could not move it aside: leave it untouched and do not overwrite it
            // later either, so nothing is lost.
            readonly_ = true;
            return {msg::startup_progress_unmovable, {{"file", file_.string()}, {"error", ec.message()}}, {{"why", message_of(e)}}};
        }
        return {msg::startup_progress_set_aside, {{"file", file_.string()}, {"aside", aside.string()}}, {{"why", message_of(e)}}};
    }
}

void ProgressStore::save() {
    if (readonly_) return;
    std::error_code ec;
    fs::create_directories(file_.parent_path(), ec);
    if (ec) throw FileError(FileStep::CreateFolder, file_.parent_path().string(), ec.value());  // "permission" when it is one
    // One writer at a time; merge what another process wrote since we read.
    const std::string lock_path = file_.string() + ".lock";
    const int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock < 0 && (errno == EACCES || errno == EPERM || errno == EROFS))
        throw FileError(FileStep::Write, lock_path, errno);
    if (lock >= 0) ::flock(lock, LOCK_EX);
    struct Unlock {
        int fd;
        ~Unlock() {
            if (fd >= 0) ::close(fd);  // closing releases the lock
        }
    } unlock{lock};
    // The file as it is now; missing or unreadable: as we last saw it.
    ProgressFile theirs{synced_, last_exercise_, extra_json_};
    std::error_code size_ec;
    const auto size = fs::file_size(file_, size_ec);
    if (auto text = !size_ec && size > kMaxProgressBytes ? std::nullopt : read_file(file_)) {
        try {
            theirs = parse_progress(*text);
        } catch (const std::exception&) {
            // Corrupt since we loaded it: keep it aside, then ours replaces it.
            fs::path aside = file_;
            aside += ".corrupt-" + timestamp();
            write_file_atomic(unused_path(aside), *text);
        }
    }
    static const ExerciseProgress none;
    std::map<std::string, ExerciseProgress> result = theirs.items;
    for (const auto& [id, mine] : items_) {
        const auto s = synced_.find(id);
        const auto t = theirs.items.find(id);
        result[id] = merged(mine, s == synced_.end() ? none : s->second, t == theirs.items.end() ? none : t->second);
    }
    json root = json::parse(theirs.extra_json, nullptr, false);
    if (!root.is_object()) root = json::object();
    root["version"] = 1;
    root["last_exercise"] = last_exercise_.empty() ? theirs.last_exercise : last_exercise_;
    root["exercises"] = json::object();
    for (const auto& [id, p] : result) {
        json e = json::parse(p.extra_json, nullptr, false);
        if (!e.is_object()) e = json::object();
        e.update({{"status", status_code(p.status)}, {"attempts", p.attempts}, {"hints_revealed", p.hints_revealed},
                  {"last_verdict", p.last_verdict}, {"last_check", p.last_check}, {"passed_at", p.passed_at}});
        root["exercises"][id] = e;
    }
    write_file_atomic(file_, root.dump(2) + "\n");
    items_ = result;
    synced_ = std::move(result);
    extra_json_ = theirs.extra_json;
}

const ExerciseProgress& ProgressStore::get(const std::string& id) const {
    static const ExerciseProgress empty;
    auto it = items_.find(id);
    return it == items_.end() ? empty : it->second;
}

void ProgressStore::record_check(const std::string& id, const CheckResult& result) {
    if (result.verdict == Verdict::Cancelled || result.verdict == Verdict::InternalError) return;
    ExerciseProgress& p = items_[id];
    p.attempts += 1;
    p.last_verdict = verdict_code(result.verdict);
    p.last_check = unix_now();
    if (result.passed()) {
        if (p.status != ExerciseStatus::Passed) p.passed_at = p.last_check;
        p.status = ExerciseStatus::Passed;
    } else if (p.status == ExerciseStatus::NotStarted) {
        p.status = ExerciseStatus::Attempted;
    }
    last_exercise_ = id;
    save();
}

Settings Settings::load(const fs::path& file, KeyedMessage* warning) {
    Settings s;
    std::error_code size_ec;
    const auto size = fs::file_size(file, size_ec);
    std::optional<std::string> text;
    if (!size_ec && size > kMaxSettingsBytes) text = std::string(kMaxSettingsBytes + 1, ' ');  // not read: too large
    else text = read_file(file);
    if (!text) return s;
    try {
        json root = parse_bounded(*text, kMaxSettingsBytes);
        if (!root.is_object()) throw KeyedError({msg::file_not_object, {}, {}});
        if (root.contains("language") && root["language"].is_string()) {
            Lang l;
            if (parse_lang(root["language"].get<std::string>(), l)) s.language = l;
        }
        s.allow_weak_sandbox = root.contains(sandbox_status::kWeakSandboxSetting) && root[sandbox_status::kWeakSandboxSetting] == true;
        root.erase("language");
        s.extra_json = root.dump();
    } catch (const std::exception& e) {
        // Never written over: a later save() first keeps the file aside, as
        // the progress file is kept (its other keys are the user's).
        s.unreadable = true;
        if (warning) *warning = {msg::startup_settings_unreadable, {{"file", file.string()}}, {{"why", message_of(e)}}};
    }
    return s;
}

std::optional<fs::path> Settings::keep_unreadable_aside(const fs::path& file) {
    if (!unreadable) return std::nullopt;
    std::error_code ec;
    if (!fs::exists(file, ec)) {
        unreadable = false;
        return std::nullopt;
    }
    fs::path aside = file;
    aside += ".unreadable-" + timestamp();
    aside = unused_path(aside);
    fs::rename(file, aside, ec);
    if (ec) throw FileError(FileStep::Replace, file.string(), ec.value());  // not moved: not overwritten either
    unreadable = false;
    return aside;
}

void Settings::save(const fs::path& file) {
    keep_unreadable_aside(file);
    json root = json::parse(extra_json, nullptr, false);
    if (!root.is_object()) root = json::object();
    if (language) root["language"] = lang_code(*language);
    write_file_atomic(file, root.dump(2) + "\n");
}

Lang resolve_language(const std::string& flag, const Settings& settings) {
    Lang l = Lang::En;
    if (!flag.empty() && parse_lang(flag, l)) return l;
    if (const char* v = std::getenv("ATTNLAB_LANG"); v && parse_lang(v, l)) return l;
    if (settings.language) return *settings.language;
    for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"})
        if (const char* v = std::getenv(var); v && *v) return parse_lang(v, l) ? l : Lang::En;
    return Lang::En;
}

WeakSandboxOptIn weak_sandbox_opt_in(const Settings& settings) {
    WeakSandboxOptIn o;
    const char* v = std::getenv(sandbox_status::kWeakSandboxEnv);
    o.env = v && *v && std::strcmp(v, "0") != 0;
    o.setting = settings.allow_weak_sandbox;
    return o;
}

WeakSandboxOptIn weak_sandbox_opt_in(const fs::path& settings_file) { return weak_sandbox_opt_in(Settings::load(settings_file)); }

}  // namespace attnlab
