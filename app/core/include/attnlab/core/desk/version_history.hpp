#pragma once
// Each exercise's local history: a version of the learner's file at every
// save and every check, kept beside the workspace, so a text that was once
// saved or checked can be brought back, also after the window is closed.
//
//   <data>/history/<id>/index.json     the versions, oldest first (number, time, why, text's hash, size)
//   <data>/history/<id>/<hash>.txt     each distinct text once
//
// Bounded per exercise (versions and bytes of text; the oldest go first, the
// newest always stays) and deduplicated (a text the newest version already
// holds is no new version; equal texts share one file; autosaves of one
// stretch of editing are one version). Every write is atomic: a text is
// written before the index that names it. A corrupt or missing index is set
// aside and the versions are found again from the texts kept (the warning
// says so); a version whose text is missing says so when asked for.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "attnlab/core/text/messages.hpp"

namespace attnlab {

namespace fs = std::filesystem;

enum class VersionReason {
    Saved,          // Ctrl+S, the Save button, leaving the exercise
    Autosaved,      // the window's autosave
    Checked,        // the text a check ran on
    BeforeRestore,  // the file as it was when another version was restored
    Restored,       // a version brought back (restored_from says which)
    BeforeReset,    // the file as it was when the starter was put back
    Recovered,      // found again from its text after the index was lost
};
const char* version_reason_code(VersionReason r);  // "saved", "checked"… (also its message key: history.reason.<code>)

struct Version {
    int number = 0;            // 1, 2, 3… never reused for this exercise
    int64_t time = 0;          // unix seconds
    VersionReason reason = VersionReason::Saved;
    int restored_from = 0;     // Restored: the number brought back
    std::string hash;          // the text's file name, without ".txt"
    size_t bytes = 0;
    int lines = 0;
    bool available = true;     // its text is there to be restored
};

struct HistoryLimits {
    size_t max_versions = 100;
    size_t max_bytes = size_t{4} << 20;  // of distinct texts, per exercise
    int64_t autosave_stretch_s = 600;    // an autosave within this of the newest autosave replaces it
};

// In words, the same in the CLI and the window: why a version was kept
// ("saved", "version 3 restored"), and when (local time, 2025-01-31 14:02).
std::string version_reason_words(const Version& v, Lang lang);
std::string version_time_words(int64_t unix_seconds);
// The name a text's version is kept under (Version::hash): the window marks
// the version that holds the text in the editor.
std::string version_hash_of(const std::string& text);

class VersionHistory {
public:
    // `root`: <data>/history.
    explicit VersionHistory(fs::path root, HistoryLimits limits = {}) : root_(std::move(root)), limits_(limits) {}
    fs::path folder(const std::string& exercise_id) const { return root_ / exercise_id; }

    // The versions of an exercise, oldest first (none yet: empty). A corrupt
    // index is set aside and rebuilt from the texts; `warning` says so.
    std::vector<Version> list(const std::string& exercise_id, KeyedMessage* warning = nullptr) const;
    // Keeps `text` as a version; returns the newest version after it (the
    // one it matched when the text is already the newest). Throws FileError
    // when the folder cannot be written.
    Version record(const std::string& exercise_id, const std::string& text, VersionReason reason, int restored_from = 0,
                   int64_t now = 0) const;
    // The text of version `number`. Throws KeyedError: history.no_version
    // (no such number), history.text_missing (its file is gone or altered).
    std::string text(const std::string& exercise_id, int number) const;

private:
    fs::path root_;
    HistoryLimits limits_;
};

}  // namespace attnlab
