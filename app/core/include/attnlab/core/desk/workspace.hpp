#pragma once
// The learner's workspace (their files, under Paths, base/data_paths.hpp),
// the progress file and the settings.
//
// Every write is atomic (temporary file + rename): killing attnlab at any
// moment leaves the old or the new file, never a torn one.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "attnlab/core/base/data_paths.hpp"
#include "attnlab/core/check/check_result.hpp"
#include "attnlab/core/check/process.hpp"
#include "attnlab/core/course/course.hpp"
#include "attnlab/core/desk/version_history.hpp"
#include "attnlab/core/text/messages.hpp"

namespace attnlab {

namespace fs = std::filesystem;

class Workspace {
public:
    explicit Workspace(Paths paths) : paths_(std::move(paths)) {}
    const Paths& paths() const { return paths_; }
    fs::path learner_file(const Exercise& exercise) const;
    // Creates the learner's file from the starter when it does not exist yet:
    // the starter in `lang` (starter.id.cpp) when the exercise has one, so its
    // comments are in the learner's language, else starter.cpp.
    fs::path ensure_learner_file(const Exercise& exercise, Lang lang = Lang::En) const;
    // Keeps a timestamped backup of the learner's file (and a version in its
    // history), then restores the starter. Returns the backup path ("" when
    // there was nothing to back up).
    fs::path reset(const Exercise& exercise, Lang lang = Lang::En) const;
    // The starter a learner gets in `lang`.
    static fs::path starter_for(const Exercise& exercise, Lang lang);
    // The learner's file when it holds their own work: nullopt when it is
    // missing, unreadable, or still a starter in either language (an earlier
    // kernel to compare with, kernel_versions.hpp, must be one they wrote).
    std::optional<std::string> own_work(const Exercise& exercise) const;
    // Atomic save of an editor buffer.
    void save(const Exercise& exercise, const std::string& text) const;
    // Writes `text` beside the learner's file as <id>.cpp.<kind>-<time>
    // (never overwriting an earlier copy) and returns its path.
    fs::path keep_copy(const Exercise& exercise, const std::string& kind, const std::string& text) const;

    // The learner's versions of each exercise (saves, checks, restores).
    const VersionHistory& history() const { return history_; }
    // Puts version `number` back into the learner's file, keeping the file
    // as it was as a version first (nothing is lost). Returns the number of
    // that kept version (0 when the file was missing or already that text).
    // Throws KeyedError (no such version, its text missing) or FileError.
    int restore(const Exercise& exercise, int number) const;

private:
    Paths paths_;
    VersionHistory history_{paths_.history()};
};

enum class ExerciseStatus { NotStarted, Attempted, Passed };
const char* status_code(ExerciseStatus s);

struct ExerciseProgress {
    ExerciseStatus status = ExerciseStatus::NotStarted;
    int attempts = 0;
    int hints_revealed = 0;
    std::string last_verdict;
    int64_t last_check = 0;   // unix seconds
    int64_t passed_at = 0;
    std::string extra_json = "{}";  // keys this attnlab does not know (a newer one's), kept as they were
};

// Files attnlab reads as JSON are bounded before they are parsed: a larger
// or deeper file is unreadable (moved aside like a corrupt one).
inline constexpr size_t kMaxProgressBytes = 4u << 20;
inline constexpr size_t kMaxSettingsBytes = 1u << 20;
inline constexpr int kMaxJsonDepth = 64;

class ProgressStore {
public:
    explicit ProgressStore(fs::path file) : file_(std::move(file)) {}
    // Reads the file. A corrupt file is moved aside (progress.json.corrupt-<time>)
    // and progress starts empty; the returned message says so (empty when fine).
    KeyedMessage load();
    // Atomic, under a lock, merged with what another attnlab process (the
    // window beside `attnlab watch`) recorded meanwhile: attempts made here
    // since the last load or save are added to theirs, never lost. Throws
    // std::runtime_error on I/O failure (saying "permission" when it is one).
    void save();

    const ExerciseProgress& get(const std::string& id) const;
    ExerciseProgress& at(const std::string& id) { return items_[id]; }
    // Records a finished check and saves. A cancelled check, and one that
    // could not judge the learner's code at all (an internal error: a full
    // disk, a missing toolchain, a sandbox the kernel refuses) are no attempt.
    void record_check(const std::string& id, const CheckResult& result);
    const std::string& last_exercise() const { return last_exercise_; }
    void set_last_exercise(const std::string& id) { last_exercise_ = id; }
    const fs::path& file() const { return file_; }

private:
    fs::path file_;
    std::map<std::string, ExerciseProgress> items_;
    std::map<std::string, ExerciseProgress> synced_;  // as the file was at the last load or save
    std::string last_exercise_;
    std::string extra_json_ = "{}";  // unknown top-level keys
    bool readonly_ = false;  // a corrupt file that could not be moved aside is never overwritten
};

// Settings shared by the CLI and the GUI (the GUI adds its own keys; unknown
// keys are kept when saving).
struct Settings {
    std::optional<Lang> language;
    // "allow_weak_sandbox": true — half of the opt-in to run learner code
    // without a protection the kernel refuses (see process.hpp). Read only:
    // it stays in extra_json, so only the user's own edit sets it.
    bool allow_weak_sandbox = false;
    std::string extra_json = "{}";  // everything else, round-tripped
    // The file exists but could not be read: defaults are in use, and the
    // file is never written over (save() keeps it aside first).
    bool unreadable = false;
    static Settings load(const fs::path& file, KeyedMessage* warning = nullptr);
    // Writes the settings; an unreadable file is first kept aside as
    // settings.json.unreadable-<time> (throws FileError when it cannot be moved).
    void save(const fs::path& file);
    // The unreadable file moved aside now: where it went (nullopt: nothing to keep).
    std::optional<fs::path> keep_unreadable_aside(const fs::path& file);
};

// --lang, then ATTNLAB_LANG, then settings, then LC_ALL/LC_MESSAGES/LANG, else English.
Lang resolve_language(const std::string& flag, const Settings& settings);

// The user's opt-in to a weaker sandbox as it stands: ATTNLAB_ALLOW_WEAK_SANDBOX
// in the environment now, and the setting in `settings`.
WeakSandboxOptIn weak_sandbox_opt_in(const Settings& settings);
// Both halves as they stand now, the setting read from `settings_file`. The
// answer goes to the check layer in the Toolchain whose runs it governs
// (Toolchain::weak_sandbox_allowed): there is no process-wide switch.
WeakSandboxOptIn weak_sandbox_opt_in(const fs::path& settings_file);

}  // namespace attnlab
