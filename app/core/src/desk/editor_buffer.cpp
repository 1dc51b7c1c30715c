#include "attnlab/core/desk/editor_buffer.hpp"

#include "attnlab/core/base/util.hpp"

namespace attnlab {

std::optional<fs::file_time_type> EditorBuffer::disk_time() const {
    std::error_code ec;
    auto t = fs::last_write_time(file_, ec);
    if (ec) return std::nullopt;
    return t;
}

void EditorBuffer::replace_text(std::string text) {
    text_ = std::move(text);
    auto [it, first_time] = histories_.try_emplace(file_, text_);
    if (!first_time) it->second.record(text_, UndoHistory::Grouping::Replace);
    ++generation_;
}

void EditorBuffer::load(const fs::path& file) {
    file_ = file;
    replace_text(read_file(file_).value_or(""));
    saved_text_ = text_;
    dirty_ = false;
    conflict_ = false;
    disk_time_ = disk_time();
}

void EditorBuffer::mark_edited(Clock::time_point now) {
    history().record(text_);
    dirty_ = text_ != saved_text_;
    last_edit_ = now;
}

std::optional<size_t> EditorBuffer::step(bool forward, Clock::time_point now) {
    if (file_.empty()) return std::nullopt;
    UndoHistory& h = history();
    h.record(text_);  // an edit not reported yet is part of the history first
    const std::optional<size_t> cursor = forward ? h.redo() : h.undo();
    if (!cursor) return std::nullopt;
    text_ = h.text();
    dirty_ = text_ != saved_text_;
    last_edit_ = now;
    return cursor;
}

std::optional<size_t> EditorBuffer::undo(Clock::time_point now) { return step(false, now); }
std::optional<size_t> EditorBuffer::redo(Clock::time_point now) { return step(true, now); }

bool EditorBuffer::can_undo() const {
    const auto it = histories_.find(file_);
    return it != histories_.end() && (it->second.can_undo() || it->second.text() != text_);
}

bool EditorBuffer::can_redo() const {
    const auto it = histories_.find(file_);
    return it != histories_.end() && it->second.can_redo() && it->second.text() == text_;
}

void EditorBuffer::mark_saved() {
    history().record(text_);
    history().seal();
    saved_text_ = text_;
    dirty_ = false;
    conflict_ = false;
    disk_time_ = disk_time();
}

EditorBuffer::DiskEvent EditorBuffer::poll(Clock::time_point now, bool autosave_enabled) {
    if (file_.empty()) return DiskEvent::None;
    const bool autosave_due = autosave_enabled && dirty_ && now - last_edit_ > kAutosaveDelay && now >= autosave_retry_at_;
    DiskEvent event = DiskEvent::None;
    if (autosave_due || now - last_disk_poll_ > kDiskPollInterval) {
        last_disk_poll_ = now;
        ++disk_checks_;
        auto t = disk_time();
        if (t && t != disk_time_) {
            auto text = read_file(file_);
            disk_time_ = t;
            if (text && *text != saved_text_) {
                if (!dirty_) {
                    replace_text(*text);
                    saved_text_ = text_;
                    event = DiskEvent::Reloaded;
                } else {
                    conflict_ = true;
                }
            }
        }
    }
    if (autosave_due && !conflict_) {
        // mtimes can be too coarse to see a quick outside write: compare content.
        auto disk = read_file(file_);
        if (disk && *disk != saved_text_ && *disk != text_) conflict_ = true;
        else return DiskEvent::AutosaveDue;
    }
    return event;
}

}  // namespace attnlab
