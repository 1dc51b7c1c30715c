#include "attnlab/core/desk/undo_history.hpp"

#include <algorithm>

namespace attnlab {

UndoHistory::UndoHistory(std::string text, Limits limits) : text_(std::move(text)), limits_(limits) {}

// Typing a word (and the spaces after it) is one step: an insertion right
// after the last one that does not start a new word; so is deleting on one
// line, right before (Backspace) or at (Delete) the last deletion. A line
// break always starts a step of its own.
bool UndoHistory::extends(const Step& last, const Step& next) const {
    if (sealed_) return false;
    const auto one_line = [](const std::string& s) { return s.find('\n') == std::string::npos; };
    if (!one_line(last.removed) || !one_line(last.inserted) || !one_line(next.removed) || !one_line(next.inserted)) return false;
    const bool typing = last.removed.empty() && next.removed.empty();
    const bool deleting = last.inserted.empty() && next.inserted.empty();
    const auto space = [](char c) { return c == ' ' || c == '\t'; };
    if (typing) {
        const bool new_word = space(last.inserted.back()) && !space(next.inserted.front());
        return !new_word && next.at == last.at + last.inserted.size();
    }
    if (deleting) return next.at + next.removed.size() == last.at || next.at == last.at;
    return false;
}

void UndoHistory::record(const std::string& now, Grouping grouping) {
    if (now == text_) return;
    // The one span that changed: what both texts share at the start and at the end stays.
    const size_t shortest = std::min(now.size(), text_.size());
    size_t prefix = 0;
    while (prefix < shortest && now[prefix] == text_[prefix]) ++prefix;
    size_t suffix = 0;
    while (suffix < shortest - prefix && now[now.size() - 1 - suffix] == text_[text_.size() - 1 - suffix]) ++suffix;
    Step step{prefix, text_.substr(prefix, text_.size() - prefix - suffix), now.substr(prefix, now.size() - prefix - suffix)};
    text_ = now;
    for (const Step& s : redo_) bytes_ -= s.size();
    redo_.clear();
    if (grouping == Grouping::Typing && !undo_.empty() && extends(undo_.back(), step)) {
        Step& last = undo_.back();
        bytes_ += step.size();
        if (step.removed.empty()) last.inserted += step.inserted;
        else if (step.at == last.at) last.removed += step.removed;  // Delete: the text after the last deletion
        else {                                                       // Backspace: the text before it
            last.removed = step.removed + last.removed;
            last.at = step.at;
        }
    } else {
        bytes_ += step.size();
        undo_.push_back(std::move(step));
    }
    sealed_ = grouping == Grouping::Replace;
    trim();
}

// One step from `from` to `to`: undone (forward = false) or redone.
std::optional<size_t> UndoHistory::move_step(std::deque<Step>& from, std::deque<Step>& to, bool forward) {
    if (from.empty()) return std::nullopt;
    Step step = std::move(from.back());
    from.pop_back();
    const std::string& gone = forward ? step.removed : step.inserted;
    const std::string& back = forward ? step.inserted : step.removed;
    text_.replace(step.at, gone.size(), back);
    const size_t cursor = step.at + back.size();
    to.push_back(std::move(step));
    sealed_ = true;
    return cursor;
}

std::optional<size_t> UndoHistory::undo() { return move_step(undo_, redo_, false); }
std::optional<size_t> UndoHistory::redo() { return move_step(redo_, undo_, true); }

void UndoHistory::trim() {
    while (undo_.size() > 1 && (undo_.size() + redo_.size() > limits_.max_steps || bytes_ > limits_.max_bytes)) {
        bytes_ -= undo_.front().size();
        undo_.pop_front();
    }
}

}  // namespace attnlab
