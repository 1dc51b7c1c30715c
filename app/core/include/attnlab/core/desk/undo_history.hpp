#pragma once
// The editor's undo and redo for a whole session: typing, a select-all
// deletion, a paste, a reload from disk, a reset, a restored version. Dear
// ImGui's own undo (stb_textedit's) holds 999 characters and is lost when
// the widget is recreated, so the editor asks this one instead.
//
// The history keeps the text every step leads to, so an edit is found by
// comparing the new text with it (one replaced span: common prefix and
// suffix) and undo never depends on the widget. Bounded: the oldest steps
// go first when there are more than max_steps, or when the text they hold
// passes max_bytes (the newest step is always kept).
#include <cstddef>
#include <deque>
#include <optional>
#include <string>

namespace attnlab {

struct UndoLimits {
    size_t max_steps = 5000;
    size_t max_bytes = size_t{8} << 20;
};

class UndoHistory {
public:
    using Limits = UndoLimits;
    // How an edit may join the step before it.
    enum class Grouping {
        Typing,   // text typed or deleted on one line continues the step it extends
        Replace,  // a step of its own (a reload, a reset, a restored version, a paste…)
    };

    explicit UndoHistory(std::string text = {}, Limits limits = {});

    // The text as of the newest recorded edit (after undo/redo: the text they made).
    const std::string& text() const { return text_; }
    // Records the change from text() to `now` (nothing when they are equal)
    // and forgets what could be redone.
    void record(const std::string& now, Grouping grouping = Grouping::Typing);
    // The next edit starts a step of its own (after a save, a check, a cursor jump).
    void seal() { sealed_ = true; }

    bool can_undo() const { return !undo_.empty(); }
    bool can_redo() const { return !redo_.empty(); }
    // One step back (or forward): text() becomes what it was; returns the
    // offset where the cursor belongs (the end of the restored span), or
    // nullopt when there is nothing to undo (redo).
    std::optional<size_t> undo();
    std::optional<size_t> redo();

    size_t undo_steps() const { return undo_.size(); }
    size_t redo_steps() const { return redo_.size(); }
    // Bytes of text the steps hold.
    size_t bytes() const { return bytes_; }

private:
    struct Step {
        size_t at = 0;          // where the span starts
        std::string removed;    // what was there before
        std::string inserted;   // what is there after
        size_t size() const { return removed.size() + inserted.size(); }
    };
    bool extends(const Step& last, const Step& next) const;
    std::optional<size_t> move_step(std::deque<Step>& from, std::deque<Step>& to, bool forward);
    void trim();

    std::string text_;
    Limits limits_;
    std::deque<Step> undo_;
    std::deque<Step> redo_;
    size_t bytes_ = 0;
    bool sealed_ = true;
};

}  // namespace attnlab
