#include "attnlab/core/workspace.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "attnlab/core/util.hpp"

namespace attnlab {

using nlohmann::json;

namespace {

fs::path xdg(const char* var, const char* fallback_under_home) {
    if (const char* v = std::getenv(var); v && *v == '/') return fs::path(v) / "attnlab";
    const char* home = std::getenv("HOME");
    return fs::path(home && *home ? home : "/tmp") / fallback_under_home / "attnlab";
}

std::string timestamp() {
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", std::localtime(&t));
    return buf;
}

// `base`, or base-2, base-3 … when taken: a second backup within the same
// second must not overwrite the first.
fs::path unused_path(const fs::path& base) {
    fs::path p = base;
    for (int n = 2; fs::exists(p); ++n) {
        p = base;
        p += "-" + std::to_string(n);
    }
    return p;
}

}  // namespace

Paths Paths::from_environment() {
    Paths p;
    if (const char* home = std::getenv("ATTNLAB_HOME"); home && *home) {
        p.data = fs::absolute(home);
        p.cache = p.data / "cache";
        p.config = p.data / "config";
        return p;
    }
    p.data = xdg("XDG_DATA_HOME", ".local/share");
    p.cache = xdg("XDG_CACHE_HOME", ".cache");
    p.config = xdg("XDG_CONFIG_HOME", ".config");
    return p;
}

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

fs::path Workspace::ensure_learner_file(const Exercise& exercise, Lang lang) const {
    fs::path p = learner_file(exercise);
    if (!fs::exists(p)) {
        const fs::path from = starter_for(exercise, lang);
        auto starter = read_file(from);
        if (!starter) throw std::runtime_error("cannot read " + from.string());
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
    if (auto current = read_file(p)) backup = keep_copy(exercise, "bak", *current);
    const fs::path from = starter_for(exercise, lang);
    auto starter = read_file(from);
    if (!starter) throw std::runtime_error("cannot read " + from.string());
    write_file_atomic(p, *starter);
    return backup;
}

void Workspace::save(const Exercise& exercise, const std::string& text) const { write_file_atomic(learner_file(exercise), text); }

const char* status_code(ExerciseStatus s) {
    switch (s) {
        case ExerciseStatus::NotStarted: return "not_started";
        case ExerciseStatus::Attempted: return "attempted";
        case ExerciseStatus::Passed: return "passed";
    }
    return "?";
}

namespace {

// Parses progress.json; throws std::runtime_error on anything unexpected.
void parse_progress(const std::string& text, std::map<std::string, ExerciseProgress>& items, std::string& last_exercise) {
    json root = json::parse(text);
    if (!root.is_object() || root.value("version", 0) != 1 || !root.contains("exercises") || !root["exercises"].is_object())
        throw std::runtime_error("unexpected structure");
    for (const auto& [id, e] : root["exercises"].items()) {
        if (!e.is_object()) throw std::runtime_error("entry " + id + " is not an object");
        ExerciseProgress p;
        const std::string status = e.value("status", "not_started");
        p.status = status == "passed" ? ExerciseStatus::Passed : status == "attempted" ? ExerciseStatus::Attempted : ExerciseStatus::NotStarted;
        p.attempts = e.value("attempts", 0);
        p.hints_revealed = e.value("hints_revealed", 0);
        p.last_verdict = e.value("last_verdict", "");
        p.last_check = e.value("last_check", int64_t{0});
        p.passed_at = e.value("passed_at", int64_t{0});
        items[id] = p;
    }
    last_exercise = root.value("last_exercise", "");
}

// What two attnlab processes (the window and `attnlab watch`, say) recorded,
// combined: a pass stays a pass, counts keep their maximum, the latest check wins.
void merge_into(ExerciseProgress& mine, const ExerciseProgress& theirs) {
    mine.status = std::max(mine.status, theirs.status);
    mine.attempts = std::max(mine.attempts, theirs.attempts);
    mine.hints_revealed = std::max(mine.hints_revealed, theirs.hints_revealed);
    if (theirs.last_check > mine.last_check) {
        mine.last_check = theirs.last_check;
        mine.last_verdict = theirs.last_verdict;
    }
    if (theirs.passed_at && (!mine.passed_at || theirs.passed_at < mine.passed_at)) mine.passed_at = theirs.passed_at;
}

}  // namespace

std::string ProgressStore::load() {
    items_.clear();
    readonly_ = false;
    last_exercise_.clear();
    auto text = read_file(file_);
    if (!text) return "";  // no progress yet
    try {
        parse_progress(*text, items_, last_exercise_);
        return "";
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
            return "progress file " + file_.string() + " is unreadable (" + e.what() + ") and could not be moved aside (" +
                   ec.message() + "); progress will not be saved this session";
        }
        return "progress file " + file_.string() + " was unreadable (" + e.what() + "); it was kept as " + aside.string() +
               " and progress starts afresh";
    }
}

void ProgressStore::save() {
    if (readonly_) return;
    std::error_code ec;
    fs::create_directories(file_.parent_path(), ec);
    // One writer at a time; merge what another process wrote since we read.
    const std::string lock_path = file_.string() + ".lock";
    const int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock >= 0) ::flock(lock, LOCK_EX);
    struct Unlock {
        int fd;
        ~Unlock() {
            if (fd >= 0) ::close(fd);  // closing releases the lock
        }
    } unlock{lock};
    if (auto text = read_file(file_)) {
        std::map<std::string, ExerciseProgress> theirs;
        std::string their_last;
        try {
            parse_progress(*text, theirs, their_last);
            for (const auto& [id, p] : theirs) merge_into(items_[id], p);
        } catch (const std::exception&) {
            // Corrupt since we loaded it: keep it aside, then ours replaces it.
            fs::path aside = file_;
            aside += ".corrupt-" + timestamp();
            write_file_atomic(unused_path(aside), *text);
        }
    }
    json root;
    root["version"] = 1;
    root["last_exercise"] = last_exercise_;
    root["exercises"] = json::object();
    for (const auto& [id, p] : items_) {
        root["exercises"][id] = {{"status", status_code(p.status)}, {"attempts", p.attempts}, {"hints_revealed", p.hints_revealed},
                                 {"last_verdict", p.last_verdict}, {"last_check", p.last_check}, {"passed_at", p.passed_at}};
    }
    write_file_atomic(file_, root.dump(2) + "\n");
}

const ExerciseProgress& ProgressStore::get(const std::string& id) const {
    static const ExerciseProgress empty;
    auto it = items_.find(id);
    return it == items_.end() ? empty : it->second;
}

void ProgressStore::record_check(const std::string& id, const CheckResult& result) {
    if (result.verdict == Verdict::Cancelled) return;
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

Settings Settings::load(const fs::path& file, std::string* warning) {
    Settings s;
    auto text = read_file(file);
    if (!text) return s;
    try {
        json root = json::parse(*text);
        if (!root.is_object()) throw std::runtime_error("not an object");
        if (root.contains("language") && root["language"].is_string()) {
            Lang l;
            if (parse_lang(root["language"].get<std::string>(), l)) s.language = l;
        }
        root.erase("language");
        s.extra_json = root.dump();
    } catch (const std::exception& e) {
        if (warning) *warning = "settings file " + file.string() + " is unreadable (" + e.what() + "); using defaults";
    }
    return s;
}

void Settings::save(const fs::path& file) const {
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

}  // namespace attnlab
