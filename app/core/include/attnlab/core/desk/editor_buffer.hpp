#pragma once
// The editor's text and the file it belongs to: what is unsaved, whether
// another program changed the file meanwhile, when an autosave is due, and
// the undo history of every file edited in this session.
// No GUI and no exercise in here: the Session owns one for the open exercise
// and decides what to do with what poll() reports.
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "attnlab/core/desk/undo_history.hpp"

namespace attnlab {

namespace fs = std::filesystem;

class EditorBuffer {
public:
    using Clock = std::chrono::steady_clock;
    static constexpr std::chrono::milliseconds kAutosaveDelay{1500};
    static constexpr std::chrono::milliseconds kDiskPollInterval{500};

    // Replaces the text with the file's (empty when it cannot be read). The
    // file's undo history goes on: reloading it is a step that can be undone.
    void load(const fs::path& file);
    const fs::path& file() const { return file_; }

    // The editor edits this string directly; call mark_edited() after a change.
    std::string& text() { return text_; }
    const std::string& text() const { return text_; }
    void mark_edited(Clock::time_point now = Clock::now());
    bool dirty() const { return dirty_; }

    // One edit of this file back or forward (every edit since the file was
    // first opened in this session, within UndoHistory's bounds): the text
    // changes, and the offset where the cursor belongs is returned; nullopt
    // when there is nothing to undo or redo.
    std::optional<size_t> undo(Clock::time_point now = Clock::now());
    std::optional<size_t> redo(Clock::time_point now = Clock::now());
    bool can_undo() const;
    bool can_redo() const;
    // The next edit starts an undo step of its own (after a save or a check).
    void seal_undo_step() { history().seal(); }
    // What the file held when last loaded or saved.
    const std::string& saved_text() const { return saved_text_; }
    // Bumped whenever the text is replaced from outside the editor: an editor
    // widget holding its own copy must drop it then.
    int generation() const { return generation_; }

    // The file changed on disk while there were unsaved edits.
    bool conflict() const { return conflict_; }
    void clear_conflict() { conflict_ = false; }
    // The text was written to the file.
    void mark_saved();
    // An autosave failed (full disk…): try again after a pause.
    void autosave_failed(Clock::time_point now) { autosave_retry_at_ = now + std::chrono::seconds(10); }

    enum class DiskEvent {
        None,
        Reloaded,     // the file changed and there were no edits: the text is the file's now
        AutosaveDue,  // the session should save now
    };
    // Looks at the file when due (every kDiskPollInterval, or when an autosave
    // is due), before any autosave, so an outside change becomes a conflict
    // instead of being written over.
    DiskEvent poll(Clock::time_point now, bool autosave_enabled);
    // How often poll() has looked at the file (tests wait on it, not on time).
    int disk_checks() const { return disk_checks_; }

private:
    std::optional<fs::file_time_type> disk_time() const;
    UndoHistory& history() { return histories_[file_]; }
    // The text replaced from outside the editor (a load, a reload): a step of its own.
    void replace_text(std::string text);
    std::optional<size_t> step(bool forward, Clock::time_point now);

    fs::path file_;
    std::string text_;
    std::string saved_text_;
    bool dirty_ = false;
    bool conflict_ = false;
    int generation_ = 0;
    int disk_checks_ = 0;
    std::optional<fs::file_time_type> disk_time_;
    Clock::time_point last_edit_{};
    Clock::time_point last_disk_poll_{};
    Clock::time_point autosave_retry_at_{};
    std::map<fs::path, UndoHistory> histories_;  // per file opened in this session
};

}  // namespace attnlab
